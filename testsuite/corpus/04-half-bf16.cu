// RUN: %corpus-check %s
// 04-half-bf16.cu
// PTX features meant to be emitted:
//   - .f16 / .f16x2 / .bf16 / .bf16x2 arithmetic: add, sub, mul, fma.rn,
//     neg, abs, min/max (incl. .NaN), fma.rn.relu
//   - f16 approximate math: ex2.approx.f16 / .f16x2, plus sqrt/rcp/sin/cos
//     routines on halves (via f32 round trips)
//   - setp on .f16 / .bf16 (inside header-provided asm scopes with their own
//     .reg .pred), set.*.u32.f16x2 packed compares
//   - conversions: cvt.rn.f16.f32, cvt.f32.f16, cvt.rn.f16x2.f32,
//     cvt.rn.bf16.f32, cvt.rn.bf16x2.f32, cvt.f32.bf16, cvt.rzi.s32.f16 ...
//   - mov.b32 {%rs1, %rs2} packing/unpacking of f16x2 vectors
//   - ld/st of .b16 values, .f16 immediates (0x3C00)

#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_scalar(const __half *a, const __half *b, __half *o, int *oi)
{
    int i = threadIdx.x;
    __half x = a[i], y = b[i], z = a[i + 1];
    o[i * 12 + 0] = __hadd(x, y);
    o[i * 12 + 1] = __hsub(x, y);
    o[i * 12 + 2] = __hmul(x, z);
    o[i * 12 + 3] = __hfma(x, y, z);
    o[i * 12 + 4] = __hneg(x);
    o[i * 12 + 5] = __habs(y);
    o[i * 12 + 6] = __hmax(x, y);
    o[i * 12 + 7] = __hmin_nan(x, z);
    o[i * 12 + 8] = hexp2(x);
    o[i * 12 + 9] = hsqrt(y) + hrcp(z);
    o[i * 12 + 10] = __hdiv(x, y);
    o[i * 12 + 11] = hsin(x) + hcos(y) + hlog2(z) + hexp(x);
    oi[i * 4 + 0] = __hlt(x, y) | (__hge(y, z) << 1) | (__hequ(x, z) << 2) | (__hisnan(x) << 3);
    oi[i * 4 + 1] = __half2int_rz(x) + __half2int_rn(y);
    oi[i * 4 + 2] = (int)__half2uint_rd(z) + __half2short_ru(x);
    oi[i * 4 + 3] = __hgt(x, z) ? 1 : 2;
}

__global__ void half_vector(const __half2 *a, const __half2 *b, __half2 *o, unsigned *om)
{
    int i = threadIdx.x;
    __half2 x = a[i], y = b[i], z = a[i + 1];
    o[i * 10 + 0] = __hadd2(x, y);
    o[i * 10 + 1] = __hsub2(x, y);
    o[i * 10 + 2] = __hmul2(x, z);
    o[i * 10 + 3] = __hfma2(x, y, z);
    o[i * 10 + 4] = __hneg2(x);
    o[i * 10 + 5] = __habs2(y);
    o[i * 10 + 6] = __hmax2_nan(x, y);
    o[i * 10 + 7] = h2exp2(z);
    o[i * 10 + 8] = __hfma2_relu(x, y, z);
    o[i * 10 + 9] = __lowhigh2highlow(__halves2half2(__low2half(x), __high2half(y)));
    om[i] = __hlt2_mask(x, y) ^ __hbeq2(y, z);
    if (__hbgt2(x, z))
        om[i + 64] = 7;
}

__global__ void bf16_scalar(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                            __nv_bfloat16 *o, int *oi)
{
    int i = threadIdx.x;
    __nv_bfloat16 x = a[i], y = b[i], z = a[i + 1];
    o[i * 10 + 0] = __hadd(x, y);
    o[i * 10 + 1] = __hsub(x, y);
    o[i * 10 + 2] = __hmul(x, z);
    o[i * 10 + 3] = __hfma(x, y, z);
    o[i * 10 + 4] = __hneg(x);
    o[i * 10 + 5] = __habs(y);
    o[i * 10 + 6] = __hmax(x, y);
    o[i * 10 + 7] = __hmin_nan(x, z);
    o[i * 10 + 8] = hexp2(x);
    o[i * 10 + 9] = __hfma_relu(x, y, z);
    oi[i * 2 + 0] = __hlt(x, y) | (__hge(y, z) << 1) | (__hisnan(x) << 3);
    oi[i * 2 + 1] = __bfloat162int_rz(x) + __bfloat162int_rn(y);
}

__global__ void bf16_vector(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                            __nv_bfloat162 *o)
{
    int i = threadIdx.x;
    __nv_bfloat162 x = a[i], y = b[i], z = a[i + 1];
    o[i * 8 + 0] = __hadd2(x, y);
    o[i * 8 + 1] = __hsub2(x, y);
    o[i * 8 + 2] = __hmul2(x, z);
    o[i * 8 + 3] = __hfma2(x, y, z);
    o[i * 8 + 4] = __hneg2(x);
    o[i * 8 + 5] = __habs2(y);
    o[i * 8 + 6] = __hmax2(x, y);
    o[i * 8 + 7] = h2exp2(z);
}

__global__ void conversions_16(const float *f, const double *d, __half *h,
                               __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2,
                               float *of)
{
    int i = threadIdx.x;
    float x = f[i], y = f[i + 1];
    h[i * 4 + 0] = __float2half_rn(x);
    h[i * 4 + 1] = __float2half_rz(y);
    h[i * 4 + 2] = __double2half(d[i]);
    h[i * 4 + 3] = __int2half_rn(i) ;
    h2[i] = __floats2half2_rn(x, y);
    b[i * 3 + 0] = __float2bfloat16_rn(x);
    b[i * 3 + 1] = __float2bfloat16_rz(y);
    b[i * 3 + 2] = __double2bfloat16(d[i]);
    b2[i] = __floats2bfloat162_rn(x, y);
    of[i * 4 + 0] = __half2float(h[i * 4 + 1]);
    of[i * 4 + 1] = __bfloat162float(b[i * 3 + 2]);
    float2 l = __half22float2(h2[i + 1]);
    float2 m = __bfloat1622float2(b2[i + 1]);
    of[i * 4 + 2] = l.x + m.y;
    of[i * 4 + 3] = l.y * m.x;
}

// The cuda_fp16.h routines go through f32; the native half approximations
// only come out of inline PTX.
__global__ void half_native_approx(const unsigned short *a, const unsigned *a2,
                                   unsigned short *o, unsigned *o2)
{
    int i = threadIdx.x;
    unsigned short h = a[i], r0, r1;
    unsigned v = a2[i], r2, r3;
    asm("ex2.approx.f16 %0, %1;" : "=h"(r0) : "h"(h));
    asm("tanh.approx.f16 %0, %1;" : "=h"(r1) : "h"(h));
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(r2) : "r"(v));
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(r3) : "r"(v));
    o[i * 2 + 0] = r0;
    o[i * 2 + 1] = r1;
    o2[i * 2 + 0] = r2;
    o2[i * 2 + 1] = r3;
#if __CUDA_ARCH__ >= 900
    unsigned short b;
    unsigned b2;
    asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(b) : "h"(h));
    asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(b2) : "r"(v));
    o[i * 2 + 64] = b;
    o2[i * 2 + 64] = b2;
#endif
}
