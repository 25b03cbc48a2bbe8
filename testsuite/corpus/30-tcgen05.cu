// RUN: %corpus-check %s
// 30-tcgen05.cu
// PTX features meant to be emitted (only for sm_100a; the other targets
// compile the fallback path):
//   - tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], ncols
//   - tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned
//   - tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols
//   - tcgen05.mma.cta_group::1.kind::f16 / kind::tf32 / kind::f8f6f4 with
//     smem descriptors, and the A-from-tensor-memory form [a_tmem]
//   - tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
//   - tcgen05.ld.sync.aligned.32x32b.x4.b32, 16x64b.x2, 16x32bx2 (with
//     immediate half-split offset), .pack::16b; tcgen05.st ... .unpack::16b
//   - tcgen05.wait::ld / tcgen05.wait::st, tcgen05.fence::before_thread_sync
//     / ::after_thread_sync, tcgen05.cp.cta_group::1.128x256b,
//     tcgen05.shift.cta_group::1.down
//   - the same instructions through cuda::ptx wrappers
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_100a

#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__device__ __forceinline__ uint64_t smem_desc(const void *p)
{
    uint64_t a = (uint64_t)(uint32_t)__cvta_generic_to_shared(p);
    return ((a & 0x3ffff) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 46);
}

__global__ void __launch_bounds__(128) tcgen05_gemm(const uint32_t *gA, const uint32_t *gB,
                                                    float *out, int ksteps)
{
    __shared__ alignas(1024) uint32_t sA[128 * 16 / 2];
    __shared__ alignas(1024) uint32_t sB[128 * 16 / 2];
    __shared__ alignas(8) uint64_t mbar;
    __shared__ uint32_t tmem_base;
    int t = threadIdx.x;
    for (int i = t; i < 128 * 8; i += 128) {
        sA[i] = gA[i];
        sB[i] = gB[i];
    }
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&mbar);
    if (t == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    if (t < 32) {
        // One warp allocates 128 columns of tensor memory.
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;"
                     ::"r"((unsigned)__cvta_generic_to_shared(&tmem_base)) : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    uint32_t taddr = tmem_base;
    uint64_t da = smem_desc(sA), db = smem_desc(sB);
    // Instruction descriptor: f16 x f16 -> f32, M=128, N=128 (bit layout per ISA).
    uint32_t idesc = (1u << 4) | ((128u >> 3) << 17) | ((128u >> 4) << 24);
    if (t == 0) {
        for (int k = 0; k < ksteps; k++) {
            asm volatile("{\n\t"
                         ".reg .pred acc;\n\t"
                         "setp.ne.b32 acc, %4, 0;\n\t"
                         "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, acc;\n\t"
                         "}"
                         ::"r"(taddr), "l"(da + 2 * k), "l"(db + 2 * k), "r"(idesc), "r"(k)
                         : "memory");
        }
        asm volatile("{\n\t"
                     ".reg .pred acc;\n\t"
                     "setp.ne.b32 acc, %4, 0;\n\t"
                     "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, acc;\n\t"
                     "}"
                     ::"r"(taddr), "l"(da), "l"(db), "r"(idesc), "r"(1) : "memory");
        asm volatile("{\n\t"
                     ".reg .pred acc;\n\t"
                     "setp.ne.b32 acc, %4, 0;\n\t"
                     "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], [%1], %2, %3, acc;\n\t"
                     "}"
                     ::"r"(taddr), "r"(taddr + 64), "l"(db), "r"(idesc), "r"(1) : "memory");
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                     ::"r"(sbar) : "memory");
    }
    asm volatile("{\n\t"
                 ".reg .pred done;\n"
                 "TC_WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
                 "@!done bra TC_WAIT;\n\t"
                 "}" ::"r"(sbar) : "memory");
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    // Each warp reads its 32 lanes of the accumulator.
    uint32_t lane_base = taddr + ((uint32_t)(t & ~31) << 16);
    uint32_t r0, r1, r2, r3, p0, p1, h0, h1;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(lane_base));
    asm volatile("tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32 {%0, %1}, [%2];"
                 : "=r"(p0), "=r"(p1) : "r"(lane_base + 8));
    asm volatile("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%0, %1}, [%2], 4;"
                 : "=r"(h0), "=r"(h1) : "r"(lane_base + 16));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};"
                 ::"r"(lane_base + 32), "r"(r0), "r"(r1) : "memory");
    asm volatile("tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [%0], {%1, %2};"
                 ::"r"(lane_base + 40), "r"(p0), "r"(p1) : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    if (t == 0) {
        asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(taddr + 96), "l"(da) : "memory");
        asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(taddr) : "memory");
    }
    out[t * 4 + 0] = __uint_as_float(r0);
    out[t * 4 + 1] = __uint_as_float(r1 ^ p0);
    out[t * 4 + 2] = __uint_as_float(r2 ^ p1);
    out[t * 4 + 3] = __uint_as_float(r3 ^ h0 ^ h1);
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    if (t < 32)
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(taddr) : "memory");
#else
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < ksteps; k++)
        acc += (float)sA[(t + k) & 1023] * (float)sB[(t * 3 + k) & 1023];
    out[t] = acc + (float)tmem_base + (float)mbar;
#endif
}

// The cuda::ptx spellings of the same operations.
__global__ void tcgen05_wrappers(uint32_t *out)
{
    __shared__ uint32_t base;
    __shared__ alignas(8) uint64_t bar;
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
    if (threadIdx.x == 0)
        ptx::mbarrier_init(&bar, 1);
    if (threadIdx.x < 32) {
        ptx::tcgen05_alloc(ptx::cta_group_1, &base, 32u);
        ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
    }
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx::tcgen05_fence_after_thread_sync();
    uint32_t v[2];
    ptx::tcgen05_ld_32x32b(v, base);
    ptx::tcgen05_wait_ld();
    ptx::tcgen05_st_32x32b(base + 2, v);
    ptx::tcgen05_wait_st();
    if (threadIdx.x == 0)
        ptx::tcgen05_commit(ptx::cta_group_1, &bar);
    out[threadIdx.x] = v[0] + v[1];
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    if (threadIdx.x < 32)
        ptx::tcgen05_dealloc(ptx::cta_group_1, base, 32u);
#else
    out[threadIdx.x] = base + (uint32_t)bar;
#endif
}
