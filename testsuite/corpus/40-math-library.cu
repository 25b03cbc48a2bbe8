// RUN: %corpus-check %s
// 40-math-library.cu
// PTX features meant to be emitted (CUDA math library, inlined from
// libdevice):
//   - long straight-line polynomial code with many hex float/double
//     immediates (0f..., 0d...), fma.rn.f32/.f64 chains, mov.b32/.b64 bit
//     tricks, ex2.approx.ftz.f32, lg2.approx.ftz.f32, rcp.approx.ftz.f64,
//     rsqrt.approx.f64, cvt.rni, copysign, selp chains
//   - slow paths with local-memory arrays (Payne-Hanek reduction in
//     sinf/cos for huge arguments): __local_depot + ld.local/st.local,
//     initialised .global tables (__cudart_i2opi_f / __cudart_i2opi_d)
//   - float and double: sin cos tan exp exp2 exp10 expm1 log log2 log10
//     log1p pow sqrt cbrt hypot erf erfc lgamma tgamma atan2 asinh sinpi
//     sincos j0 fmod remainder frexp ldexp modf nextafter
// EXTRA-ARCHS: sm_75

#include <cmath>

__global__ void float_math(const float *in, float *out, int *oi)
{
    int t = threadIdx.x;
    float x = in[t], y = in[t + 64];
    float s, c;
    sincosf(x, &s, &c);
    int e;
    float ip;
    out[t * 16 + 0] = sinf(x) + cosf(y) + tanf(x);
    out[t * 16 + 1] = expf(x) + exp2f(y) + exp10f(x) + expm1f(y);
    out[t * 16 + 2] = logf(x) + log2f(y) + log10f(x) + log1pf(y);
    out[t * 16 + 3] = powf(x, y);
    out[t * 16 + 4] = cbrtf(x) + hypotf(x, y) + rhypotf(x, y);
    out[t * 16 + 5] = erff(x) + erfcf(y) + erfinvf(x * 0.5f);
    out[t * 16 + 6] = lgammaf(x) + tgammaf(y);
    out[t * 16 + 7] = atan2f(y, x) + asinhf(x) + acoshf(y + 2.0f) + atanhf(x * 0.1f);
    out[t * 16 + 8] = sinpif(x) + cospif(y) + s + c;
    out[t * 16 + 9] = fmodf(x, y) + remainderf(x, y) + remquof(x, y, &e);
    out[t * 16 + 10] = frexpf(x, &e) + ldexpf(y, e) + modff(x, &ip) + ip;
    out[t * 16 + 11] = nextafterf(x, y) + fdimf(x, y) + logbf(x) + (float)ilogbf(y);
    out[t * 16 + 12] = j0f(x) + y1f(y) + normcdff(x) + normcdfinvf(0.3f);
    out[t * 16 + 13] = asinf(x * 0.5f) + acosf(y * 0.25f) + atanf(x) + sinhf(y) + coshf(x) +
                       tanhf(y);
    out[t * 16 + 14] = rsqrtf(x) + rcbrtf(y) + norm3df(x, y, x) + scalbnf(x, 3);
    oi[t] = lrintf(x) + (int)llroundf(y) + e;
}

__global__ void double_math(const double *in, double *out)
{
    int t = threadIdx.x;
    double x = in[t], y = in[t + 64];
    double s, c;
    sincos(x, &s, &c);
    int e;
    out[t * 12 + 0] = sin(x) + cos(y) + tan(x);
    out[t * 12 + 1] = exp(x) + exp2(y) + exp10(x) + expm1(y);
    out[t * 12 + 2] = log(x) + log2(y) + log10(x) + log1p(y);
    out[t * 12 + 3] = pow(x, y);
    out[t * 12 + 4] = cbrt(x) + hypot(x, y) + sqrt(y) + rsqrt(x);
    out[t * 12 + 5] = erf(x) + erfc(y) + erfcinv(0.5 + x * 1e-3);
    out[t * 12 + 6] = lgamma(x) + tgamma(y);
    out[t * 12 + 7] = atan2(y, x) + asinh(x) + acosh(y + 2.0) + atanh(x * 0.1);
    out[t * 12 + 8] = sinpi(x) + cospi(y) + s + c;
    out[t * 12 + 9] = fmod(x, y) + remainder(x, y) + frexp(x, &e) + ldexp(y, e);
    out[t * 12 + 10] = nextafter(x, y) + j1(x) + yn(2, y) + cyl_bessel_i0(x);
    out[t * 12 + 11] = asin(x * 0.5) + acos(y * 0.25) + atan(x) + sinh(y) + cosh(x) + tanh(y);
}
