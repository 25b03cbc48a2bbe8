// Asynchronous copies from global to shared memory, double-buffered: the
// pipeline primitives (cp.async + commit/wait groups), cuda::pipeline with
// thread scope, a CTA-scope mbarrier written out in PTX with a bulk copy,
// and cuda::barrier with cuda::memcpy_async (two suspected colocc false
// refusals, marked COLOCC-ISSUE below).  A persistent worker runs one block
// after another in the same shared memory: every copy group a block starts
// is waited for by that block before it returns.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline_primitives.h>
#include <cooperative_groups.h>

#pragma nv_diag_suppress static_var_with_dynamic_init

// Tiles of blockDim.x float4 in a grid-stride loop over tiles; tile j + 1 is
// fetched with __pipeline_memcpy_async while tile j is used.  Dynamic shared
// memory: 2 * blockDim.x float4.
extern "C" __global__ void ca_pipeline_dbuf(float *out, const float4 *in, int ntiles)
{
    extern __shared__ float4 buf[];
    int t = threadIdx.x, B = blockDim.x;
    int tile = blockIdx.x;

    if (tile >= ntiles)
        return;
    __pipeline_memcpy_async(&buf[t], &in[(size_t)tile * B + t], sizeof(float4));
    __pipeline_commit();
    for (int j = 0; tile < ntiles; j++, tile += gridDim.x) {
        int next = tile + gridDim.x;
        if (next < ntiles)
            __pipeline_memcpy_async(&buf[((j + 1) & 1) * B + t], &in[(size_t)next * B + t],
                                    sizeof(float4));
        __pipeline_commit(); /* an empty group when there is no next tile */
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 me = buf[(j & 1) * B + t], nb = buf[(j & 1) * B + (t + 1) % B];
        out[(size_t)tile * B + t] = me.x * nb.y + me.z - nb.w + me.y * me.w + (float)j;
        __syncthreads(); /* everyone is done with this buffer before it is refilled */
    }
}
// CASE: name=ca_pipeline_dbuf_13x128 kernel=ca_pipeline_dbuf grid=13 block=128 smem=4096
// PARAM: buf f32 12800 zero
// PARAM: buf f32 51200 rand
// PARAM: i32 100
// CASE: name=ca_pipeline_dbuf_1x1024 kernel=ca_pipeline_dbuf grid=1 block=1024 smem=32768
// PARAM: buf f32 7168 zero
// PARAM: buf f32 28672 rand
// PARAM: i32 7
// CASE: name=ca_pipeline_dbuf_idle_blocks kernel=ca_pipeline_dbuf grid=500 block=64 smem=2048
// PARAM: buf f32 19200 zero
// PARAM: buf f32 76800 rand
// PARAM: i32 300
// CASE: name=ca_pipeline_dbuf_big_smem kernel=ca_pipeline_dbuf grid=6 block=1024 smem=65536
// PARAM: buf f32 50176 zero
// PARAM: buf f32 200704 rand
// PARAM: i32 49

