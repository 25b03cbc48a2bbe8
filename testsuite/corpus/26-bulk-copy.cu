// RUN: %corpus-check %s
// 26-bulk-copy.cu
// PTX features meant to be emitted (sm_90 and up):
//   - cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
//     (global -> shared, via cuda::ptx and inline PTX)
//   - cp.async.bulk.global.shared::cta.bulk_group (shared -> global),
//     cp.async.bulk.commit_group, cp.async.bulk.wait_group(.read) N
//   - cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 / .min /
//     .and.b32 / .add.noftz.f16 ...
//   - cp.async.bulk.prefetch.L2.global
//   - cp.async.bulk...multicast::cluster (sm_90a only)
//   - fence.proxy.async.shared::cta, mbarrier.init.shared::cta.b64,
//     mbarrier.arrive.expect_tx.release.cta.shared::cta.b64,
//     mbarrier.try_wait.parity(.acquire.cta).shared::cta.b64 wait loops,
//     mbarrier.expect_tx, mbarrier.complete_tx
//   - inline-asm comments inside PTX strings (cuda::ptx emits "// 5." etc.)
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_100a

#include <cuda/ptx>
#include <cuda_fp16.h>
#include <cstdint>

namespace ptx = cuda::ptx;

__device__ __forceinline__ void wait_parity(uint64_t *bar, uint32_t parity)
{
#if __CUDA_ARCH__ >= 900
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
#endif
}

// Global -> shared -> global round trip with the cuda::ptx wrappers.
__global__ void bulk_roundtrip(const float *in, float *out, int chunks)
{
    __shared__ alignas(128) float buf[1024];
    __shared__ alignas(8) uint64_t bar;
#if __CUDA_ARCH__ >= 900
    int t = threadIdx.x;
    if (t == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    uint32_t parity = 0;
    for (int c = 0; c < chunks; c++) {
        if (t == 0) {
            ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, in + c * 1024,
                               sizeof(buf), &bar);
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                           &bar, sizeof(buf));
        }
        wait_parity(&bar, parity);
        parity ^= 1;
        for (int i = t; i < 1024; i += blockDim.x)
            buf[i] *= 2.0f;
        ptx::fence_proxy_async(ptx::space_shared);
        __syncthreads();
        if (t == 0) {
            ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + c * 1024, buf,
                               sizeof(buf));
            ptx::cp_async_bulk_commit_group();
            ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
        }
        __syncthreads();
    }
#else
    for (int i = threadIdx.x; i < chunks * 1024; i += blockDim.x)
        out[i] = in[i] * 2.0f;
    (void)buf;
    (void)bar;
#endif
}

// Bulk reductions from shared memory into global memory.
__global__ void bulk_reduce(const uint32_t *in, uint32_t *gsum, uint32_t *gmin, uint32_t *gand,
                            __half *ghalf, unsigned long long *g64)
{
    __shared__ alignas(128) uint32_t s[256];
    __shared__ alignas(128) __half sh[256];
    __shared__ alignas(128) unsigned long long s64[32];
    int t = threadIdx.x;
    s[t] = in[t];
    sh[t] = __float2half((float)in[t]);
    if (t < 32)
        s64[t] = in[t];
#if __CUDA_ARCH__ >= 900
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (t == 0) {
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, gsum, s,
                                  sizeof(s));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_min, gmin, s,
                                  sizeof(s));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_and_op, gand, s,
                                  sizeof(s));
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 "
                     "[%0], [%1], 512;"
                     ::"l"(ghalf), "r"((unsigned)__cvta_generic_to_shared(sh)) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u64 "
                     "[%0], [%1], 256;"
                     ::"l"(g64), "r"((unsigned)__cvta_generic_to_shared(s64)) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
#else
    __syncthreads();
    atomicAdd(gsum, s[t]);
    atomicMin(gmin, s[t]);
    atomicAnd(gand, s[t]);
    (void)ghalf;
    (void)g64;
    (void)sh;
#endif
}

// The same transfers written directly in PTX, plus prefetch and the
// expect_tx / complete_tx / try_wait forms.
__global__ void bulk_inline(const int4 *in, int4 *out)
{
    __shared__ alignas(128) int4 buf[256];
    __shared__ alignas(8) unsigned long long bar;
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
    unsigned sbuf = (unsigned)__cvta_generic_to_shared(buf);
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sbar), "r"(1));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 4096;" ::"l"(in + 256));
        asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 4096;" ::"r"(sbar));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 4096, [%2];"
                     ::"r"(sbuf), "l"(in), "r"(sbar) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], 0;"
                     ::"r"(sbar) : "memory");
    }
    __syncthreads();
    asm volatile("{\n\t"
                 ".reg .pred ready;\n"
                 "LAB_WAIT:\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 ready, [%0], %1, 1000000;\n\t"
                 "@!ready bra.uni LAB_WAIT;\n\t"
                 "}" ::"r"(sbar), "r"(0) : "memory");
    out[t] = buf[255 - t];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 4096;"
                     ::"l"(out + 256), "r"(sbuf) : "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], 4096, %2;"
                     ::"l"(out + 512), "r"(sbuf), "l"(0x1000000000000000ull) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 0;" ::"r"(sbar));
    }
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    // Multicast into every CTA of the cluster (sm_90a-specific).
    if (t == 0)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     ".multicast::cluster [%0], [%1], 4096, [%2], %3;"
                     ::"r"(sbuf), "l"(in), "r"(sbar), "h"((unsigned short)1) : "memory");
#endif
#else
    buf[t] = in[t];
    __syncthreads();
    out[t] = buf[255 - t];
    (void)bar;
#endif
}
