/*
 * Slices are rectangles so that one launch with a block offset covers them:
 * a sliced kernel computes blockIdx as offset + %ctaid in each dimension
 * (passes/slice.c).  Cutting the outermost dimension first keeps slices
 * large and contiguous in memory for row-major kernels.
 */
#include "plan.h"

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint64_t emit(struct coloc_slice *out, uint64_t cap, uint64_t n, uint32_t ox, uint32_t oy,
		     uint32_t oz, uint32_t gx, uint32_t gy, uint32_t gz)
{
	if (out && n < cap) {
		out[n].offset.x = ox;
		out[n].offset.y = oy;
		out[n].offset.z = oz;
		out[n].grid.x = gx;
		out[n].grid.y = gy;
		out[n].grid.z = gz;
	}
	return n + 1;
}

uint64_t coloc_slice_plan(struct coloc_dim3 grid, uint64_t wanted, struct coloc_slice *out,
			  uint64_t cap)
{
	uint64_t n = 0, per_plane, per_row;
	uint32_t x, y, z, cx, cy, cz;

	if (!grid.x || !grid.y || !grid.z)
		return 0;
	if (wanted < 1)
		wanted = 1;
	if (wanted <= grid.z) {
		/* Whole planes, cz at a time. */
		cz = (uint32_t)ceil_div(grid.z, wanted);
		for (z = 0; z < grid.z; z += cz)
			n = emit(out, cap, n, 0, 0, z, grid.x, grid.y,
				 grid.z - z < cz ? grid.z - z : cz);
		return n;
	}
	per_plane = ceil_div(wanted, grid.z);
	if (per_plane <= grid.y) {
		/* Whole rows, cy at a time, plane by plane. */
		cy = (uint32_t)ceil_div(grid.y, per_plane);
		for (z = 0; z < grid.z; z++)
			for (y = 0; y < grid.y; y += cy)
				n = emit(out, cap, n, 0, y, z, grid.x,
					 grid.y - y < cy ? grid.y - y : cy, 1);
		return n;
	}
	/* Runs of cx blocks along x, row by row. */
	per_row = ceil_div(per_plane, grid.y);
	cx = (uint32_t)ceil_div(grid.x, per_row < grid.x ? per_row : grid.x);
	for (z = 0; z < grid.z; z++)
		for (y = 0; y < grid.y; y++)
			for (x = 0; x < grid.x; x += cx)
				n = emit(out, cap, n, x, y, z, grid.x - x < cx ? grid.x - x : cx, 1, 1);
	return n;
}