// cuda::pipeline<thread_scope_thread>: each thread stages its own element
// of the next round while the block works on the current one; neighbours
// are read through shared memory after a barrier.  Rounds are per block, so
// every thread of a block runs the same number of iterations.
extern "C" __global__ void ca_cuda_pipeline(float *out, const float *in, int n)
{
    __shared__ float stage[2][256];
    int t = threadIdx.x, B = blockDim.x;
    int round_stride = gridDim.x * B;
    int base = blockIdx.x * B;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();

    if (base >= n)
        return;
    pipe.producer_acquire();
    if (base + t < n)
        cuda::memcpy_async(&stage[0][t], &in[base + t], sizeof(float), pipe);
    pipe.producer_commit();
    for (int j = 0; base < n; j++, base += round_stride) {
        int nb = base + round_stride;
        pipe.producer_acquire();
        if (nb + t < n)
            cuda::memcpy_async(&stage[(j + 1) & 1][t], &in[nb + t], sizeof(float), pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        __syncthreads();
        int u = (t + 1) % B;
        float right = base + u < n ? stage[j & 1][u] : 0.0f;
        if (base + t < n)
            out[base + t] = stage[j & 1][t] * 3.0f - right;
        pipe.consumer_release();
        __syncthreads();
    }
}
// CASE: name=ca_cuda_pipeline_17x256 kernel=ca_cuda_pipeline grid=17 block=256
// PARAM: buf f32 100003 zero
// PARAM: buf f32 100003 rand
// PARAM: i32 100003
// CASE: name=ca_cuda_pipeline_300x96 kernel=ca_cuda_pipeline grid=300 block=96
// PARAM: buf f32 20000 zero
// PARAM: buf f32 20000 rand
// PARAM: i32 20000

// A CTA-scope mbarrier and cp.async.bulk written directly in PTX with the
// .shared::cta destination (PTX 8.6+), double-buffered: thread 0 starts the
// bulk copy of chunk j + 1 while the block reads chunk j.  The wait is a
// try_wait loop on the block's own mbarrier, with phase parity.
// Chunks are 4 KB (1024 floats); the mbarriers are re-initialized by every
// block before use, and invalidated before the block returns.
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "wait_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait_%=;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
extern "C" __global__ void ca_bulk_mbarrier(float *out, const float *in, int nchunks)
{
    __shared__ __align__(128) float chunk[2][1024];
    __shared__ __align__(8) unsigned long long bars[2];
    int t = threadIdx.x;
    int c = blockIdx.x;

    if (c >= nchunks)
        return;
    if (t == 0) {
        for (int b = 0; b < 2; b++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[b])));
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(
                         smem_addr(&bars[0]))
                     : "memory");
        asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], "
                     "4096, [%2];" ::"r"(smem_addr(chunk[0])),
                     "l"(in + (size_t)c * 1024), "r"(smem_addr(&bars[0]))
                     : "memory");
    }
    for (int j = 0; c < nchunks; j++, c += gridDim.x) {
        int next = c + gridDim.x, nbuf = (j + 1) & 1;
        if (t == 0 && next < nchunks) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(
                             smem_addr(&bars[nbuf]))
                         : "memory");
            asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], "
                         "[%1], 4096, [%2];" ::"r"(smem_addr(chunk[nbuf])),
                         "l"(in + (size_t)next * 1024), "r"(smem_addr(&bars[nbuf]))
                         : "memory");
        }
        /* buffer j & 1 completes its phase (j / 2) & 1 */
        mbar_wait(smem_addr(&bars[j & 1]), (unsigned)(j >> 1) & 1u);
        float acc = 0.0f;
        for (int e = t; e < 1024; e += blockDim.x)
            acc += chunk[j & 1][e] * chunk[j & 1][1023 - e];
        out[(size_t)c * blockDim.x + t] = acc;
        __syncthreads(); /* the buffer is free again */
    }
    if (t == 0)
        for (int b = 0; b < 2; b++)
            asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(smem_addr(&bars[b])));
}
// CASE: name=ca_bulk_mbarrier_7x128 kernel=ca_bulk_mbarrier grid=7 block=128
// PARAM: buf f32 3840 zero
// PARAM: buf f32 30720 rand
// PARAM: i32 30
// CASE: name=ca_bulk_mbarrier_64x32 kernel=ca_bulk_mbarrier grid=64 block=32
// PARAM: buf f32 1600 zero
// PARAM: buf f32 51200 rand
// PARAM: i32 50

// COLOCC-ISSUE: ca_barrier_memcpy: cuda::barrier<thread_scope_block> waits on
// its own CTA's shared-memory mbarrier; CCCL's arrive_and_wait backs off with
// nanosleep in that loop, and colocc takes any loop with nanosleep for a wait
// on other blocks, refusing slice and ptb.  The wait is CTA-local.
// (compute-sanitizer's synccheck reports "Barrier error detected. Missing
// wait" at the cp.async.mbarrier.arrive that cuda::memcpy_async emits, even
// for one copy per thread as in the CUDA programming guide; memcheck and
// racecheck are clean and the results are the same run after run.)
extern "C" __global__ void ca_barrier_memcpy(float *out, const float *in, int n)
{
    __shared__ __align__(16) float buf[1024];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cooperative_groups::this_thread_block();
    int base = blockIdx.x * 1024;

    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        if (base + i < n)
            cuda::memcpy_async(&buf[i], in + base + i, cuda::aligned_size_t<4>(sizeof(float)), bar);
    bar.arrive_and_wait();
    for (int i = threadIdx.x; i < 1024 && base + i < n; i += blockDim.x)
        out[base + i] = buf[i] - buf[(i + 1) % min(1024, n - base)];
}
// CASE: name=ca_barrier_memcpy_10x256 kernel=ca_barrier_memcpy grid=10 block=256
// PARAM: buf f32 10000 zero
// PARAM: buf f32 10000 rand
// PARAM: i32 10000
// CASE: name=ca_barrier_memcpy_full_tiles kernel=ca_barrier_memcpy grid=10 block=256
// PARAM: buf f32 10240 zero
// PARAM: buf f32 10240 rand
// PARAM: i32 10240

// COLOCC-ISSUE: ca_bulk_cluster_spelling: cuda::memcpy_async of a whole
// block's tile with a cuda::barrier compiles (sm_90) to
// "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes": the
// .shared::cluster destination is the only spelling before PTX 8.6 and
// names this CTA's own shared memory here (no cluster launch, no multicast),
// but colocc refuses slice and ptb as a "cluster kernel" (and the
// arrive_and_wait back-off would then trip the nanosleep heuristic above).
extern "C" __global__ void ca_bulk_cluster_spelling(float *out, const float *in)
{
    __shared__ __align__(16) float buf[1024];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cooperative_groups::this_thread_block();

    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in + (size_t)blockIdx.x * 1024,
                       cuda::aligned_size_t<16>(sizeof(float) * 1024), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[1023 - threadIdx.x] + buf[threadIdx.x];
}
// CASE: name=ca_bulk_cluster_spelling_12x256 kernel=ca_bulk_cluster_spelling grid=12 block=256
// PARAM: buf f32 3072 zero
// PARAM: buf f32 12288 rand
