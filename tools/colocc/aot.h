/* colocc --aot: transformed and compiled modules in the cache the runtime reads (cache.h). */
#ifndef COLOC_AOT_H
#define COLOC_AOT_H

#include <stddef.h>
#include <sys/types.h>

#include "cache.h"
#include "diag.h"

struct aot_options {
	const char *arch; /* the target as given, e.g. "sm_90a" */
	struct coloc_target target;
	const char *cache; /* the cache directory */
	const char *ptxas; /* NULL: $CUDA_HOME/bin, the PATH, /usr/local/cuda/bin */
	unsigned jobs;     /* ptxas processes at once */
	int verbose;       /* a line per module, and each refusal */
	int ptb_restart;   /* --ptb-restart: its variants, under their own cache key */
	int ptb_read_copy; /* --ptb-stop-read=copy: the same */
	int ptb_resume;    /* --ptb-resume: the same */
};

struct aot_stats {
	unsigned modules;  /* PTX modules seen */
	unsigned compiled; /* entries written */
	unsigned cached;   /* found in the cache: no work */
	unsigned failed;
	size_t kernels, sliced, persistent, refused;
};

struct aot_job;

struct aot {
	struct aot_options o;
	struct aot_stats st;
	char ptxas[4096];
	struct aot_job *jobs; /* o.jobs slots */
	unsigned running;
};

/* Prepares the cache directory and finds ptxas; returns 0 or -1 after a diagnostic. */
int aot_init(struct aot *a, const struct aot_options *o, struct coloc_diag *diag);

/*
 * One PTX module: `ptx` exactly as embedded, `options` the entry's ptxas
 * options (not NUL-terminated, may be NULL), `origin` what messages call it.
 * Transforms it and starts ptxas, unless the cache has it; returns 0, or
 * -1 after a diagnostic.  Compilation finishes in aot_wait or aot_finish.
 */
int aot_module(struct aot *a, const char *origin, const char *options, size_t options_len,
	       const char *ptx, size_t len, struct coloc_diag *diag);

/* Waits for every running ptxas and completes their entries; returns failures seen. */
unsigned aot_finish(struct aot *a);
void aot_release(struct aot *a);

#endif
