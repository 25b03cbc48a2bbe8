/*
 * One diagnostic sink for the compiler, the passes and the runtime.
 * Messages read `file:line:col: error: message`: lower case, no final
 * period, saying what is wrong and what would be accepted.
 */
#ifndef COLOC_DIAG_H
#define COLOC_DIAG_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

enum coloc_diag_level {
	COLOC_DIAG_NOTE,
	COLOC_DIAG_WARNING,
	COLOC_DIAG_ERROR,
};

struct ptx_loc {
	uint32_t line; /* 1-based; 0 means no location */
	uint32_t col;  /* 1-based */
};

/* For messages about a whole input; no commas, so it passes through macros. */
#define PTX_NOLOC ((struct ptx_loc){0})

struct coloc_diag {
	const char *filename;  /* prefix of every message; may be NULL */
	FILE *stream;          /* where messages go when emit is NULL */
	/* Optional callback: receives the fully formatted line without '\n'. */
	void (*emit)(void *ctx, enum coloc_diag_level level, const char *line);
	void *emit_ctx;
	unsigned max_errors;   /* 0: no cap */
	unsigned nerrors;
	unsigned nwarnings;
	int capped;            /* the cap was reached and announced */
	int werror;            /* treat warnings as errors */
};

void coloc_diag_init(struct coloc_diag *d, const char *filename, FILE *stream);

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void coloc_diag_report(struct coloc_diag *d, enum coloc_diag_level level,
		       struct ptx_loc loc, const char *fmt, ...);
void coloc_diag_vreport(struct coloc_diag *d, enum coloc_diag_level level,
			struct ptx_loc loc, const char *fmt, va_list ap);

/* True once the error cap is reached: callers stop producing errors. */
int coloc_diag_full(const struct coloc_diag *d);

#define coloc_error(d, loc, ...) coloc_diag_report((d), COLOC_DIAG_ERROR, (loc), __VA_ARGS__)
#define coloc_warning(d, loc, ...) coloc_diag_report((d), COLOC_DIAG_WARNING, (loc), __VA_ARGS__)
#define coloc_note(d, loc, ...) coloc_diag_report((d), COLOC_DIAG_NOTE, (loc), __VA_ARGS__)

#endif
