/* What the parts of the colocc driver share: its options and output helpers. */
#ifndef COLOC_DRIVER_H
#define COLOC_DRIVER_H

#include "buf.h"

enum emit {
	EMIT_PTX,
	EMIT_NONE,
};

enum mode {
	MODE_COMPILE,
	MODE_LIST,        /* --list */
	MODE_EXTRACT_PTX, /* --extract-ptx */
	MODE_AOT,         /* --aot */
};

struct options {
	enum mode mode;
	const char *output;
	const char *manifest;
	int explain;
	const char *passes;
	const char *arch;
	enum emit emit;
	int verify;
	int ptb_restart; /* --ptb-restart 1, --no-ptb-restart 0, -1 unsaid (then by mode) */
	int ptb_read_copy; /* --ptb-stop-read=copy */
	int ptb_resume;    /* --ptb-resume 1, --no-ptb-resume 0, -1 unsaid (then by mode) */
	int ptb_read_said; /* --ptb-stop-read given */
	int verbose;
	int lineinfo;
	int debug;
	unsigned max_errors;
	unsigned jobs;     /* --aot: ptxas processes at once; 0: one per CPU */
	const char *ptxas; /* --aot: --ptxas=PATH */
	const char **nvrtc_opts;
	unsigned nnvrtc;
	const char **inputs;
	unsigned ninputs;
};

/* main.c */
int usage_error(const char *fmt, const char *arg);
int is_directory(const char *path);
int has_suffix(const char *s, const char *suffix);
/* Writes b to path, or to standard output when path is NULL; -1 after a message. */
int write_output(const char *path, const struct coloc_buf *b);
/* Reads a file, or standard input for "-"; -1 after a message. */
int read_input(const char *path, struct coloc_buf *b);
int is_binary(const struct coloc_buf *b);

/* binaries.c: --list, --extract-ptx and --aot */
int binaries(const struct options *o);

#endif
