// RUN: %corpus-check %s
// 20-block-barriers.cu
// PTX features meant to be emitted:
//   - bar.sync 0 (__syncthreads), barrier.sync / barrier.sync.aligned with
//     ids and thread counts (__barrier_sync, __barrier_sync_count, inline asm)
//   - bar.red.popc.u32, bar.red.and.pred, bar.red.or.pred
//     (__syncthreads_count / _and / _or), barrier.red via inline asm
//   - named barriers: bar.sync 1, 64; bar.arrive 1, 64; barrier.arrive;
//     register operands for the barrier id and count
//   - producer/consumer warp specialisation with named barriers
// EXTRA-ARCHS: sm_75

__global__ void reduce_barriers(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v != 0);
    int any = __syncthreads_or(v == 42);
    if (t == 0) {
        out[blockIdx.x * 3 + 0] = cnt;
        out[blockIdx.x * 3 + 1] = all;
        out[blockIdx.x * 3 + 2] = any;
    }
}

// Warp 0-1 produce into a buffer, warps 2-3 consume; named barrier 1/2.
__global__ void named_barriers(const float *in, float *out, int iters)
{
    __shared__ float buf[64];
    int t = threadIdx.x;
    int warp = t >> 5;
    for (int it = 0; it < iters; it++) {
        if (warp < 2) {
            buf[t] = in[it * 64 + t];
            asm volatile("bar.arrive 1, 128;" ::: "memory");   // signal full
            asm volatile("bar.sync 2, 128;" ::: "memory");     // wait empty
        } else {
            asm volatile("bar.sync 1, 128;" ::: "memory");     // wait full
            out[it * 64 + t - 64] = buf[t - 64] * 2.0f;
            asm volatile("bar.arrive 2, 128;" ::: "memory");   // signal empty
        }
    }
    // Sub-block barrier with 64 threads.
    if (warp < 2)
        asm volatile("bar.sync 3, 64;" ::: "memory");
    __syncthreads();
}

__global__ void barrier_forms(int *out, unsigned id, unsigned count)
{
    int t = threadIdx.x;
    out[t] = t;
    __barrier_sync(0);
    out[t + 256] = out[(t + 1) & 255];
    __barrier_sync_count(0, blockDim.x);
    asm volatile("barrier.sync.aligned 0;" ::: "memory");
    asm volatile("barrier.sync 1, 64;" ::: "memory");
    asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
    asm volatile("bar.sync %0;" ::"r"(id) : "memory");
    asm volatile("barrier.arrive 4, 96;" ::: "memory");
    asm volatile("barrier.arrive.aligned 5, 32;" ::: "memory");
    int r;
    asm volatile("{\n\t"
                 ".reg .pred p, q;\n\t"
                 "setp.ne.s32 p, %1, 0;\n\t"
                 "barrier.red.or.pred q, 6, p;\n\t"
                 "selp.s32 %0, 1, 0, q;\n\t"
                 "}" : "=r"(r) : "r"(t & 3));
    unsigned c;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.s32 p, %1, 0;\n\t"
                 "bar.red.popc.u32 %0, 7, %2, p;\n\t"
                 "}" : "=r"(c) : "r"(t & 1), "r"(blockDim.x));
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.lt.s32 p, %0, 5;\n\t"
                 "barrier.red.and.aligned.pred p, 8, !p;\n\t"
                 "}" ::"r"(t));
    out[t + 512] = r + (int)c;
}
