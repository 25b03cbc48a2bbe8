// Warp-level primitives: the four shuffles, votes, match, redux, activemask
// and __syncwarp, with full warps, partial last warps (blocks that are not a
// multiple of 32) and lanes that returned early.  In the persistent form a
// returned lane is parked at the worker's loop-head barrier, not exited, so
// the masks the kernel computes must still describe the lanes that take part.

__device__ __forceinline__ unsigned lanes_of_my_warp(void)
{
    /* lanes that exist in this warp (the last warp of a block may be partial) */
    unsigned first = threadIdx.x & ~31u;
    unsigned n = min(32u, blockDim.x - first);
    return n == 32 ? 0xffffffffu : (1u << n) - 1u;
}

// All four __shfl*_sync forms, full width and with width 8 / 16, over the
// lanes that exist.  Inputs past n read as 0 so that every lane takes part.
extern "C" __global__ void wp_shfl_forms(unsigned *out, const unsigned *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned m = lanes_of_my_warp();
    unsigned v = i < n ? in[i] : 0u;
    int src = (lane * 5 + 3) & 31; /* may name a lane that does not exist */

    unsigned idx = __shfl_sync(m, v, src);
    unsigned bcast = __shfl_sync(m, v, 0);
    unsigned scan = v; /* inclusive prefix sum within groups of 16 */
    for (int o = 1; o < 16; o <<= 1) {
        unsigned up = __shfl_up_sync(m, scan, o, 16);
        if ((lane & 15) >= o)
            scan += up;
    }
    unsigned down = v;
    for (int o = 4; o > 0; o >>= 1)
        down += __shfl_down_sync(m, down, o, 8);
    unsigned bfly = v;
    for (int o = 16; o > 0; o >>= 1)
        bfly ^= __shfl_xor_sync(m, bfly, o) * 3u;
    if (i < n) {
        /* a source lane outside m gives an undefined value: keep only defined ones */
        out[4 * i + 0] = (m >> src) & 1 ? idx : 0xffffffffu;
        out[4 * i + 1] = bcast + scan;
        out[4 * i + 2] = m == 0xffffffffu ? down : 0u;
        out[4 * i + 3] = m == 0xffffffffu ? bfly : v;
    }
}
// CASE: name=wp_shfl_forms_128 kernel=wp_shfl_forms grid=40 block=128
// PARAM: buf u32 20000 zero
// PARAM: buf u32 5000 rand
// PARAM: i32 5000
// CASE: name=wp_shfl_forms_partial_warp kernel=wp_shfl_forms grid=21,1 block=48
// PARAM: buf u32 4000 zero
// PARAM: buf u32 1000 rand
// PARAM: i32 1000
// CASE: name=wp_shfl_forms_100 kernel=wp_shfl_forms grid=3000 block=100
// PARAM: buf u32 1200000 zero
// PARAM: buf u32 300000 rand
// PARAM: i32 300000

// Votes: ballot, any, all and activemask on data-dependent predicates, in
// converged code and inside a divergent branch after __syncwarp.
extern "C" __global__ void wp_vote(unsigned *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned m = lanes_of_my_warp();
    float x = i < n ? in[i] : 0.0f;

    unsigned pos = __ballot_sync(m, x > 0.0f);
    int any_big = __any_sync(m, x > 0.9f);
    int all_small = __all_sync(m, fabsf(x) < 0.99f);
    unsigned act = __activemask();
    unsigned r = pos ^ ((unsigned)any_big << 1) ^ ((unsigned)all_small << 2);
    /* lanes that do not exist can never be active */
    r ^= (act & ~m) ? 0xdead0000u : 0u;
    if (pos & (1u << lane)) {
        unsigned sub = pos & m;
        __syncwarp(sub);
        unsigned big = __ballot_sync(sub, x > 0.5f);
        r += big * 7u;
        unsigned a2 = __activemask();
        r ^= (a2 & ~sub) ? 0xbeef0000u : 0u; /* a lane outside the branch is never active here */
        __syncwarp(sub);
    }
    if (i < n)
        out[i] = r;
}
// CASE: name=wp_vote_256 kernel=wp_vote grid=100 block=256
// PARAM: buf u32 25600 zero
// PARAM: buf f32 25600 rand
// PARAM: i32 25600
// CASE: name=wp_vote_partial kernel=wp_vote grid=31 block=77
// PARAM: buf u32 2387 zero
// PARAM: buf f32 2387 rand
// PARAM: i32 2300

