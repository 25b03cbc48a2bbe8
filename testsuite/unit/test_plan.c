/*
 * Slice plans: for many grids and slice counts, every block of the grid
 * lies in exactly one slice, slices are rectangles inside the grid, and
 * there are exactly min(wanted, blocks) of them (at least one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

static int failures;

#define EXPECT(cond, ...)                                        \
	do {                                                     \
		if (!(cond)) {                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                     \
			printf("\n");                            \
			failures++;                              \
			return;                                  \
		}                                                \
	} while (0)

static void check(unsigned gx, unsigned gy, unsigned gz, uint64_t wanted)
{
	struct coloc_dim3 grid = {gx, gy, gz};
	uint64_t blocks = (uint64_t)gx * gy * gz;
	uint64_t n = coloc_slice_plan(grid, wanted, NULL, 0), i;
	struct coloc_slice *plan = calloc(n ? n : 1, sizeof(*plan));
	unsigned char *seen = calloc(blocks, 1);
	uint64_t expect = wanted < 1 ? 1 : wanted < blocks ? wanted : blocks;

	EXPECT(plan && seen, "out of memory");
	EXPECT(coloc_slice_plan(grid, wanted, plan, n) == n, "count changed between calls");
	EXPECT(n == expect,
	       "grid %ux%ux%u, %llu wanted: %llu slices", gx, gy, gz, (unsigned long long)wanted,
	       (unsigned long long)n);
	for (i = 0; i < n; i++) {
		const struct coloc_slice *s = &plan[i];
		unsigned x, y, z;

		EXPECT(s->grid.x && s->grid.y && s->grid.z, "empty slice %llu", (unsigned long long)i);
		EXPECT(s->offset.x + s->grid.x <= gx && s->offset.y + s->grid.y <= gy &&
			       s->offset.z + s->grid.z <= gz,
		       "slice %llu leaves the grid", (unsigned long long)i);
		for (z = 0; z < s->grid.z; z++)
			for (y = 0; y < s->grid.y; y++)
				for (x = 0; x < s->grid.x; x++) {
					uint64_t b = ((uint64_t)(s->offset.z + z) * gy + s->offset.y + y) * gx +
						     s->offset.x + x;

					EXPECT(!seen[b], "block %llu in two slices", (unsigned long long)b);
					seen[b] = 1;
				}
	}
	for (i = 0; i < blocks; i++)
		EXPECT(seen[i], "grid %ux%ux%u, %llu wanted: block %llu in no slice", gx, gy, gz,
		       (unsigned long long)wanted, (unsigned long long)i);
	free(plan);
	free(seen);
}

int main(void)
{
	static const unsigned dims[][3] = {
		{1, 1, 1}, {1000, 1, 1}, {37, 5, 3}, {7, 11, 1}, {2, 3, 13}, {130, 1, 4}, {1, 9, 9},
	};
	static const uint64_t wanted[] = {0, 1, 2, 3, 7, 8, 13, 100, 1000, 1u << 20};
	size_t d, w;

	for (d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
		for (w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++)
			check(dims[d][0], dims[d][1], dims[d][2], wanted[w]);
	{
		struct coloc_dim3 empty = {0, 4, 4};

		if (coloc_slice_plan(empty, 4, NULL, 0) != 0) {
			printf("FAIL: an empty grid has slices\n");
			failures++;
		}
	}
	printf("%s: %d failures\n", __FILE__, failures);
	return failures ? 1 : 0;
}
