// Long blocks: each block loops many times over barriers before it writes
// anything, as the K loop of a GEMM tile does.  A stop lands inside blocks,
// so the persistent form gives blocks up at a barrier and runs them again
// from their start later (passes/ptb.c); these cases check that what comes
// out is still exactly the original's: a block given up must have left no
// trace, and one that has left a trace (an atomic, a store) must not be
// given up.

// C (M x N) = A (M x K) * B (K x N), row-major, 32 x 32 tiles over a long
// K: 256 threads, each accumulating four outputs in a fixed order (bit for
// bit the same however often a block starts over).
#define LB_TILE 32
extern "C" __global__ void long_tiles(float *C, const float *A, const float *B, int M, int N, int K)
{
    __shared__ float As[LB_TILE][LB_TILE];
    __shared__ float Bs[LB_TILE][LB_TILE + 1];
    int tx = threadIdx.x % LB_TILE, ty = threadIdx.x / LB_TILE; // ty: 0..7
    int row0 = blockIdx.y * LB_TILE, col = blockIdx.x * LB_TILE + tx;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};

    for (int k0 = 0; k0 < K; k0 += LB_TILE) {
        for (int r = ty; r < LB_TILE; r += 8) {
            int row = row0 + r;
            As[r][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
            Bs[r][tx] = k0 + r < K && col < N ? B[(size_t)(k0 + r) * N + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < LB_TILE; k++)
            for (int i = 0; i < 4; i++)
                acc[i] = fmaf(As[ty + 8 * i][k], Bs[k][tx], acc[i]);
        __syncthreads();
    }
    for (int i = 0; i < 4; i++) {
        int row = row0 + ty + 8 * i;
        if (row < M && col < N)
            C[(size_t)row * N + col] = acc[i];
    }
}
// CASE: name=long_tiles_256x256x8192 kernel=long_tiles grid=8,8 block=256
// PARAM: buf f32 65536 zero
// PARAM: buf f32 2097152 rand
// PARAM: buf f32 2097152 rand
// PARAM: i32 256
// PARAM: i32 256
// PARAM: i32 8192
// CASE: name=long_tiles_ragged kernel=long_tiles grid=7,5 block=256
// PARAM: buf f32 31500 rand
// PARAM: buf f32 600000 rand
// PARAM: buf f32 840000 rand
// PARAM: i32 150
// PARAM: i32 210
// PARAM: i32 4000

// A block counts itself first (thread 0, an atomic), then runs a long loop
// of barriers, then writes its result.  The count is a trace: a block that
// is given up after it and run again would count 2, which the comparison
// with the original (1 everywhere) shows.
extern "C" __global__ void long_counted(unsigned *counts, float *out, const float *in, int rounds)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    float v = in[blockIdx.x * blockDim.x + t];

    if (t == 0)
        atomicAdd(&counts[blockIdx.x], 1u);
    for (int r = 0; r < rounds; r++) {
        buf[t] = v;
        __syncthreads();
        v = fmaf(buf[(t + 1) % blockDim.x], 0.5f, v * 0.25f);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = v;
}
// CASE: name=long_counted_600 kernel=long_counted grid=600 block=256
// PARAM: buf u32 600 zero
// PARAM: buf f32 153600 zero
// PARAM: buf f32 153600 rand
// PARAM: i32 3000

// In place: every thread reads its element, loops over barriers, and
// writes the element back changed.  A block run again from its start must
// read the element as it was, so the block may be given up only before its
// store.  Threads of the last block past the end return early (unisync
// keeps them at the barriers).
extern "C" __global__ void long_inplace(float *x, int n, int rounds)
{
    __shared__ float buf[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    float v;

    if (i >= n)
        return;
    v = x[i];
    for (int r = 0; r < rounds; r++) {
        buf[t] = v;
        __syncthreads();
        v = v * 0.75f + buf[t ^ 1] * 0.25f;
        __syncthreads();
    }
    x[i] = v + 1.0f;
}
// CASE: name=long_inplace_1000x128 kernel=long_inplace grid=1000 block=128
// PARAM: buf f32 127900 rand
// PARAM: i32 127900
// PARAM: i32 2000

// Copies through cp.async, two tiles in flight: the next tile's copy is
// still on its way while the block waits at the first barrier, where a
// stop can give the block up; its copies must land before the worker's
// shared memory serves another block.
extern "C" __global__ void long_async_sum(float *out, const float *in, int tiles)
{
    __shared__ __align__(16) float buf[2][256];
    int t = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * tiles * 256;
    float acc = 0.0f;

    {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&buf[0][t]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src + t));
        asm volatile("cp.async.commit_group;\n" ::);
    }
    for (int k = 0; k < tiles; k++) {
        if (k + 1 < tiles) {
            unsigned dst = (unsigned)__cvta_generic_to_shared(&buf[(k + 1) & 1][t]);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst),
                         "l"(src + (size_t)(k + 1) * 256 + t));
        }
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_group 1;\n" ::);
        __syncthreads();
        acc = fmaf(buf[k & 1][(t + 7) & 255], 0.5f, acc);
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = acc;
}
// CASE: name=long_async_sum_300 kernel=long_async_sum grid=300 block=256
// PARAM: buf f32 76800 zero
// PARAM: buf f32 15360000 rand
// PARAM: i32 200
