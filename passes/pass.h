/* Pass interface: one entry point per pass, registered by name. */
#ifndef COLOC_PASS_H
#define COLOC_PASS_H

#include "ptx.h"

struct pass_ctx {
	struct coloc_diag *diag;
	int verify_each; /* run the verifier after every pass */
	int verbose;     /* report per-pass statistics on diag */
};

struct pass_info {
	const char *name;
	int (*run)(struct ptx_module *m, struct pass_ctx *ctx);
	const char *summary;
};

#define PASS(name, fn, summary) int fn(struct ptx_module *m, struct pass_ctx *ctx);
#include "passes.def"
#undef PASS

const struct pass_info *pass_lookup(const char *name, size_t len);
const struct pass_info *pass_registry(size_t *count);

/*
 * Runs the comma-separated list of passes over `m`.  Unknown names are
 * reported before anything runs.  Returns 0 or -1 after diagnostics.
 */
int pass_pipeline_run(struct ptx_module *m, const char *names, struct pass_ctx *ctx);
/* Checks a pass list without running it; returns 0 or -1 after diagnostics. */
int pass_pipeline_check(const char *names, struct coloc_diag *diag);

#endif
