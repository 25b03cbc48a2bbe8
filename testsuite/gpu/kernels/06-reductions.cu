// Reductions across the grid without waiting on other blocks: the "last
// block done" pattern (each block writes its partial, fences, takes a ticket;
// the block that takes the last ticket sums all partials in a fixed order),
// and per-block results combined with integer atomics.  Both results are
// independent of the order in which blocks run, so they must come out
// bit for bit the same from the sliced and persistent forms, where the last
// block may be any virtual block.

// Block-wide float sum in shared memory (fixed order), blockDim.x a power of
// two, at most 1024.
__device__ __forceinline__ float block_sum_f32(float v, float *s)
{
    int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h)
            s[t] += s[t + h];
        __syncthreads();
    }
    float r = s[0];
    __syncthreads();
    return r;
}

// Float sum of the input by grid-stride loop, block tree, and last block.
// The grid may be 2-D; the ticket counter is reset by the last block.
extern "C" __global__ void red_last_block_f32(float *partials, unsigned *ticket, float *result,
                                              const float *in, int n)
{
    __shared__ float s[1024];
    __shared__ bool am_last;
    unsigned nblocks = gridDim.x * gridDim.y;
    unsigned bid = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned stride = nblocks * blockDim.x;
    float v = 0.0f;

    for (unsigned i = bid * blockDim.x + threadIdx.x; i < (unsigned)n; i += stride)
        v += in[i];
    float bsum = block_sum_f32(v, s);
    if (threadIdx.x == 0) {
        partials[bid] = bsum;
        __threadfence();
        unsigned tk = atomicAdd(ticket, 1u);
        am_last = (tk == nblocks - 1);
    }
    __syncthreads();
    if (!am_last)
        return;
    float w = 0.0f;
    for (unsigned j = threadIdx.x; j < nblocks; j += blockDim.x)
        w += __ldcg(&partials[j]);
    float total = block_sum_f32(w, s);
    if (threadIdx.x == 0) {
        result[0] = total;
        result[1] = (float)nblocks;
        *ticket = 0;
    }
}
// CASE: name=red_last_block_f32_37 kernel=red_last_block_f32 grid=37 block=128
// PARAM: buf f32 37 zero
// PARAM: buf u32 1 zero
// PARAM: buf f32 2 zero
// PARAM: buf f32 100003 rand
// PARAM: i32 100003
// CASE: name=red_last_block_f32_16x16 kernel=red_last_block_f32 grid=16,16 block=256
// PARAM: buf f32 256 zero
// PARAM: buf u32 1 zero
// PARAM: buf f32 2 zero
// PARAM: buf f32 500000 rand
// PARAM: i32 500000
// CASE: name=red_last_block_f32_single kernel=red_last_block_f32 grid=1 block=1024
// PARAM: buf f32 1 zero
// PARAM: buf u32 1 zero
// PARAM: buf f32 2 zero
// PARAM: buf f32 9999 rand
// PARAM: i32 9999
// CASE: name=red_last_block_f32_4096 kernel=red_last_block_f32 grid=4096 block=32
// PARAM: buf f32 4096 zero
// PARAM: buf u32 1 zero
// PARAM: buf f32 2 zero
// PARAM: buf f32 100000 rand
// PARAM: i32 100000
// CASE: name=red_last_block_f32_63x5 kernel=red_last_block_f32 grid=63,5 block=64
// PARAM: buf f32 315 zero
// PARAM: buf u32 1 zero
// PARAM: buf f32 2 zero
// PARAM: buf f32 77777 rand
// PARAM: i32 77777

// The same pattern on 64-bit integers, with atomicInc as the ticket (it
// wraps back to 0 by itself after the last block) and warp shuffles for the
// block sum.  Only thread 0 of the last block reads the partials.
extern "C" __global__ void red_last_block_u64(unsigned long long *partials, unsigned *ticket,
                                              unsigned long long *result, const unsigned *in, int n)
{
    __shared__ unsigned long long warp_sums[32];
    __shared__ bool am_last;
    unsigned nblocks = gridDim.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
    unsigned long long v = 0;

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += (unsigned long long)in[i] * (unsigned)(i % 5 + 1);
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long b = 0;
        for (int w = 0; w < nwarps; w++)
            b += warp_sums[w];
        partials[blockIdx.x] = b;
        __threadfence();
        am_last = atomicInc(ticket, nblocks - 1) == nblocks - 1;
    }
    __syncthreads();
    if (!am_last)
        return;
    if (threadIdx.x == 0) {
        unsigned long long tot = 0;
        for (unsigned j = 0; j < nblocks; j++)
            tot += __ldcg(&partials[j]) ^ (unsigned long long)j;
        result[0] = tot;
        result[1] = nblocks;
    }
}
// CASE: name=red_last_block_u64_100 kernel=red_last_block_u64 grid=100 block=256
// PARAM: buf u64 100 zero
// PARAM: buf u32 1 zero
// PARAM: buf u64 2 zero
// PARAM: buf u32 1000000 rand
// PARAM: i32 1000000
// CASE: name=red_last_block_u64_2049 kernel=red_last_block_u64 grid=2049 block=64
// PARAM: buf u64 2049 zero
// PARAM: buf u32 1 zero
// PARAM: buf u64 2 zero
// PARAM: buf u32 131073 rand
// PARAM: i32 131073

// A per-block shared-memory reduction with the loads of the tail zeroed
// (no returns), combined across blocks with one 64-bit integer atomicAdd per
// block, and the per-block float results stored in place.
extern "C" __global__ void red_block_atomic(float *block_out, unsigned long long *isum,
                                            const float *in, int n)
{
    __shared__ float s[1024];
    int bid = blockIdx.x + gridDim.x * blockIdx.y;
    int i = bid * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.0f;
    float b = block_sum_f32(x * x, s);
    if (threadIdx.x == 0) {
        block_out[bid] = b;
        atomicAdd(isum, (unsigned long long)(long long)(b * 1024.0f));
    }
}
// CASE: name=red_block_atomic_33x3 kernel=red_block_atomic grid=33,3 block=512
// PARAM: buf f32 99 zero
// PARAM: buf u64 1 zero
// PARAM: buf f32 50000 rand
// PARAM: i32 50000
// CASE: name=red_block_atomic_4000 kernel=red_block_atomic grid=4000 block=16
// PARAM: buf f32 4000 zero
// PARAM: buf u64 1 rand
// PARAM: buf f32 63999 rand
// PARAM: i32 63999

// __syncthreads_count is a barrier with a reduction (bar.red.popc): unisync
// cannot route it through its single reduction barrier, so colocc refuses
// unisync, and ptb with it, on purpose.  slice still applies.
extern "C" __global__ void red_syncthreads_count(unsigned *counts, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pred = i < n && in[i] > 0.0f;
    int c = __syncthreads_count(pred);
    if (threadIdx.x == 0)
        counts[blockIdx.x] = (unsigned)c;
}
// CASE: name=red_syncthreads_count_refused kernel=red_syncthreads_count grid=77 block=128 flags=no-ptb
// PARAM: buf u32 77 zero
// PARAM: buf f32 9800 rand
// PARAM: i32 9800
