/*
 * The exported wrappers, one per hooks.def line.  Each finds the driver's
 * function, forwards when colocc is off or the call comes from colocc
 * itself, and otherwise hands the call to its handler.  Programs linked
 * against libcuda reach these through LD_PRELOAD; programs that look entry
 * points up reach them through interpose.c.
 */
#include "coloc.h"
#include "scheduler.h"

/* The wrapper's body, as function `name` for the slot of `sym`. */
#define HOOK_BODY(name, sym, params, args)                                      \
	CUresult name params                                                    \
	{                                                                       \
		sym##_fn real = COLOC_CAST(sym##_fn, coloc_real(SLOT_##sym));   \
		CUresult rc;                                                    \
                                                                                \
		if (!real)                                                      \
			return CUDA_ERROR_NOT_INITIALIZED;                      \
		if (coloc_bypass())                                             \
			return real args;                                       \
		coloc_enter();                                                  \
		rc = hook_##sym(real, COLOC_UNPAREN args);                      \
		coloc_leave();                                                  \
		return rc;                                                      \
	}
#define HOOK(sym, api, since, flavor, params, args) \
	COLOC_EXPORT CUresult sym params;           \
	HOOK_BODY(sym, sym, params, args)
/*
 * A latency tenant's launch, in the common case (scheduler.h): its marks
 * around the driver's call, and nothing else, here in the wrapper; anything
 * else (the first launch, another role, a capture open, a call from
 * colocc, a launch without its configuration) goes the general way,
 * HOOK's.  It is the one call on a latency
 * tenant's hot path, and issue 4 allows it 1% of a launch-bound loop, some
 * 30 ns of a 3 us launch (docs/results.md).
 */
#define LAUNCH(sym, api, since, flavor, params, args, valid)                          \
	static __attribute__((noinline)) HOOK_BODY(general_##sym, sym, params, args)   \
	COLOC_EXPORT CUresult sym params;                                              \
	CUresult sym params                                                            \
	{                                                                              \
		struct coloc_tenant *t =                                               \
			__atomic_load_n(&coloc_latency_hot.self, __ATOMIC_ACQUIRE);    \
		struct coloc_tls *me = &coloc_tls;                                     \
		sym##_fn real = COLOC_CAST(                                            \
			sym##_fn,                                                      \
			__atomic_load_n(&coloc_real_slots[SLOT_##sym], __ATOMIC_ACQUIRE)); \
		CUresult rc;                                                           \
                                                                                       \
		if (__builtin_expect(!t || !real || me->depth || me->lane <= 0 ||      \
				     coloc_graph_capture_open() || !(valid), 0))       \
			return general_##sym args;                                     \
		coloc_latency_hot_begin(t, me->lane - 1);                              \
		rc = real args;                                                        \
		if (rc == CUDA_SUCCESS)                                                \
			coloc_latency_hot_end(t);                                      \
		if (__builtin_expect(me->edge_held != NULL, 0))                        \
			coloc_sched_latency_edge_release();                            \
		return rc;                                                             \
	}
#define DRIVER(sym, params)
#include "hooks.def"
#undef HOOK
#undef LAUNCH
#undef DRIVER

const struct coloc_slot_info coloc_slots[SLOT_COUNT] = {
#define HOOK(sym, api, since, flavor, params, args) \
	[SLOT_##sym] = { #sym, #api, since, flavor, COLOC_CAST(void *, sym) },
#define DRIVER(sym, params) [SLOT_##sym] = { #sym, #sym, 0, STREAM_NONE, NULL },
#include "hooks.def"
#undef HOOK
#undef DRIVER
};

/*
 * What REAL() gives for a driver function the driver does not have: a
 * function of the same type that fails, so that colocc's own calls fall
 * back instead of jumping to address zero.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define HOOK(sym, api, since, flavor, params, args) \
	static CUresult missing_##sym params { return CUDA_ERROR_NOT_SUPPORTED; }
#define DRIVER(sym, params) \
	static CUresult missing_##sym params { return CUDA_ERROR_NOT_SUPPORTED; }
#include "hooks.def"
#undef HOOK
#undef DRIVER
#pragma GCC diagnostic pop

void *const coloc_missing[SLOT_COUNT] = {
#define HOOK(sym, api, since, flavor, params, args) [SLOT_##sym] = COLOC_CAST(void *, missing_##sym),
#define DRIVER(sym, params) [SLOT_##sym] = COLOC_CAST(void *, missing_##sym),
#include "hooks.def"
#undef HOOK
#undef DRIVER
};
