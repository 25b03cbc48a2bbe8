// RUN: %corpus-check %s
// 05-conversions.cu
// PTX features meant to be emitted:
//   - cvt between every integer width (sign/zero extension, truncation):
//     cvt.s8.s32, cvt.u16.u32, cvt.s64.s32, cvt.u32.u64 ...
//   - int <-> float cvt with all rounding modes: cvt.rn/.rz/.rm/.rp.f32.s32,
//     cvt.rni/.rzi/.rmi/.rpi.s32.f32, 64-bit and unsigned variants, f64
//   - f32 <-> f64 (cvt.f64.f32, cvt.rn/.rz/.rm/.rp.f32.f64), cvt.sat,
//     cvt.ftz, cvt.rzi.f32.f32 (trunc)
//   - mov.b32 / mov.b64 bit casts, mov.b64 {lo, hi} pack/unpack
//   - cvt.rna.tf32.f32 (sm_80+)
//   - fp8: cvt.rn.satfinite.e4m3x2.f32, cvt.rn.satfinite.e5m2x2.f32,
//     cvt.rn.f16x2.e4m3x2 (sm_89+, so sm_90 and up here)
//   - fp4 / ue8m0: cvt.rn.satfinite.e2m1x2.f32, cvt.rz.satfinite.ue8m0x2.f32
//     (family-specific sm_100a)
// EXTRA-ARCHS: sm_100a

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp4.h>
#include <cstdint>

__global__ void int_widths(const int *a, const long long *b, int8_t *o8, uint16_t *o16,
                           long long *o64, unsigned *o32)
{
    int i = threadIdx.x;
    int x = a[i];
    long long y = b[i];
    o8[i] = (int8_t)x;
    o16[i] = (uint16_t)(x >> 3);
    o64[i] = (long long)(int8_t)x + (long long)(int16_t)y + (long long)(unsigned)x;
    o32[i] = (unsigned)y + (unsigned)(uint8_t)(y >> 40);
}

__global__ void float_int(const float *f, const double *d, int *oi, unsigned *ou,
                          long long *ol, unsigned long long *oul)
{
    int i = threadIdx.x;
    float x = f[i];
    double y = d[i];
    oi[i * 8 + 0] = __float2int_rn(x);
    oi[i * 8 + 1] = __float2int_rz(x);
    oi[i * 8 + 2] = __float2int_rd(x);
    oi[i * 8 + 3] = __float2int_ru(x);
    oi[i * 8 + 4] = __double2int_rn(y);
    oi[i * 8 + 5] = __double2int_rz(y);
    oi[i * 8 + 6] = __double2int_rd(y);
    oi[i * 8 + 7] = __double2int_ru(y);
    ou[i * 4 + 0] = __float2uint_rn(x);
    ou[i * 4 + 1] = __float2uint_rd(x);
    ou[i * 4 + 2] = __double2uint_ru(y);
    ou[i * 4 + 3] = __double2uint_rz(y);
    ol[i * 4 + 0] = __float2ll_rn(x);
    ol[i * 4 + 1] = __float2ll_rz(x);
    ol[i * 4 + 2] = __double2ll_rd(y);
    ol[i * 4 + 3] = __double2ll_ru(y);
    oul[i * 2 + 0] = __float2ull_ru(x);
    oul[i * 2 + 1] = __double2ull_rn(y);
}

