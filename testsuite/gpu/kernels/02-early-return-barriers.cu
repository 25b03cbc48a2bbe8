// Early returns mixed with __syncthreads().  In the original kernel a thread
// that returns has exited, and a barrier only waits for the threads still
// alive.  In the persistent form a returned thread goes back to fetch the
// next block instead, so unisync must route every return and every barrier
// through one reduction barrier; these kernels return at many different
// points (before a barrier, between barriers, inside barrier loops, whole
// warps, parts of warps, whole blocks) and check the data still flows as in
// the original.
//
// Every value a thread reads from shared memory was written by a thread that
// was alive when it wrote, before a barrier that the reader passed after it,
// so the results never depend on timing.

// Bounds check, then one barrier: a block-local reversal of the live part of
// the tile.  The last block is partial.
extern "C" __global__ void er_tile_reverse(float *out, const float *in, int n)
{
    __shared__ float tile[1024];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int gid = base + t;

    if (gid >= n)
        return;
    tile[t] = in[gid];
    __syncthreads();
    int live = min((int)blockDim.x, n - base);
    out[gid] = tile[live - 1 - t] * 2.0f + tile[t];
}
// CASE: name=er_tile_reverse_tail kernel=er_tile_reverse grid=40 block=256
// PARAM: buf f32 10000 zero
// PARAM: buf f32 10000 rand
// PARAM: i32 10000
// CASE: name=er_tile_reverse_many_idle kernel=er_tile_reverse grid=4000 block=64
// PARAM: buf f32 1000 zero
// PARAM: buf f32 1000 rand
// PARAM: i32 1000
// CASE: name=er_tile_reverse_1024 kernel=er_tile_reverse grid=3 block=1024
// PARAM: buf f32 2500 zero
// PARAM: buf f32 2500 rand
// PARAM: i32 2500

// A loop with two barriers per iteration.  Threads past the end return
// before the loop; every other thread returns inside the loop at an
// iteration of its own (after the second barrier), or runs to the end.
// Slots of threads that left keep their last value, which the neighbours go
// on reading.
extern "C" __global__ void er_loop_two_barriers(unsigned *data, int n, int iters)
{
    __shared__ unsigned s[1024];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int gid = base + t;

    if (gid >= n)
        return;
    int live = min((int)blockDim.x, n - base);
    int quit = (t * 7 + blockIdx.x * 3) % (iters + 4); /* >= iters: stays to the end */
    unsigned v = data[gid];
    for (int it = 0; it < iters; it++) {
        s[t] = v;
        __syncthreads();
        unsigned right = s[(t + 1) % live], left = s[(t + live - 1) % live];
        v = v * 2654435761u + (right ^ (left >> 3)) + (unsigned)it;
        __syncthreads();
        if (it == quit) {
            data[gid] = v ^ 0x80000000u;
            return;
        }
    }
    data[gid] = v;
}
// CASE: name=er_loop_two_barriers_128 kernel=er_loop_two_barriers grid=23 block=128
// PARAM: buf u32 2900 rand
// PARAM: i32 2900
// PARAM: i32 9
// CASE: name=er_loop_two_barriers_odd_block kernel=er_loop_two_barriers grid=101 block=99
// PARAM: buf u32 9900 rand
// PARAM: i32 9900
// PARAM: i32 17
// CASE: name=er_loop_two_barriers_1024 kernel=er_loop_two_barriers grid=2 block=1024
// PARAM: buf u32 1500 rand
// PARAM: i32 1500
// PARAM: i32 40

// Whole-warp and partial-warp returns at three different points, each
// followed by more barriers.  alive(k, t) tells whether thread t is still
// there in phase k; threads only read slots whose owners were alive when the
// slot was last written.
__device__ __forceinline__ bool alive1(int t)
{
    int w = t >> 5, l = t & 31;
    /* warps 1 and 6 leave at once; odd lanes of warp 0; lanes >= 20 of warp 3 */
    return !(w == 1 || w == 6 || (w == 0 && (l & 1)) || (w == 3 && l >= 20));
}
__device__ __forceinline__ bool alive2(int t)
{
    return alive1(t) && (t % 5 != 2) && (t >> 5) != 4; /* warp 4 leaves after the first barrier */
}
__device__ __forceinline__ bool alive3(int t)
{
    return alive2(t) && (t & 3) != 1;
}

