// RUN: %corpus-check %s
// 29-hopper-misc.cu
// PTX features meant to be emitted:
//   - elect.sync %r|%p, membermask (sm_90)
//   - griddepcontrol.launch_dependents / griddepcontrol.wait
//     (cudaTriggerProgrammaticLaunchCompletion / cudaGridDependencySynchronize)
//   - st.async.shared::cluster.mbarrier::complete_tx::bytes (.b32/.v2/.v4),
//     red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes
//   - multimem.ld_reduce / multimem.st / multimem.red on multicast addresses
//   - %aggr_smem_size, %reserved_smem_offset_begin/_end/_cap special registers
//   - sm_100: clusterlaunchcontrol.try_cancel / query_cancel with .b128
//     registers (nested { } scopes from cuda::ptx), st.bulk
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_100a

#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void elect_and_pdl(const int *in, int *out)
{
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();   // griddepcontrol.wait
#endif
    int t = threadIdx.x;
    int v = in[t];
#if __CUDA_ARCH__ >= 900
    unsigned leader, is_leader;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "elect.sync %0|p, 0xffffffff;\n\t"
                 "selp.u32 %1, 1, 0, p;\n\t"
                 "}" : "=r"(leader), "=r"(is_leader));
    if (is_leader)
        atomicAdd(out + 1024, v);
    unsigned second;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "elect.sync _|p, %1;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t"
                 "}" : "=r"(second) : "r"(__activemask()));
    if (second)
        atomicAdd(out + 1025, 1);
    out[t] = v + (int)leader;
    cudaTriggerProgrammaticLaunchCompletion();   // griddepcontrol.launch_dependents
#else
    out[t] = v;
#endif
}

#if __CUDA_ARCH__ >= 900
#define CLUSTER_2 __cluster_dims__(2, 1, 1)
#else
#define CLUSTER_2
#endif

// Remote stores/reductions into the peer CTA's shared memory that complete
// on the peer's mbarrier.
__global__ void CLUSTER_2 async_remote(const int *in, int *out)
{
    __shared__ alignas(16) int buf[64];
    __shared__ alignas(8) uint64_t bar;
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
    unsigned rank;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (t == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    buf[t & 63] = 0;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned lbuf = (unsigned)__cvta_generic_to_shared(&buf[t & 15]);
    unsigned lbar = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned rbuf, rbar;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbuf) : "r"(lbuf), "r"(rank ^ 1));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(lbar), "r"(rank ^ 1));
    if (t == 0)
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       16 * 4 + 8 + 16 + 4);
    if (t < 16)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                     ::"r"(rbuf), "r"(in[t]), "r"(rbar) : "memory");
    if (t == 16)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s32 [%0], {%1, %2}, [%3];"
                     ::"r"(rbuf + 128), "r"(in[t]), "r"(in[t + 1]), "r"(rbar) : "memory");
    if (t == 17)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                     ::"r"(rbuf + 144), "r"(1), "r"(2), "r"(3), "r"(4), "r"(rbar) : "memory");
    if (t == 18)
        asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
                     ::"r"(rbuf + 160), "r"(5u), "r"(rbar) : "memory");
    if (t == 19)
        ptx::st_async(&buf[50], 7, &bar);
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    out[blockIdx.x * 64 + (t & 63)] = buf[t & 63];
#else
    buf[t & 63] = in[t];
    __syncthreads();
    out[blockIdx.x * 64 + (t & 63)] = buf[(t + 1) & 63] + (int)bar;
#endif
}

// multimem operations address NVLink multicast objects (generic addresses).
__global__ void multimem_ops(float *mc_f, unsigned *mc_u, float *out)
{
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
    float f;
    unsigned u;
    asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(f) : "l"(mc_f + t) : "memory");
    asm volatile("multimem.ld_reduce.global.min.u32 %0, [%1];" : "=r"(u) : "l"(mc_u + t) : "memory");
    asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" ::"l"(mc_f + t + 256), "f"(f) : "memory");
    asm volatile("multimem.red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(mc_u + t + 256), "r"(u) : "memory");
    float4 v;
    asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(mc_f + 4 * t + 512) : "memory");
    out[t] = f + (float)u + v.x + v.w;
#else
    out[t] = mc_f[t] + (float)mc_u[t];
#endif
}

__global__ void smem_sregs(unsigned *out)
{
#if __CUDA_ARCH__ >= 900
    unsigned aggr, rb, re, rc;
    asm("mov.u32 %0, %%aggr_smem_size;" : "=r"(aggr));
    asm("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(rb));
    asm("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(re));
    asm("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(rc));
    out[threadIdx.x] = aggr + rb + re + rc;
#else
    out[threadIdx.x] = 0;
#endif
}

// Blackwell: work stealing through cluster launch control, bulk zeroing.
__global__ void launch_control(int *out)
{
    __shared__ alignas(16) uint4 response;
    __shared__ alignas(8) uint64_t bar;
    __shared__ alignas(16) int zeroed[256];
#if __CUDA_ARCH__ >= 1000
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::clusterlaunchcontrol_try_cancel(&response, &bar);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       16);
        ptx::st_bulk(zeroed, sizeof(zeroed), ptx::n32_t<0>());
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    uint4 r = response;
    bool canceled = ptx::clusterlaunchcontrol_query_cancel_is_canceled(r);
    int next = canceled ? (int)ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<uint32_t>(r)
                        : -1;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = next + zeroed[threadIdx.x & 255];
#else
    zeroed[threadIdx.x & 255] = 0;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = zeroed[(threadIdx.x + 1) & 255] + (int)bar +
                                                 (int)response.x;
#endif
}
