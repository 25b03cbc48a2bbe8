/*
 * Launch geometry for transformed kernels, shared by the runtime and the
 * tests: how a grid is cut into slices.
 */
#ifndef COLOC_PLAN_H
#define COLOC_PLAN_H

#include <stdint.h>

struct coloc_dim3 {
	uint32_t x, y, z;
};

struct coloc_slice {
	struct coloc_dim3 offset; /* first block of the slice */
	struct coloc_dim3 grid;   /* blocks in the slice */
};

/*
 * Cuts `grid` into min(wanted, blocks) rectangular slices (at least one),
 * outermost dimension first: z planes, then rows, then runs of blocks along
 * x, spread as evenly as the grid allows.  Every block of the grid lies in
 * exactly one slice.  Returns the number of slices; with `out` non-NULL,
 * writes the first `cap` of them in launch order.
 */
uint64_t coloc_slice_plan(struct coloc_dim3 grid, uint64_t wanted, struct coloc_slice *out,
			  uint64_t cap);

#endif