extern "C" __global__ void er_warp_returns(unsigned *out, const unsigned *in)
{
    __shared__ unsigned a[1024], b[1024];
    int t = threadIdx.x, nt = blockDim.x;
    size_t gid = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * nt + t;

    if (!alive1(t))
        return;
    a[t] = in[gid];
    __syncthreads();
    /* phase 2: sum of the phase-1 values of the next 4 live threads */
    unsigned acc = 0;
    for (int k = 1, seen = 0; k < nt && seen < 4; k++) {
        int u = (t + k) % nt;
        if (alive1(u)) {
            acc += a[u] * (unsigned)k;
            seen++;
        }
    }
    if (!alive2(t)) {
        out[gid] = acc | 1u;
        return;
    }
    b[t] = acc;
    __syncthreads();
    unsigned m = 0;
    for (int u = t & 31; u < nt; u += 32)
        if (alive2(u))
            m = max(m, b[u]);
    __syncthreads();
    if (!alive3(t)) {
        out[gid] = m;
        return;
    }
    a[t] = m ^ acc;
    __syncthreads();
    out[gid] = a[t] + a[(t & ~3)] * 3u; /* t & ~3 has (t&3)==0, alive3 if alive2 */
}
// Slot t & ~3 is alive in phase 3 exactly when t is alive in phase 1 and
// t & ~3 is not a multiple-of-5-plus-2 thread; if it left in phase 2, its
// slot still holds its phase-1 value, written before the first barrier.
// CASE: name=er_warp_returns_256 kernel=er_warp_returns grid=17 block=256
// PARAM: buf u32 4352 zero
// PARAM: buf u32 4352 rand
// CASE: name=er_warp_returns_1024 kernel=er_warp_returns grid=3 block=1024
// PARAM: buf u32 3072 zero
// PARAM: buf u32 3072 rand
// CASE: name=er_warp_returns_224 kernel=er_warp_returns grid=40,3 block=224
// PARAM: buf u32 26880 zero
// PARAM: buf u32 26880 rand

