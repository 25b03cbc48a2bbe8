/*
 * The exported wrappers, one per hooks.def line.  Each finds the driver's
 * function, forwards when colocc is off or the call comes from colocc
 * itself, and otherwise hands the call to its handler.  Programs linked
 * against libcuda reach these through LD_PRELOAD; programs that look entry
 * points up reach them through interpose.c.
 */
#include "coloc.h"

#define HOOK(sym, api, since, flavor, params, args)                             \
	COLOC_EXPORT CUresult sym params;                                       \
	CUresult sym params                                                     \
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
#define DRIVER(sym, params)
#include "hooks.def"
#undef HOOK
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
