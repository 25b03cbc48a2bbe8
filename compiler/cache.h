/*
 * The cache of compiled variants that `colocc --aot` writes and the runtime
 * reads.  One directory per PTX module and target:
 *
 *   CACHE/<key>/module.cubin     the transformed module compiled for the target
 *   CACHE/<key>/module.fatbin    the transformed PTX and that cubin, in one fatbin
 *   CACHE/<key>/module.ptx       the transformed PTX
 *   CACHE/<key>/manifest.json    kernels, variants, added parameters, refusals
 *   CACHE/<key>/key.txt          what the key was computed from
 *
 * The key is computed from the module's PTX exactly as the application
 * embeds it (a fatbin entry's contents), the ptxas options the entry
 * carries, the target and the colocc version, so that the runtime finds the
 * entry from what it sees when the application registers its fatbin.
 */
#ifndef COLOC_CACHE_H
#define COLOC_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Bumped whenever the layout of an entry or the key's inputs change, and
 * whenever the passes' launch contract changes (docs/passes.md), so that
 * variants compiled for an older contract are never launched with a newer
 * one's parameters.  2: ptb's park, slot_base and stop parameters.  3: ptb's
 * stop record with a host copy, and a parker that pauses.  4: a stop word
 * above 1 narrows a ptb launch instead of stopping it.  5: variants that
 * lost occupancy to ptxas are compiled with register caps (regcap.h).  6: ptb's
 * batch parameter (workers take several virtual blocks at a time).  7: ptb's
 * meetings in blocks that can be given up start with a warp sync (variants
 * without it let warps reach the barrier split: ptb.c), and the copied stop
 * read waits for its copy.  8: the redo ring's capacity is twice the larger
 * of the launch's workers and its slot_base, the same for a launch and its
 * helpers (a narrowed helper with fewer workers looked for ring entries at
 * other positions), and resumed blocks restore after the pure prefix.  9:
 * the pure prefix's review fixes (a guarded write could leave a loaded value
 * recomputed) and the save area's registers made where they are used.  10:
 * ptb's one-block-a-worker variant (__coloc_fresh_K) next to the looping one,
 * whose parker is now park 1 only (park 2: a launch that only drains the
 * redo ring).  11: the fresh variant takes no block while the redo ring holds
 * one (a launch stopped several times could overfill the ring and hang), and
 * declares the looping variant's shared words (its own dirty word moved the
 * kernel's shared variables, so the blocks it saved were restored wrong).
 * 12: the leader reads the stop word only after the meetings whose next
 * meeting may not read it (ptb.c, unisync.c).  13: register-capped copies at
 * several levels, named __coloc_cap<N>_<form>_K (regcap.h).
 */
#define COLOC_CACHE_FORMAT 13

struct coloc_target {
	unsigned sm;  /* 90 for sm_90a */
	char variant; /* 'a', 'f' or 0 */
};

/* "sm_90", "sm_90a", "sm_100f"; false for anything else (compute_XX included). */
bool coloc_target_parse(const char *s, struct coloc_target *t);

/*
 * The 64 hex digits naming a module's entry.  `options` (the entry's ptxas
 * options, may be NULL) is not NUL-terminated.
 */
void coloc_cache_key(const struct coloc_target *t, const char *options, size_t options_len,
		     const void *ptx, size_t len, char hex[65]);
/*
 * The same, for variants made with pass options (e.g. "ptb-restart"): NULL
 * or "" gives coloc_cache_key's key, so caches made without any stay valid.
 */
void coloc_cache_key_passes(const struct coloc_target *t, const char *options, size_t options_len,
			    const char *pass_options, const void *ptx, size_t len, char hex[65]);

#endif
