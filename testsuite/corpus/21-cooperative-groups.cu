// RUN: %corpus-check %s
// 21-cooperative-groups.cu
// PTX features meant to be emitted:
//   - cooperative_groups thread_block / thread_block_tile<32,16,4> /
//     coalesced_group: shfl.sync with computed masks, bar.sync,
//     bar.warp.sync, activemask, vote.sync.ballot, match (labeled_partition)
//   - cg::reduce (redux.sync on sm_80+ for integer plus/less/bit_and, shuffle
//     trees for floats), cg::inclusive_scan / exclusive_scan
//   - grid_group::sync(): the grid-wide barrier sequence (grid workspace
//     pointer read from %envreg1/%envreg2, ld.acquire.gpu /
//     atom.add.release.gpu spin loop)
//   - multi-stage warp/block reductions mixing shared memory and tiles
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_75

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

__global__ void tiles_and_reduce(const int *in, const float *fin, int *out, float *fout)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
    int t = block.thread_rank();
    int v = in[t];
    float f = fin[t];
    int s32 = cg::reduce(warp, v, cg::plus<int>());
    int m16 = cg::reduce(half, v, cg::less<int>());
    unsigned a4 = cg::reduce(quad, (unsigned)v, cg::bit_and<unsigned>());
    float fs = cg::reduce(warp, f, cg::plus<float>());
    float fm = cg::reduce(half, f, cg::greater<float>());
    int scan = cg::inclusive_scan(warp, v);
    int escan = cg::exclusive_scan(half, v, cg::bit_xor<int>());
    out[t * 5 + 0] = s32;
    out[t * 5 + 1] = m16;
    out[t * 5 + 2] = (int)a4;
    out[t * 5 + 3] = scan;
    out[t * 5 + 4] = escan + warp.shfl(v, 0) + quad.shfl_down(v, 1) + half.shfl_xor(v, 2);
    fout[t] = fs + fm + (float)warp.ballot(v > 0) + (float)half.any(v < 0) +
              (float)quad.all(v != 3);
    block.sync();
    warp.sync();
}

__global__ void coalesced(const int *in, int *out)
{
    int t = threadIdx.x;
    if (in[t] & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        int leader = active.shfl(t, 0);
        int total = cg::reduce(active, in[t], cg::plus<int>());
        out[t] = leader + total + (int)active.thread_rank() + (int)active.num_threads();
        cg::coalesced_group same = cg::labeled_partition(active, in[t] >> 4);
        out[t + 1024] = (int)same.size() + same.shfl(in[t], 0);
    }
}

// Grid-wide synchronisation (needs a cooperative launch at run time).
__global__ void grid_sync_kernel(float *data, int n, float *partial)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float sm[32];
    float acc = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        acc += data[i];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    acc = cg::reduce(warp, acc, cg::plus<float>());
    if (warp.thread_rank() == 0)
        sm[warp.meta_group_rank()] = acc;
    block.sync();
    if (block.thread_rank() == 0) {
        float s = 0.0f;
        for (unsigned w = 0; w < warp.meta_group_size(); w++)
            s += sm[w];
        partial[grid.block_rank()] = s;
    }
    grid.sync();
    if (grid.thread_rank() == 0) {
        float s = 0.0f;
        for (unsigned b = 0; b < grid.num_blocks(); b++)
            s += partial[b];
        data[0] = s;
    }
    grid.sync();
}
