// RUN: %corpus-check %s
// 03-float-arith.cu
// PTX features meant to be emitted:
//   - f32/f64 add/sub/mul/div (div.rn, div.full, div.approx), fma.rn, neg, abs
//   - rounding-mode arithmetic: add.rz/.ru/.rd, mul.rn/.rz, fma.ru, div.rd,
//     sqrt.rn/.rz, rcp.rn/.ru (f32 and f64)
//   - approximate functions: rcp.approx, sqrt.approx, rsqrt.approx (f32, f64),
//     sin.approx, cos.approx, ex2.approx, lg2.approx, tanh.approx
//   - .ftz and .sat modifiers, min/max (incl. .NaN on sm_80+), copysign, testp
//   - setp with every float compare: eq ne lt le gt ge equ neu ltu leu gtu
//     geu num nan; selp.f32 / selp.f64
//   - floating-point immediates in hex form (0f3F800000 / 0d3FF0000000000000)
// EXTRA-ARCHS: sm_75 sm_120

#include <cmath>

__global__ void f32_basic(const float *a, const float *b, float *o)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i], z = a[i + 1];
    o[i * 12 + 0] = x + y * 2.5f;
    o[i * 12 + 1] = x / y;
    o[i * 12 + 2] = fmaf(x, y, z);
    o[i * 12 + 3] = fminf(x, y) + fmaxf(y, z);
    o[i * 12 + 4] = fabsf(x) - (-y);
    o[i * 12 + 5] = sqrtf(x);
    o[i * 12 + 6] = copysignf(x, y);
    o[i * 12 + 7] = 1.0f / z;
    o[i * 12 + 8] = __saturatef(x * y);
    o[i * 12 + 9] = truncf(x) + floorf(y) + ceilf(z) + rintf(x * z);
    o[i * 12 + 10] = fdimf(x, y) + roundf(z);
}

__global__ void f32_rounding(const float *a, const float *b, float *o)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i], z = a[i + 1];
    o[i * 16 + 0] = __fadd_rn(x, y);
    o[i * 16 + 1] = __fadd_rz(x, y);
    o[i * 16 + 2] = __fadd_ru(x, y);
    o[i * 16 + 3] = __fadd_rd(x, y);
    o[i * 16 + 4] = __fmul_rz(x, y);
    o[i * 16 + 5] = __fmul_ru(x, z);
    o[i * 16 + 6] = __fsub_rd(x, z);
    o[i * 16 + 7] = __fmaf_ru(x, y, z);
    o[i * 16 + 8] = __fmaf_rz(x, y, z);
    o[i * 16 + 9] = __fdiv_rd(x, y);
    o[i * 16 + 10] = __fdiv_ru(x, z);
    o[i * 16 + 11] = __fsqrt_rz(x);
    o[i * 16 + 12] = __fsqrt_ru(y);
    o[i * 16 + 13] = __frcp_rn(z);
    o[i * 16 + 14] = __frcp_rd(y);
    o[i * 16 + 15] = __fdiv_rn(y, z);
}

__global__ void f32_approx(const float *a, float *o)
{
    int i = threadIdx.x;
    float x = a[i];
    o[i * 12 + 0] = __sinf(x);
    o[i * 12 + 1] = __cosf(x);
    o[i * 12 + 2] = __expf(x);
    o[i * 12 + 3] = __log2f(x);
    o[i * 12 + 4] = __logf(x);
    o[i * 12 + 5] = rsqrtf(x);
    o[i * 12 + 6] = __frsqrt_rn(x);
    o[i * 12 + 7] = __fdividef(x, o[i]);
    o[i * 12 + 8] = __powf(x, 1.7f);
    o[i * 12 + 9] = exp2f(x);
    float t, r, s;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    asm("sqrt.approx.f32 %0, %1;" : "=f"(s) : "f"(x));
    o[i * 12 + 10] = t + r + s;
    o[i * 12 + 11] = sinf(x) + cosf(x) + logf(x) + expf(x);
}

