/* CUDA C++ to PTX in-process, through NVRTC loaded at run time. */
#ifndef COLOC_NVRTC_H
#define COLOC_NVRTC_H

#include <stddef.h>

#include "buf.h"
#include "diag.h"

struct coloc_nvrtc_opts {
	const char *arch;          /* "sm_90", "sm_90a", "compute_80", ...; NULL: sm_90 */
	const char *const *extra;  /* further NVRTC options (-I, -D, -std=...) */
	unsigned nextra;
	int lineinfo;              /* --generate-line-info */
	int debug;                 /* --device-debug (-G) */
};

/*
 * Compiles `source` (need not be NUL-terminated) to PTX text in `ptx`.
 * Returns 0, or -1 after reporting through `diag`, the compiler log included.
 */
int coloc_nvrtc_compile(const char *source, size_t len, const char *name,
			const struct coloc_nvrtc_opts *opts, struct coloc_buf *ptx,
			struct coloc_diag *diag);

#endif
