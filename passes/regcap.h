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
 * gets copies with `.maxnreg`, __coloc_cap<N>_ptb_<kernel> at N registers,
 * for the second; so does a one-block-a-worker variant, __coloc_fresh_<kernel>
 * (ptb.c), as __coloc_cap<N>_fresh_<kernel>.
 *
 * The lowest copy's limit keeps the original's occupancy at any block size:
 * the original's count rounded up to the allocation unit (8 per thread), and
 * never below 32, at which every SM of sm_70 and later holds all the threads
 * it can run.  It may spill much of what the loop kept in registers (the
 * CuPy MLP's GEMM: 156 bytes a thread in the fresh form at 40, 24 at 64), so
 * there are copies at the levels between it and the variant's own count too:
 * the most registers a thread can take at each occupancy of a block of 128,
 * 256, 512 or 1,024 threads (32, 40, 48, 56, 64, 72, 80, 96, 128, 168; 64K
 * registers an SM).  A launch runs, of the variant and its copies, the one
 * that takes its grid in the fewest rounds (waves, or rounds of the workers
 * COLOC_FORM=ptb:W asks for), and among those the one with the most
 * registers (runtime/launch.c): the variant itself when its grid fits
 * in one wave (the short trainer, whose grids fit in one, ran 6% slower with
 * every variant capped).  Entries with .minnctapersm are left alone: they
 * already tell ptxas the occupancy they need.
 */
#ifndef COLOC_REGCAP_H
#define COLOC_REGCAP_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cubin.h"
#include "diag.h"

/* The most copies a variant gets: one a level, the original's limit included. */
#define PASS_REGCAP_LEVELS 10

struct pass_regcap {
	const char *variant; /* __coloc_<form>_<kernel> */
	unsigned used;       /* its registers per thread */
	unsigned original;   /* its original's */
	unsigned cap;        /* the limit this copy gets */
	bool made;           /* pass_regcap_ptx made its copy */
};

/* The register limit that keeps an original's occupancy, for its variants. */
unsigned pass_regcap_limit(unsigned original);

/*
 * The caps a variant taking `used` registers gets when its original takes
 * `original`, highest first, in levels[PASS_REGCAP_LEVELS]; returns how
 * many (none when `used` is within the original's limit).
 */
unsigned pass_regcap_levels(unsigned original, unsigned used, unsigned *levels);

/*
 * The copies the persistent variants of a compiled module need, one
 * pass_regcap a copy, sorted by variant and then highest cap first, in *caps
 * (from `arena`).  Returns how many, or -ENOMEM.
 */
int pass_regcap_plan(const struct coloc_cubin *cb, struct coloc_arena *arena,
		     struct pass_regcap **caps);

/* A capped copy's name: this prefix, its cap, '_', the variant's name after __coloc_. */
#define PASS_REGCAP_PREFIX COLOC_PREFIX "cap"

/* The copy of `variant` at `cap` registers' name in buf; 0, or a negative errno. */
int pass_regcap_name(char *buf, size_t size, unsigned cap, const char *variant);

/*
 * For a copy's name, its cap in *cap and the variant's name after __coloc_
 * ("ptb_K", "fresh_K"); NULL for any other name.
 */
const char *pass_regcap_parse(const char *name, unsigned *cap);

/*
 * The module's PTX again with a capped copy for every entry of caps (sorted
 * as pass_regcap_plan gives them) after its variant, in *out; marks each
 * copy made.  Returns how many copies were made, or a negative errno after a
 * diagnostic.
 */
int pass_regcap_ptx(const char *ptx, size_t len, const char *origin,
		    struct pass_regcap *caps, size_t ncaps, struct coloc_buf *out,
		    struct coloc_diag *diag);

#endif