// __match_any_sync / __match_all_sync on small keys, and the __reduce_*_sync
// family (redux.sync), writing per-warp results through shared memory
// with __syncwarp between the write and the read.
extern "C" __global__ void wp_match_reduce(unsigned *out, const unsigned *keys, int n)
{
    __shared__ unsigned scratch[32][33];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned m = lanes_of_my_warp();
    unsigned k = i < n ? keys[i] : 0u;

    unsigned peers = __match_any_sync(m, k & 7u);
    int all_pred;
    unsigned all_mask = __match_all_sync(m, k >> 31, &all_pred);
    unsigned sum = __reduce_add_sync(m, k & 0xffffu);
    unsigned mn = __reduce_min_sync(m, k);
    unsigned mx = __reduce_max_sync(m, k);
    int smn = __reduce_min_sync(m, (int)k);
    unsigned an = __reduce_and_sync(m, k | 0x0000ffffu);
    unsigned orr = __reduce_or_sync(m, k & 0x0f0f0f0fu);
    unsigned xr = __reduce_xor_sync(m, k);

    scratch[warp][lane] = peers ^ sum;
    __syncwarp(m);
    unsigned neighbour = scratch[warp][(lane + 1) & 31];
    if (!((m >> ((lane + 1) & 31)) & 1))
        neighbour = 0;
    __syncwarp(m);
    scratch[warp][lane] = mn + mx;
    __syncwarp(m);
    unsigned back = scratch[warp][lane ^ 1];
    if (!((m >> (lane ^ 1)) & 1))
        back = 0;
    if (i < n) {
        out[4 * i + 0] = peers;
        out[4 * i + 1] = (all_pred ? all_mask : 0x5a5a5a5au) ^ neighbour;
        out[4 * i + 2] = sum ^ back ^ (unsigned)smn;
        out[4 * i + 3] = an ^ orr ^ xr;
    }
}
// CASE: name=wp_match_reduce_small_keys kernel=wp_match_reduce grid=50 block=128
// PARAM: buf u32 25600 zero
// PARAM: buf u32 6400 randint:0:40
// PARAM: i32 6400
// CASE: name=wp_match_reduce_rand_keys kernel=wp_match_reduce grid=9 block=1024
// PARAM: buf u32 36864 zero
// PARAM: buf u32 9216 rand
// PARAM: i32 9000
// CASE: name=wp_match_reduce_partial kernel=wp_match_reduce grid=26 block=40
// PARAM: buf u32 4160 zero
// PARAM: buf u32 1040 randint:0:3
// PARAM: i32 1040

// Lanes leave early on a data-dependent test; the others compact their
// values within the warp (ballot of the survivors, shuffles under that mask,
// lane-mask-lt ranks), then meet the rest of the block at __syncthreads.
extern "C" __global__ void wp_partial_return(unsigned *out, int *counts, const unsigned *in, int n)
{
    __shared__ int per_warp[32];
    int bid = blockIdx.x + gridDim.x * blockIdx.y;
    int i = bid * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned m = lanes_of_my_warp();
    unsigned v = i < n ? in[i] : 0u;
    bool keep = i < n && (v & 3u) != 0;

    if (threadIdx.x < 32)
        per_warp[threadIdx.x] = 0;
    __syncthreads();
    unsigned kept = __ballot_sync(m, keep);
    if (!keep)
        return;
    unsigned lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    int rank = __popc(kept & lt);
    int leader = __ffs(kept) - 1;
    unsigned first = __shfl_sync(kept, v, leader);
    unsigned prev = __shfl_up_sync(kept, v, 1); /* defined only when lane - 1 is kept */
    if (lane == 0 || !((kept >> (lane - 1)) & 1))
        prev = 0;
    __syncwarp(kept);
    out[bid * blockDim.x + warp * 32 + rank] = v - first + (prev >> 4);
    if (lane == leader)
        per_warp[warp] = __popc(kept);
    __syncthreads();
    if (warp == 0 && lane == leader) {
        int tot = 0;
        for (int w = 0; w < (int)((blockDim.x + 31) / 32); w++)
            tot += per_warp[w];
        counts[bid] = tot;
    }
}
// CASE: name=wp_partial_return_128 kernel=wp_partial_return grid=60 block=128
// PARAM: buf u32 7680 zero
// PARAM: buf i32 60 const:-1
// PARAM: buf u32 7680 rand
// PARAM: i32 7600
// CASE: name=wp_partial_return_sparse kernel=wp_partial_return grid=11,7 block=96
// PARAM: buf u32 7392 zero
// PARAM: buf i32 77 const:-1
// PARAM: buf u32 7392 randint:0:4
// PARAM: i32 7392