__global__ void f64_ops(const double *a, const double *b, double *o)
{
    int i = threadIdx.x;
    double x = a[i], y = b[i], z = a[i + 1];
    o[i * 16 + 0] = x * y + z;
    o[i * 16 + 1] = x / y;
    o[i * 16 + 2] = fma(x, y, z);
    o[i * 16 + 3] = fmin(x, y) + fmax(y, z);
    o[i * 16 + 4] = fabs(x) - (-y);
    o[i * 16 + 5] = sqrt(x);
    o[i * 16 + 6] = rsqrt(y);
    o[i * 16 + 7] = __drcp_rn(x);
    o[i * 16 + 8] = __dadd_rz(x, y) + __dmul_ru(y, z);
    o[i * 16 + 9] = __fma_rd(x, y, z);
    o[i * 16 + 10] = __ddiv_ru(x, z);
    o[i * 16 + 11] = __dsqrt_rd(z);
    o[i * 16 + 12] = copysign(x, y) + trunc(z) + floor(x) + ceil(y);
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    o[i * 16 + 13] = r;
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(y));
    o[i * 16 + 14] = r + 1.0;
    o[i * 16 + 15] = __dsub_rn(x, 3.25);
}

// Every floating compare; ordered and unordered forms plus num/nan tests.
__global__ void float_compares(const float *a, const double *d, int *o, float *of, double *od)
{
    int i = threadIdx.x;
    float x = a[i], y = a[i + 32];
    double p = d[i], q = d[i + 32];
    int m = 0;
    m |= (x == y) << 0;
    m |= (x != y) << 1;
    m |= (x < y) << 2;
    m |= (x <= y) << 3;
    m |= (x > y) << 4;
    m |= (x >= y) << 5;
    m |= !(x < y) << 6;   // geu
    m |= !(x <= y) << 7;  // gtu
    m |= !(x > y) << 8;   // leu
    m |= !(x >= y) << 9;  // ltu
    m |= !(x != y) << 10; // equ
    m |= isnan(x) << 11;  // nan
    m |= !isnan(y) << 12; // num
    m |= (p < q) << 13;
    m |= !(p >= q) << 14;
    m |= isnan(p) << 15;
    m |= (p == q) << 16;
    m |= isinf(x) << 17;
    m |= isfinite(p) << 18;
    m |= signbit(y) << 19;
    o[i] = m;
    of[i] = (x < y && !isnan(x)) ? x : y;
    od[i] = (p > q || p != p) ? p : q;
}

// PTX-only forms: testp, min.NaN, .ftz/.sat modifiers, fma.rn.sat.
__global__ void f32_inline(const float *a, float *o, int *oi)
{
    int i = threadIdx.x;
    float x = a[i], y = a[i + 1], r0, r1, r2;
    int t;
    asm("{\n\t.reg .pred p;\n\t"
        "testp.finite.f32 p, %1;\n\t"
        "selp.s32 %0, 1, 0, p;\n\t}" : "=r"(t) : "f"(x));
#if __CUDA_ARCH__ >= 800
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r0) : "f"(x), "f"(y));
#else
    r0 = fminf(x, y);
#endif
    asm("fma.rn.ftz.sat.f32 %0, %1, %2, %1;" : "=f"(r1) : "f"(x), "f"(y));
    asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(r2) : "f"(x), "f"(y));
    o[i] = r0 + r1 + r2;
    oi[i] = t;
}

// Unordered-equal, num and nan tests kept apart so they are not folded away.
__global__ void float_unordered(const float *a, float *o)
{
    int i = threadIdx.x;
    float x = a[i], y = a[i + 32], z = a[i + 64];
    o[i] = (!(x < y) && !(x > y)) ? z : x; // setp.equ
    o[i + 32] = (z != z) ? 0.0f : z;       // setp.nan
    o[i + 64] = (x == x) ? x : 1.0f;       // setp.num
    o[i + 96] = (x != z) ? y : z;      // setp.neu
    o[i + 128] = (x < z || x > z) ? y : z; // setp.ne (ordered)
    o[i + 160] = (y != y || z != z) ? x : 2.0f; // setp.nan
}
