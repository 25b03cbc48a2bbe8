// RUN: %corpus-check %s
// 15-atomics.cu
// PTX features meant to be emitted:
//   - atom.global / atom.shared / generic atom with .add .min .max .and .or
//     .xor .exch .cas .inc .dec on .s32 .u32 .u64 .s64 .b32 .b64 .f32 .f64
//   - atom.add.noftz.f16, atom.add.noftz.f16x2, atom.add.noftz.bf16x2
//   - atom.cas.b16 (16-bit CAS, sm_70+)
//   - red.global.* / red.shared.* (CUDA 13.0 nvcc keeps atom.* even when the
//     result is unused, so the red forms are written as inline PTX here)
//   - scoped atomics: atom.cta / atom.sys (atomicAdd_block / _system),
//     ordered atomics atom.acq_rel / relaxed via inline asm
//   - vector atomics atom.global.v2.f32.add / v4 (sm_90, __CUDA_ARCH__ >= 900)
// EXTRA-ARCHS: sm_75

#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void int_atomics(int *gi, unsigned *gu, unsigned long long *gull, long long *gll,
                            int *res)
{
    int t = threadIdx.x;
    int r = 0;
    r += atomicAdd(gi, t);
    r += atomicSub(gi + 1, t);
    r += atomicMin(gi + 2, t - 100);
    r += atomicMax(gi + 3, t);
    r += atomicAnd(gi + 4, ~t);
    r += atomicOr(gi + 5, 1 << (t & 31));
    r += atomicXor(gi + 6, t);
    r += atomicExch(gi + 7, t);
    r += atomicCAS(gi + 8, t, t + 1);
    r += (int)atomicInc(gu, 100u);
    r += (int)atomicDec(gu + 1, 100u);
    r += (int)atomicMin(gu + 2, (unsigned)t);
    r += (int)atomicMax(gu + 3, (unsigned)t);
    r += (int)atomicAdd(gull, (unsigned long long)t);
    r += (int)atomicCAS(gull + 1, 0ull, (unsigned long long)t);
    r += (int)atomicExch(gull + 2, 7ull);
    r += (int)atomicMin(gull + 3, (unsigned long long)t);
    r += (int)atomicMax(gll, (long long)t);
    r += (int)atomicMin(gll + 1, (long long)-t);
    r += (int)atomicAnd(gull + 4, 0xffull);
    r += (int)atomicOr(gull + 5, 0x100ull);
    r += (int)atomicXor(gull + 6, 0x3ull);
    res[t] = r;
}

__global__ void float_atomics(float *gf, double *gd, __half *gh, __half2 *gh2,
                              __nv_bfloat162 *gb2, __nv_bfloat16 *gb, float *res)
{
    int t = threadIdx.x;
    float r = atomicAdd(gf, 1.5f);
    r += atomicExch(gf + 1, (float)t);
    double d = atomicAdd(gd, 2.5);
    __half h = atomicAdd(gh, __float2half(0.5f));
    __half2 h2 = atomicAdd(gh2, __floats2half2_rn(1.0f, 2.0f));
    __nv_bfloat162 b2 = atomicAdd(gb2, __floats2bfloat162_rn(1.0f, 2.0f));
    __nv_bfloat16 b = atomicAdd(gb, __float2bfloat16(3.0f));
    res[t] = r + (float)d + __half2float(h) + __low2float(h2) + __high2float(b2) +
             __bfloat162float(b);
}

