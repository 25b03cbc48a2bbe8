// RUN: %corpus-check %s
// 22-async-copy.cu
// PTX features meant to be emitted:
//   - cp.async.ca.shared.global [..], [..], 4/8/16; cp.async.cg.shared.global
//     16 (with and without src-size), cp.async.commit_group,
//     cp.async.wait_group N, cp.async.wait_all  (sm_80+)
//   - cp.async.mbarrier.arrive.noinc.shared.b64
//   - mbarrier.init.shared.b64, mbarrier.arrive.shared.b64 (state result),
//     mbarrier.test_wait / try_wait (.parity) loops, mbarrier.inval,
//     mbarrier.arrive_drop, mbarrier.pending_count
//   - cuda::barrier<thread_scope_block>, cuda::pipeline (producer/consumer
//     stages), cuda::memcpy_async with cuda::aligned_size_t,
//     __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior
// NVCC-EXTRA-FLAGS: -std=c++17

#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void primitives_pipeline(const float4 *in, const int *iin, const double *din,
                                    float4 *out, int n)
{
    __shared__ float4 s4[2][128];
    __shared__ int si[128];
    __shared__ double sd[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s4[0][t], &in[t], sizeof(float4));
    __pipeline_memcpy_async(&si[t], &iin[t], sizeof(int));
    __pipeline_memcpy_async(&sd[t], &din[t], sizeof(double));
    __pipeline_commit();
    for (int stage = 1; stage < n; stage++) {
        __pipeline_memcpy_async(&s4[stage & 1][t], &in[stage * 128 + t], sizeof(float4), 8);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = s4[(stage - 1) & 1][127 - t];
        out[(stage - 1) * 128 + t] = make_float4(v.x + si[t], v.y + (float)sd[t], v.z, v.w);
        __syncthreads();
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s4[(n - 1) & 1][t];
}

__global__ void barrier_copy(const float *in, float *out, int n)
{
    __shared__ alignas(16) float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    for (int off = 0; off < n; off += 256) {
        cuda::memcpy_async(block, buf, in + off, cuda::aligned_size_t<16>(sizeof(buf)), bar);
        bar.arrive_and_wait();
        out[off + block.thread_rank()] = buf[255 - block.thread_rank()] * 2.0f;
        block.sync();
    }
    // Split arrive/wait with a token.
    auto token = bar.arrive();
    bar.wait(std::move(token));
}

__global__ void pipeline_stages(const int *in, int *out, int batches)
{
    constexpr int stages = 2;
    constexpr int chunk = 128;
    __shared__ alignas(16) int buf[stages][chunk];
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int t = block.thread_rank();
    for (int s = 0; s < stages && s < batches; s++) {
        pipe.producer_acquire();
        cuda::memcpy_async(&buf[s][t], &in[s * chunk + t], sizeof(int), pipe);
        pipe.producer_commit();
    }
    for (int b = 0; b < batches; b++) {
        cuda::pipeline_consumer_wait_prior<stages - 1>(pipe);
        block.sync();
        out[b * chunk + t] = buf[b % stages][(t + 1) % chunk];
        block.sync();
        pipe.consumer_release();
        int next = b + stages;
        if (next < batches) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[next % stages][t], &in[next * chunk + t], sizeof(int), pipe);
            pipe.producer_commit();
        }
    }
}

// Raw PTX: cp.async forms and the mbarrier instruction family.
__global__ void raw_cp_async(const int4 *in, int4 *out, int bytes)
{
    __shared__ alignas(16) int4 s[64];
    __shared__ alignas(8) unsigned long long mbar;
    int t = threadIdx.x;
    unsigned saddr = (unsigned)__cvta_generic_to_shared(&s[t & 63]);
    unsigned mb = (unsigned)__cvta_generic_to_shared(&mbar);
#if __CUDA_ARCH__ >= 800
    if (t == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(mb), "r"(blockDim.x));
    __syncthreads();
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(in + t));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(saddr), "l"(in + t + 64),
                 "r"(bytes & 7));
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4;" ::"r"(saddr + 8),
                 "l"(in + t + 128));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;" ::"r"(saddr), "l"(in + t + 192));
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(mb));
    asm volatile("cp.async.wait_all;");
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(mb));
    asm volatile("{\n\t"
                 ".reg .pred done;\n"
                 "Lwait:\n\t"
                 "mbarrier.test_wait.shared.b64 done, [%0], %1;\n\t"
                 "@!done bra Lwait;\n\t"
                 "}" ::"r"(mb), "l"(state));
    unsigned pending;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
    asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(state) : "r"(mb));
    __syncthreads();
    if (t == 0)
        asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(mb));
    out[t] = s[63 - (t & 63)];
    out[t + 64].x = (int)pending;
#else
    out[t] = in[t];
#endif
}
