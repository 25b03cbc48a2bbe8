// Kernels whose cubin attributes colocc reads: cluster dimensions, a
// cluster-rank bound, launch bounds and grid-wide synchronization.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) clustered(int *p)
{
	cg::cluster_group c = cg::this_cluster();
	p[c.block_rank()] = 1;
	c.sync();
}

__global__ void grid_synced(int *p)
{
	cg::grid_group g = cg::this_grid();
	p[g.thread_rank()] = 1;
	g.sync();
	p[0] = 2;
}

__global__ void __launch_bounds__(256, 1, 4) bounded(int *p) { p[threadIdx.x] = 0; }