// Results unused: nvcc still emits atom.* with a dead destination register.
// The red.* forms come from inline PTX.
__global__ void reductions(int *gi, unsigned long long *gull, float *gf, double *gd,
                           __half2 *gh2, unsigned *gu)
{
    __shared__ int sred[4];
    int t = threadIdx.x;
    if (t < 4)
        sred[t] = 0;
    __syncthreads();
    asm volatile("red.global.add.u32 [%0], %1;" ::"l"(gu + 2), "r"(t));
    asm volatile("red.global.max.s32 [%0], %1;" ::"l"(gi + 6), "r"(t));
    asm volatile("red.global.add.u64 [%0], %1;" ::"l"(gull + 1), "l"((unsigned long long)t));
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(gf + 1), "f"((float)t));
    asm volatile("red.global.add.f64 [%0], %1;" ::"l"(gd + 1), "d"((double)t));
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(gh2 + 1), "r"(0x3c003c00u));
    asm volatile("red.relaxed.gpu.global.or.b64 [%0], %1;" ::"l"(gull + 2), "l"(1ull << (t & 63)));
    asm volatile("red.shared.min.s32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(sred)), "r"(-t));
    asm volatile("red.shared.xor.b32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(sred + 1)), "r"(t));
    asm volatile("red.add.u32 [%0], %1;" ::"l"(t & 1 ? (int *)gu : sred), "r"(1));
    __syncthreads();
    if (t == 0)
        gi[16] = sred[0] + sred[1];
    atomicAdd(gi, t);
    atomicMin(gi + 1, t);
    atomicMax(gi + 2, t);
    atomicAnd(gi + 3, t);
    atomicOr(gi + 4, t);
    atomicXor(gi + 5, t);
    atomicInc(gu, 16u);
    atomicDec(gu + 1, 16u);
    atomicAdd(gull, 1ull);
    atomicAdd(gf, 1.0f);
    atomicAdd(gd, 1.0);
    atomicAdd(gh2, __floats2half2_rn(0.25f, 0.5f));
}

__global__ void shared_atomics(int *out, float *outf)
{
    __shared__ int si[8];
    __shared__ float sf[2];
    __shared__ unsigned long long sl;
    int t = threadIdx.x;
    if (t < 8)
        si[t] = 0;
    if (t < 2)
        sf[t] = 0.0f;
    if (t == 0)
        sl = 0;
    __syncthreads();
    int a = atomicAdd(&si[0], 1);
    atomicMax(&si[1], t);
    atomicCAS(&si[2], 0, t);
    atomicExch(&si[3], t);
    atomicAdd(&sf[0], 0.5f);
    float f = atomicAdd(&sf[1], 1.0f);
    unsigned long long l = atomicAdd(&sl, 2ull);
    __syncthreads();
    out[t] = a + si[1] + si[2] + si[3] + (int)l;
    outf[t] = sf[0] + f;
}

// Generic-address atomics (pointer could be shared or global).
__device__ __noinline__ int generic_atomic(int *p, int v)
{
    return atomicAdd(p, v) + atomicCAS(p + 1, v, 0);
}

__global__ void scoped_atomics(int *gi, unsigned long long *gull, float *gf, int *res)
{
    __shared__ int sh[2];
    int t = threadIdx.x;
    int r = atomicAdd_block(gi, t);
    r += atomicAdd_system(gi + 1, t);
    r += atomicCAS_system(gi + 2, 0, t);
    r += (int)atomicExch_block(gull, (unsigned long long)t);
    r += (int)atomicAdd_system(gf, 1.0f);
    r += generic_atomic(t & 1 ? gi + 8 : sh, t);
    unsigned short *p16 = reinterpret_cast<unsigned short *>(gi + 4);
    r += atomicCAS(p16, (unsigned short)0, (unsigned short)t);
    int v;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;" : "=r"(v) : "l"(gi + 5), "r"(t));
    r += v;
    asm volatile("atom.relaxed.sys.global.exch.b32 %0, [%1], %2;" : "=r"(v) : "l"(gi + 6), "r"(t));
    r += v;
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(gi + 7), "r"(t));
    res[t] = r;
}

__global__ void vector_atomics(float2 *g2, float4 *g4, float *res)
{
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
    float2 a = atomicAdd(g2, make_float2(1.0f, 2.0f));
    float4 b = atomicAdd(g4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
    atomicAdd(g2 + 1, make_float2(0.5f, 0.5f));
    res[t] = a.x + a.y + b.x + b.w;
#else
    res[t] = atomicAdd(&g2->x, 1.0f);
#endif
}
