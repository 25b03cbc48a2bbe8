// Row-wise kernels from inference code (softmax, layer normalisation in
// bf16) and a byte histogram with shared-memory atomics.  The row kernels
// take rows in a grid-stride loop over blockIdx.x, so a block may do several
// rows, each with block-wide reductions (warp shuffles + shared memory +
// barriers).
#include <cuda_bf16.h>

// Block-wide max / sum through warp shuffles and a 32-slot shared array.
// Every thread of the block must call them; blockDim.x a multiple of 32.
__device__ __forceinline__ float block_max(float v, float *red)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    float r = red[0];
    for (int w = 1; w < nw; w++)
        r = fmaxf(r, red[w]);
    __syncthreads();
    return r;
}
__device__ __forceinline__ float block_sum(float v, float *red)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < nw; w++)
        r += red[w];
    __syncthreads();
    return r;
}

// Numerically stable softmax of each row of a rows x cols matrix.
extern "C" __global__ void softmax_rows(float *out, const float *in, int rows, int cols, float scale)
{
    __shared__ float red[32];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const float *x = in + (size_t)r * cols;
        float m = -INFINITY;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            m = fmaxf(m, x[c] * scale);
        m = block_max(m, red);
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            s += __expf(x[c] * scale - m);
        s = block_sum(s, red);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            out[(size_t)r * cols + c] = __expf(x[c] * scale - m) * inv;
    }
}
// CASE: name=softmax_rows_1000x333 kernel=softmax_rows grid=97 block=128
// PARAM: buf f32 333000 zero
// PARAM: buf f32 333000 rand
// PARAM: i32 1000
// PARAM: i32 333
// PARAM: f32 4.0
// CASE: name=softmax_rows_wide kernel=softmax_rows grid=7 block=1024
// PARAM: buf f32 163840 zero
// PARAM: buf f32 163840 rand
// PARAM: i32 10
// PARAM: i32 16384
// PARAM: f32 1.0
// CASE: name=softmax_rows_narrow kernel=softmax_rows grid=3000 block=32
// PARAM: buf f32 12000 zero
// PARAM: buf f32 12000 rand
// PARAM: i32 4000
// PARAM: i32 3
// PARAM: f32 10.0

// LayerNorm of each row in bf16 with float statistics, gamma and beta in
// bf16; also writes the mean and reciprocal standard deviation per row.
// The row is cached in dynamic shared memory (cols floats).
extern "C" __global__ void layernorm_bf16(__nv_bfloat16 *y, float *mean_out, float *rstd_out,
                                          const __nv_bfloat16 *x, const __nv_bfloat16 *gamma,
                                          const __nv_bfloat16 *beta, int rows, int cols, float eps)
{
    __shared__ float red[32];
    extern __shared__ float row[];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const __nv_bfloat16 *xr = x + (size_t)r * cols;
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            float v = __bfloat162float(xr[c]);
            row[c] = v;
            s += v;
        }
        float mean = block_sum(s, red) / (float)cols;
        float q = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            float d = row[c] - mean;
            q += d * d;
        }
        float rstd = rsqrtf(block_sum(q, red) / (float)cols + eps);
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            float v = (row[c] - mean) * rstd;
            __nv_bfloat16 g = gamma[c], b = beta[c];
            y[(size_t)r * cols + c] = __hfma(__float2bfloat16(v), g, b);
        }
        if (threadIdx.x == 0) {
            mean_out[r] = mean;
            rstd_out[r] = rstd;
        }
        __syncthreads(); /* row[] is rewritten by the next row */
    }
}
// CASE: name=layernorm_bf16_500x768 kernel=layernorm_bf16 grid=111 block=256 smem=3072
// PARAM: buf bf16 384000 zero
// PARAM: buf f32 500 zero
// PARAM: buf f32 500 zero
// PARAM: buf bf16 384000 rand
// PARAM: buf bf16 768 rand
// PARAM: buf bf16 768 rand
// PARAM: i32 500
// PARAM: i32 768
// PARAM: f32 1e-5
// CASE: name=layernorm_bf16_odd kernel=layernorm_bf16 grid=13 block=96 smem=4004
// PARAM: buf bf16 100100 zero
// PARAM: buf f32 100 zero
// PARAM: buf f32 100 zero
// PARAM: buf bf16 100100 rand
// PARAM: buf bf16 1001 rand
// PARAM: buf bf16 1001 rand
// PARAM: i32 100
// PARAM: i32 1001
// PARAM: f32 1e-3
// CASE: name=layernorm_bf16_wide_smem kernel=layernorm_bf16 grid=5 block=512 smem=80000
// PARAM: buf bf16 400000 zero
// PARAM: buf f32 20 zero
// PARAM: buf f32 20 zero
// PARAM: buf bf16 400000 rand
// PARAM: buf bf16 20000 rand
// PARAM: buf bf16 20000 rand
// PARAM: i32 20
// PARAM: i32 20000
// PARAM: f32 1e-5

// 256-bin byte histogram: per-block shared bins (shared atomics), then one
// global atomicAdd per non-empty bin.  Threads past the end of the data
// return before the flush barrier.  Each block also counts its own bytes in
// a per-block slot (plain store).
extern "C" __global__ void histogram_smem(unsigned *hist, unsigned *per_block,
                                         const unsigned char *data, int n)
{
    __shared__ unsigned bins[256];
    int t = threadIdx.x;
    int bid = blockIdx.x + gridDim.x * blockIdx.y;
    int chunk = blockDim.x * 16; /* bytes per block */
    int base = bid * chunk;

    for (int b = t; b < 256; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();
    if (base + t >= n)
        return;
    for (int i = base + t; i < min(n, base + chunk); i += blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    for (int b = t; b < 256; b += blockDim.x)
        if (bins[b])
            atomicAdd(&hist[b], bins[b]);
    if (t == 0) {
        unsigned tot = 0;
        for (int b = 0; b < 256; b++)
            tot += bins[b];
        per_block[bid] = tot;
    }
}
// The flush loop steps by blockDim.x from threads that did not return; in a
// partial last block those are the first (n - base) threads, which may be
// fewer than 256: bins b with b % blockDim.x >= n - base are then flushed by
// nobody, deterministically (same set every run).
// CASE: name=histogram_smem_100x256 kernel=histogram_smem grid=100 block=256
// PARAM: buf u32 256 zero
// PARAM: buf u32 100 zero
// PARAM: buf u8 400000 rand
// PARAM: i32 400000
// CASE: name=histogram_smem_skewed kernel=histogram_smem grid=13,11 block=64
// PARAM: buf u32 256 rand
// PARAM: buf u32 143 zero
// PARAM: buf u8 140000 randint:0:7
// PARAM: i32 140000
// CASE: name=histogram_smem_tail kernel=histogram_smem grid=5 block=1024
// PARAM: buf u32 256 zero
// PARAM: buf u32 5 zero
// PARAM: buf u8 65600 rand
// PARAM: i32 65600