// Whole blocks return before any barrier (every third block), the others
// run a shared-memory tree reduction whose loop has a barrier per step; the
// threads past the end of the input return first.
extern "C" __global__ void er_block_return_tree(float *out, const float *in, int n)
{
    __shared__ float s[512];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;

    if (blockIdx.x % 3 == 1) {
        if (t == 0)
            out[blockIdx.x] = -1.0f;
        return;
    }
    if (base + t >= n)
        return;
    int live = min((int)blockDim.x, n - base);
    s[t] = in[base + t];
    __syncthreads();
    for (int h = 1; h < live; h *= 2) {
        float x = s[t];
        if ((t % (2 * h)) == 0 && t + h < live)
            x += s[t + h];
        __syncthreads();
        s[t] = x;
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
// CASE: name=er_block_return_tree_512 kernel=er_block_return_tree grid=30 block=512
// PARAM: buf f32 30 zero
// PARAM: buf f32 15000 rand
// PARAM: i32 15000
// CASE: name=er_block_return_tree_96 kernel=er_block_return_tree grid=1000 block=96
// PARAM: buf f32 1000 zero
// PARAM: buf f32 95000 rand
// PARAM: i32 95000

// Barriers inside a nested loop; a thread may return at the top of any
// outer iteration (before the inner barriers) or after the inner loop.
extern "C" __global__ void er_nested_loops(float *out, const float *in, int n, int outer, int inner)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int bid = blockIdx.y * gridDim.x + blockIdx.x;
    int gid = bid * blockDim.x + t;
    float v = gid < n ? in[gid] : 0.0f;
    int leave_at = (t * 13 + bid) % (outer + 2);

    s[t] = v;
    __syncthreads();
    for (int o = 0; o < outer; o++) {
        if (o == leave_at && (t & 1)) {
            if (gid < n)
                out[gid] = v;
            return;
        }
        for (int i = 0; i < inner; i++) {
            float nb = s[(t + 1 + i) % blockDim.x];
            __syncthreads();
            v = v * 0.5f + nb * 0.25f + (float)(o - i);
            s[t] = v;
            __syncthreads();
        }
        if (o == leave_at) {
            if (gid < n)
                out[gid] = -v;
            return;
        }
    }
    if (gid < n)
        out[gid] = v;
}
// CASE: name=er_nested_loops_64 kernel=er_nested_loops grid=50 block=64
// PARAM: buf f32 3150 zero
// PARAM: buf f32 3150 rand
// PARAM: i32 3150
// PARAM: i32 6
// PARAM: i32 3
// CASE: name=er_nested_loops_256 kernel=er_nested_loops grid=9,2 block=256
// PARAM: buf f32 2304 zero
// PARAM: buf f32 2304 rand
// PARAM: i32 2000
// PARAM: i32 4
// PARAM: i32 5

// A return placed before the barrier inside the loop (the thread stops
// arriving), and a return after the last barrier by half the threads while
// the other half does more work without barriers.
extern "C" __global__ void er_return_before_barrier(unsigned *out, const unsigned *in, int n,
                                                    int steps)
{
    __shared__ unsigned s[512];
    int t = threadIdx.x;
    int gid = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + t;
    unsigned v = gid < n ? in[gid] & 0xffffu : 0u;
    int stop = (t * 5 + 3) % (steps + 3); /* >= steps: never leaves in the loop */

    s[t] = v;
    for (int k = 0; k < steps; k++) {
        if (k == stop) {
            if (gid < n)
                out[gid] = v - 7u;
            return;
        }
        __syncthreads();
        /* the owner of s[t ^ 1] may have left: its slot keeps its last value */
        v += s[t ^ 1] >> 1;
        __syncthreads();
        s[t] = v;
    }
    __syncthreads();
    if (t & 2)
        return;
    for (int k = 0; k < 8; k++)
        v = v * 3u + (unsigned)(k ^ t);
    if (gid < n)
        out[gid] = v;
}
// s[t ^ 1] is written after the second barrier of a step and read after the
// first barrier of the next one, so every read sees the partner's last write
// (its value from the step before it left, if it left).
// CASE: name=er_return_before_barrier_128 kernel=er_return_before_barrier grid=25 block=128
// PARAM: buf u32 3100 zero
// PARAM: buf u32 3100 rand
// PARAM: i32 3100
// PARAM: i32 7
// CASE: name=er_return_before_barrier_512 kernel=er_return_before_barrier grid=7,3 block=512
// PARAM: buf u32 10752 zero
// PARAM: buf u32 10752 rand
// PARAM: i32 10752
// PARAM: i32 12

// Returns written in PTX: a predicated "exit" and a predicated "ret", each
// inside a nested { } scope as inline asm leaves them (nvcc itself only emits
// plain ret after a branch).  The passes must rewrite both forms, nested
// scope included, into branches to their common return path.  The shared
// words the survivors read were all written before the first barrier, or
// belong to threads known to be alive.
extern "C" __global__ void er_asm_exit(unsigned *out, const unsigned *in, int n)
{
    __shared__ unsigned a[1024], b[1024];
    int t = threadIdx.x, nt = blockDim.x;
    int gid = blockIdx.x * nt + t;

    a[t] = gid < n ? in[gid] : 0u;
    __syncthreads();
    /* threads with t % 7 == 3 leave here */
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %0, 3;\n\t@p exit;\n\t}" ::"r"((unsigned)t % 7u)
                 : "memory");
    unsigned v = a[t] + a[(t + 1) % nt] * 3u;
    b[t] = v;
    __syncthreads();
    int u = (t + 2) % nt;
    unsigned w = (u % 7 == 3) ? 0u : b[u];
    /* threads past the end leave here */
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ge.s32 q, %0, %1;\n\t@q ret;\n\t}" ::"r"(gid), "r"(n)
                 : "memory");
    __syncthreads();
    out[gid] = v ^ w;
}
// CASE: name=er_asm_exit_128 kernel=er_asm_exit grid=30 block=128
// PARAM: buf u32 3840 zero
// PARAM: buf u32 3840 rand
// PARAM: i32 3800
// CASE: name=er_asm_exit_1000 kernel=er_asm_exit grid=3 block=1000
// PARAM: buf u32 3000 zero
// PARAM: buf u32 3000 rand
// PARAM: i32 2222
