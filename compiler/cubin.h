/*
 * Kernels of a cubin: names and parameter layouts from the .nv.info.<kernel>
 * sections, which is what the driver itself uses to launch them.
 *
 * Results live in the caller's arena (names included), so they outlive the
 * cubin's bytes, which are usually a scratch buffer of inflated contents.
 */
#ifndef COLOC_CUBIN_H
#define COLOC_CUBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"

/* .nv.info attributes colocc reads (EIATTR_* in NVIDIA's tools' output). */
enum coloc_eiattr {
	COLOC_EIATTR_MAX_THREADS = 0x05,         /* __launch_bounds__ / .maxntid x, y, z */
	COLOC_EIATTR_REQNTID = 0x10,             /* .reqntid x, y, z */
	COLOC_EIATTR_KPARAM_INFO = 0x17,         /* one parameter: ordinal, offset, size */
	COLOC_EIATTR_CBANK_PARAM_SIZE = 0x19,    /* bytes of parameters */
	COLOC_EIATTR_COOP_GROUP_INSTR_OFFSETS = 0x28, /* grid-wide synchronization sites */
	COLOC_EIATTR_REGCOUNT = 0x2f,            /* in .nv.info: symbol index, registers */
	COLOC_EIATTR_CTA_PER_CLUSTER = 0x3d,     /* __cluster_dims__ x, y, z */
	COLOC_EIATTR_EXPLICIT_CLUSTER = 0x3e,    /* compiled for clusters */
	COLOC_EIATTR_MAX_CLUSTER_RANK = 0x3f,    /* .maxclusterrank */
};

struct coloc_cubin_param {
	uint32_t ordinal;
	uint32_t offset; /* bytes into the parameter buffer */
	uint32_t size;
};

struct coloc_cubin_kernel {
	const char *name; /* mangled */
	struct coloc_cubin_param *params; /* by ordinal */
	unsigned nparams;
	uint32_t param_bytes;   /* EIATTR_CBANK_PARAM_SIZE, or the end of the last parameter */
	uint32_t cluster_dims[3]; /* 0 when the kernel fixes none */
	uint32_t max_cluster_rank;
	bool explicit_cluster;
	bool cooperative;       /* synchronizes the grid: needs a cooperative launch */
	uint32_t max_threads[3]; /* 0 when unbounded */
	uint32_t req_threads[3]; /* .reqntid; 0 when not required */
	uint32_t registers;      /* per thread (EIATTR_REGCOUNT); 0 when the cubin does not say */
};

struct coloc_cubin {
	unsigned sm;          /* from e_flags */
	bool relocatable;     /* ET_REL: -rdc code before the device link */
	struct coloc_cubin_kernel *kernels;
	size_t nkernels;
};

/*
 * Reads the kernels of a cubin (an ELF with e_machine EM_CUDA): every
 * function symbol marked as an entry point, with the attributes of its
 * .nv.info.<name> section.  Returns 0 or a negative errno after a
 * diagnostic; the memory comes from `arena`.
 */
int coloc_cubin_read(struct coloc_cubin *out, struct coloc_arena *arena, const void *data,
		     size_t size, struct coloc_diag *diag);

#endif
