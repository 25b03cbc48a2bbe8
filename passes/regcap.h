/*
 * Register caps that keep a variant's occupancy.
 *
 * ptxas may give a variant more registers per thread than its original: in
 * the persistent form the original body becomes a loop, and ptxas keeps
 * values that do not change from one block to the next (parameters,
 * addresses computed from them) in registers across it.  On the H100, a
 * 256-thread GEMM of gpt_train went from 126 to 172 registers, from two
 * blocks per SM to one, and ran 27% slower (docs/passes.md).  So colocc
 * compiles such a module twice: the first compile says how many registers
 * each entry takes, and every persistent variant above its original's limit
 * gets a copy with `.maxnreg` at that limit, __coloc_cap_ptb_<kernel>, for
 * the second; so does a one-block-a-worker variant, __coloc_fresh_<kernel>
 * (ptb.c), as __coloc_cap_fresh_<kernel>.
 * The copy may spill what the loop kept in registers; it pays only when a
 * launch has more blocks than the uncapped variant's workers can hold at
 * once, so the runtime launches it only then (the short trainer, whose
 * grids fit in one wave, ran 6% slower with every variant capped).
 *
 * The limit keeps the original's occupancy at any block size: the
 * original's count rounded up to the allocation unit (8 per thread), and
 * never below 32, at which every SM of sm_70 and later holds all the threads
 * it can run.  Entries with .minnctapersm are left alone: they already tell
 * ptxas the occupancy they need.
 */
#ifndef COLOC_REGCAP_H
#define COLOC_REGCAP_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cubin.h"
#include "diag.h"

struct pass_regcap {
	const char *variant; /* __coloc_<form>_<kernel> */
	unsigned used;       /* its registers per thread */
	unsigned original;   /* its original's */
	unsigned cap;        /* the limit it gets */
	bool made;           /* pass_regcap_ptx made its copy */
};

/* The register limit that keeps an original's occupancy, for its variants. */
unsigned pass_regcap_limit(unsigned original);

/*
 * The persistent variants of a compiled module that take more registers than
 * their original's limit, sorted by name, in *caps (from `arena`).  Returns how
 * many, or -ENOMEM.
 */
int pass_regcap_plan(const struct coloc_cubin *cb, struct coloc_arena *arena,
		     struct pass_regcap **caps);

/* A capped copy's name: this prefix, then the variant's name after __coloc_. */
#define PASS_REGCAP_PREFIX COLOC_PREFIX "cap_"

/*
 * The module's PTX again with a capped copy of every entry of caps (sorted
 * by name, as pass_regcap_plan gives them) after it, in *out; marks each
 * copy made.  Returns how many copies were made, or a negative errno after a
 * diagnostic.
 */
int pass_regcap_ptx(const char *ptx, size_t len, const char *origin,
		    struct pass_regcap *caps, size_t ncaps, struct coloc_buf *out,
		    struct coloc_diag *diag);

#endif