__global__ void int_float(const int *a, const long long *b, float *of, double *od)
{
    int i = threadIdx.x;
    int x = a[i];
    unsigned u = (unsigned)a[i + 1];
    long long l = b[i];
    unsigned long long ul = (unsigned long long)b[i + 1];
    of[i * 10 + 0] = __int2float_rn(x);
    of[i * 10 + 1] = __int2float_rz(x);
    of[i * 10 + 2] = __int2float_rd(x);
    of[i * 10 + 3] = __int2float_ru(x);
    of[i * 10 + 4] = __uint2float_rz(u);
    of[i * 10 + 5] = __ll2float_rd(l);
    of[i * 10 + 6] = __ull2float_ru(ul);
    of[i * 10 + 7] = (float)l;
    of[i * 10 + 8] = __ull2float_rn(ul);
    of[i * 10 + 9] = (float)(short)x;
    od[i * 6 + 0] = __int2double_rn(x);
    od[i * 6 + 1] = __uint2double_rn(u);
    od[i * 6 + 2] = __ll2double_rz(l);
    od[i * 6 + 3] = __ull2double_ru(ul);
    od[i * 6 + 4] = __ll2double_rd(l);
    od[i * 6 + 5] = (double)(unsigned char)x;
}

__global__ void float_float(const float *f, const double *d, float *of, double *od)
{
    int i = threadIdx.x;
    float x = f[i];
    double y = d[i];
    of[i * 6 + 0] = __double2float_rn(y);
    of[i * 6 + 1] = __double2float_rz(y);
    of[i * 6 + 2] = __double2float_rd(y);
    of[i * 6 + 3] = __double2float_ru(y);
    of[i * 6 + 4] = __saturatef(x) + truncf(x);
    of[i * 6 + 5] = nearbyintf(x);
    od[i * 3 + 0] = (double)x;
    od[i * 3 + 1] = trunc(y) + round(y);
    od[i * 3 + 2] = rint(y);
}

__global__ void bit_casts(const float *f, const double *d, int *oi, long long *ol,
                          float *of, double *od)
{
    int i = threadIdx.x;
    float x = f[i];
    double y = d[i];
    oi[i * 2 + 0] = __float_as_int(x) ^ 0x80000000;
    oi[i * 2 + 1] = __double2hiint(y) + __double2loint(y);
    ol[i] = __double_as_longlong(y) >> 1;
    of[i] = __int_as_float(oi[i + 1] | 1) + __uint_as_float(0x3f800000u);
    od[i] = __hiloint2double(oi[i + 3], oi[i + 5]) + __longlong_as_double(ol[i + 7]);
}

// Inline-PTX-only conversions: cvt.sat and cvt.ftz forms, tf32.
__global__ void cvt_inline(const float *f, const int *a, float *of, int *oi, unsigned *ou)
{
    int i = threadIdx.x;
    float x = f[i], r0;
    int k = a[i], r1;
    unsigned t;
    unsigned short s;
    asm("cvt.rzi.sat.s32.f32 %0, %1;" : "=r"(r1) : "f"(x));
    asm("cvt.rni.ftz.sat.f32.f32 %0, %1;" : "=f"(r0) : "f"(x));
    asm("cvt.sat.s16.s32 %0, %1;" : "=h"(s) : "r"(k));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
    of[i] = r0;
    oi[i] = r1 + (short)s;
    ou[i] = t;
}

// Narrow float formats through the CUDA headers (sm_89+/sm_100a-only parts
// fall back to software emulation on other targets).
__global__ void fp8_fp4(const float2 *f, const __half2 *h, __nv_fp8x2_storage_t *o8,
                        __nv_fp8x2_storage_t *o8b, __half2_raw *oh, __nv_fp4x2_storage_t *o4,
                        __nv_fp8_storage_t *oe8)
{
    int i = threadIdx.x;
    float2 v = f[i];
    o8[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    o8b[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
    o8b[i + 64] = __nv_cvt_halfraw2_to_fp8x2(__half2_raw(h[i]), __NV_SATFINITE, __NV_E4M3);
    oh[i] = __nv_cvt_fp8x2_to_halfraw2(o8[i + 1], __NV_E4M3);
    o4[i] = __nv_cvt_float2_to_fp4x2(v, __NV_E2M1, cudaRoundNearest);
    oe8[i] = __nv_cvt_float_to_e8m0(v.x, __NV_SATFINITE, cudaRoundZero);
#if __CUDA_ARCH__ >= 900
    unsigned short r;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(v.x), "f"(v.y));
    o8[i + 64] = r;
#endif
}
