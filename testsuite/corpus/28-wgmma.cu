// RUN: %corpus-check %s
// 28-wgmma.cu
// PTX features meant to be emitted (sm_90a only; every other target
// compiles the fallback path):
//   - wgmma.fence.sync.aligned, wgmma.commit_group.sync.aligned,
//     wgmma.wait_group.sync.aligned N
//   - wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 with two smem matrix
//     descriptors (64-bit), predicate scale-d and immediate scale/transpose
//   - the register-A form ({a0..a3}, descB), .bf16, .tf32 (m64n8k8),
//     .e4m3.e5m2 (m64n8k32), .s32.s8.s8 (m64n8k32, .satfinite)
//   - m64n16k16 with 8 accumulator registers, f16 accumulators
//   - setmaxnreg.inc.sync.aligned.u32 / setmaxnreg.dec.sync.aligned.u32
//     (warp-specialised producer/consumer kernel)
// EXTRA-ARCHS: sm_100a

#include <cstdint>

__device__ __forceinline__ uint64_t make_desc(const void *smem, uint32_t lead, uint32_t stride)
{
    uint64_t addr = (uint64_t)(uint32_t)__cvta_generic_to_shared(smem);
    return ((addr & 0x3ffff) >> 4) | ((uint64_t)(lead >> 4) << 16) |
           ((uint64_t)(stride >> 4) << 32);
}

__global__ void __launch_bounds__(128) wgmma_kernel(const uint32_t *gA, const uint32_t *gB,
                                                    float *out, int32_t *outi, int steps)
{
    __shared__ alignas(128) uint32_t sA[64 * 16 / 2];
    __shared__ alignas(128) uint32_t sB[16 * 16 / 2];
    int t = threadIdx.x;
    for (int i = t; i < 64 * 16 / 2; i += 128)
        sA[i] = gA[i];
    for (int i = t; i < 16 * 16 / 2; i += 128)
        sB[i] = gB[i];
    __syncthreads();
    float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t di[4] = {0, 0, 0, 0};
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    uint64_t da = make_desc(sA, 128, 256);
    uint64_t db = make_desc(sB, 128, 256);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int s = 0; s < steps; s++) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        asm volatile("{\n\t"
                     ".reg .pred p;\n\t"
                     "setp.ne.b32 p, %6, 0;\n\t"
                     "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                     "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 1;\n\t"
                     "}"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "l"(da), "l"(db), "r"(s));
        asm volatile("{\n\t"
                     ".reg .pred p;\n\t"
                     "setp.ne.b32 p, %10, 0;\n\t"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
                     "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, -1, 0, 0;\n\t"
                     "}"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                       "+f"(d[6]), "+f"(d[7])
                     : "l"(da), "l"(db), "r"(1));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
    // A from registers.
    uint32_t a0 = sA[t], a1 = sA[t + 128], a2 = sA[t + 256], a3 = sA[t + 384];
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, %9, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 1;\n\t"
                 "}"
                 : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(1));
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, %6, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3}, %4, %5, p, 1, 1;\n\t"
                 "}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db), "r"(1));
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, %6, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 "
                 "{%0, %1, %2, %3}, %4, %5, p, 1, 1;\n\t"
                 "}"
                 : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db), "r"(1));
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, %6, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite "
                 "{%0, %1, %2, %3}, %4, %5, p;\n\t"
                 "}"
                 : "+r"(di[0]), "+r"(di[1]), "+r"(di[2]), "+r"(di[3])
                 : "l"(da), "l"(db), "r"(0));
    uint32_t h0 = 0, h1 = 0;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, %4, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "
                 "{%0, %1}, %2, %3, p, 1, 1, 0, 0;\n\t"
                 "}"
                 : "+r"(h0), "+r"(h1)
                 : "l"(da), "l"(db), "r"(0));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    di[0] += (int32_t)(h0 ^ h1);
#else
    for (int s = 0; s < steps; s++)
        d[t & 7] += (float)sA[t] * (float)sB[t & 127];
    di[0] = steps;
#endif
    for (int k = 0; k < 8; k++)
        out[t * 8 + k] = d[k];
    for (int k = 0; k < 4; k++)
        outi[t * 4 + k] = di[k];
}

// Warp-specialised kernel: producer warpgroup gives up registers, consumer
// warpgroup takes more.
__global__ void __launch_bounds__(256, 1) register_rebalance(const float *in, float *out)
{
    int wg = threadIdx.x / 128;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        out[threadIdx.x] = in[threadIdx.x];
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        float acc = 0.0f;
        for (int i = 0; i < 64; i++)
            acc += in[(threadIdx.x + i * 7) & 1023] * (float)i;
        out[threadIdx.x] = acc;
    }
#else
    out[threadIdx.x] = in[threadIdx.x] + (float)wg;
#endif
}
