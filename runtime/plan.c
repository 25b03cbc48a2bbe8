/*
 * Slices are rectangles so that one launch with a block offset covers them:
 * a sliced kernel computes blockIdx as offset + %ctaid in each dimension
 * (passes/slice.c).  Cutting the outermost dimension first keeps slices
 * large and contiguous in memory for row-major kernels.
 */
#include "plan.h"

/* Units [first, first + count) of `total` split evenly into `parts`: part i. */
static uint32_t part_begin(uint32_t total, uint64_t parts, uint64_t i)
{
	return (uint32_t)((uint64_t)total * i / parts);
}

/* How many of `parts` go to piece i of k when spread evenly. */
static uint64_t share(uint64_t parts, uint64_t k, uint64_t i)
{
	return (i + 1) * parts / k - i * parts / k;
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

/*
 * Exactly min(wanted, blocks) slices (at least one): as many whole planes as
 * possible; past one slice per plane, each plane's share is cut into rows,
 * and past one per row, each row's share into runs along x.
 */
uint64_t coloc_slice_plan(struct coloc_dim3 grid, uint64_t wanted, struct coloc_slice *out,
			  uint64_t cap)
{
	uint64_t blocks, n = 0, i, j, k;

	if (!grid.x || !grid.y || !grid.z)
		return 0;
	blocks = (uint64_t)grid.x * grid.y * grid.z;
	if (wanted < 1)
		wanted = 1;
	if (wanted > blocks)
		wanted = blocks;
	if (wanted <= grid.z) {
		for (i = 0; i < wanted; i++) {
			uint32_t z0 = part_begin(grid.z, wanted, i), z1 = part_begin(grid.z, wanted, i + 1);

			n = emit(out, cap, n, 0, 0, z0, grid.x, grid.y, z1 - z0);
		}
		return n;
	}
	for (i = 0; i < grid.z; i++) {
		uint64_t plane = share(wanted, grid.z, i);

		if (plane <= grid.y) {
			for (j = 0; j < plane; j++) {
				uint32_t y0 = part_begin(grid.y, plane, j), y1 = part_begin(grid.y, plane, j + 1);

				n = emit(out, cap, n, 0, y0, (uint32_t)i, grid.x, y1 - y0, 1);
			}
			continue;
		}
		for (j = 0; j < grid.y; j++) {
			uint64_t row = share(plane, grid.y, j);

			for (k = 0; k < row; k++) {
				uint32_t x0 = part_begin(grid.x, row, k), x1 = part_begin(grid.x, row, k + 1);

				n = emit(out, cap, n, x0, (uint32_t)j, (uint32_t)i, x1 - x0, 1, 1);
			}
		}
	}
	return n;
}
