// Odds and ends that the transformations must carry through unchanged:
// 64-bit integer and double arithmetic, half and bf16 arithmetic (scalar and
// paired), local-memory arrays indexed by data, calls to __noinline__
// functions (that do not read blockIdx: the passes only rewrite the kernel
// body), and one kernel whose callee does read blockIdx, which colocc refuses
// on purpose.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Signed and unsigned 64-bit arithmetic and double math per element.
extern "C" __global__ void misc_i64_math(long long *out, double *dout, const long long *a,
                                         const long long *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i], y = b[i];
    long long d = (y >> 20) | 1; /* odd, never 0 */
    if (d == -1)
        d = 3; /* LLONG_MIN / -1 would overflow */
    long long q = x / d, r = x % d;
    unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y | 1ull;
    unsigned long long uq = ux / uy, ur = ux % uy;
    long long hi = __mul64hi(x, y);
    unsigned long long uhi = __umul64hi(ux, uy);
    long long sh = (x >> (y & 63)) ^ (long long)(ux << (x & 63));
    long long mn = min(x, y), mx = max(x, y);
    out[6 * i + 0] = q ^ r;
    out[6 * i + 1] = (long long)(uq + ur);
    out[6 * i + 2] = (long long)((unsigned long long)hi + uhi);
    out[6 * i + 3] = sh;
    out[6 * i + 4] = (long long)((unsigned long long)mn - (unsigned long long)(mx >> 1));
    out[6 * i + 5] = llabs(x >> 1) + __popcll(ux) + __ffsll(y);
    double fx = __ll2double_rn(x) * 0x1p-63, fy = (double)(y >> 11) * 0x1p-52;
    dout[2 * i + 0] = fma(fx, fy, sqrt(fabs(fx))) + exp(fy) - log1p(fabs(fx));
    dout[2 * i + 1] = (double)__double2ll_rz(fx * 1e15) + ldexp(fy, (int)(ux & 15));
}
// CASE: name=misc_i64_math_40x256 kernel=misc_i64_math grid=40 block=256
// PARAM: buf i64 60000 zero
// PARAM: buf f64 20000 zero
// PARAM: buf i64 10000 rand
// PARAM: buf i64 10000 rand
// PARAM: i32 10000
// CASE: name=misc_i64_math_small kernel=misc_i64_math grid=3,1,1 block=33
// PARAM: buf i64 594 zero
// PARAM: buf f64 198 zero
// PARAM: buf i64 99 randint:-5:5
// PARAM: buf i64 99 randint:-3:3
// PARAM: i32 99

// Half and bf16 arithmetic: scalar add/sub/mul/fma/min/max/neg, paired
// (half2, bfloat162) operations, comparisons and conversions.  n is even.
extern "C" __global__ void misc_half_bf16(__half *hout, __nv_bfloat16 *bout, const __half *ha,
                                          const __half *hb, const __nv_bfloat16 *ba,
                                          const __nv_bfloat16 *bb, int n)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x; /* pair index */
    if (2 * p >= n)
        return;
    __half2 a2 = __halves2half2(ha[2 * p], ha[2 * p + 1]);
    __half2 b2 = __halves2half2(hb[2 * p], hb[2 * p + 1]);
    __half2 f2 = __hfma2(a2, b2, __hmul2(a2, a2));
    f2 = __hsub2(f2, __hadd2(b2, __float2half2_rn(0.25f)));
    __half s = __hfma(ha[2 * p], hb[2 * p + 1], __hneg(hb[2 * p]));
    s = __hmax(s, __hmin(ha[2 * p + 1], __float2half(0.5f)));
    if (__hlt(s, __low2half(f2)))
        s = __hadd(s, __high2half(f2));
    hout[2 * p] = __hmul(s, __float2half(1.5f));
    hout[2 * p + 1] = __hadd(__low2half(f2), __high2half(f2));

    __nv_bfloat162 c2 = __halves2bfloat162(ba[2 * p], ba[2 * p + 1]);
    __nv_bfloat162 d2 = __halves2bfloat162(bb[2 * p], bb[2 * p + 1]);
    __nv_bfloat162 g2 = __hfma2(c2, d2, __hmul2(d2, d2));
    __nv_bfloat16 t = __hsub(__low2bfloat16(g2), __high2bfloat16(g2));
    t = __hmax(t, __float2bfloat16(__half2float(s)));
    float mix = __bfloat162float(t) + __half2float(hout[2 * p + 1]);
    bout[2 * p] = __float2bfloat16_rn(mix);
    bout[2 * p + 1] = __hadd(__hmul(ba[2 * p], bb[2 * p + 1]), __hneg(t));
}
// CASE: name=misc_half_bf16_25x200 kernel=misc_half_bf16 grid=25 block=200
// PARAM: buf f16 10000 zero
// PARAM: buf bf16 10000 zero
// PARAM: buf f16 10000 rand
// PARAM: buf f16 10000 rand
// PARAM: buf bf16 10000 rand
// PARAM: buf bf16 10000 rand
// PARAM: i32 10000
// CASE: name=misc_half_bf16_ints kernel=misc_half_bf16 grid=1000 block=32
// PARAM: buf f16 20000 zero
// PARAM: buf bf16 20000 zero
// PARAM: buf f16 20000 randint:-8:8
// PARAM: buf f16 20000 randint:-8:8
// PARAM: buf bf16 20000 randint:-100:100
// PARAM: buf bf16 20000 randint:-100:100
// PARAM: i32 20000

// A per-thread array in local memory, written and read at indices that
// come from the data (masked into range), then insertion-sorted in place.
extern "C" __global__ void misc_local_array(unsigned *out, const unsigned *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned arr[40];
    unsigned seed = in[i];
    for (int k = 0; k < 40; k++)
        arr[k] = seed * (unsigned)(k + 1) ^ (seed >> (k & 15));
    for (int k = 0; k < 64; k++) {
        unsigned v = in[(i + k) % n];
        unsigned j = v % 40u, l = (v >> 8) % 40u;
        arr[j] += arr[l] ^ (unsigned)k;
    }
    for (int k = 1; k < 40; k++) {
        unsigned key = arr[k];
        int j = k - 1;
        while (j >= 0 && arr[j] > key) {
            arr[j + 1] = arr[j];
            j--;
        }
        arr[j + 1] = key;
    }
    unsigned pick = in[i] % 40u;
    out[2 * i] = arr[pick];
    out[2 * i + 1] = arr[0] ^ arr[39] ^ arr[(pick * 7u) % 40u];
}
// CASE: name=misc_local_array_30x128 kernel=misc_local_array grid=30 block=128
// PARAM: buf u32 7680 zero
// PARAM: buf u32 3800 rand
// PARAM: i32 3800
// CASE: name=misc_local_array_500x1 kernel=misc_local_array grid=500 block=1
// PARAM: buf u32 1000 zero
// PARAM: buf u32 500 randint:0:1000
// PARAM: i32 500

// Calls to __noinline__ functions: a polynomial, a bounded loop that calls
// another function, and a recursive function.  The block index reaches the
// callees only as an argument.
__device__ __noinline__ float poly_eval(const float *coef, int deg, float x)
{
    float r = coef[deg];
    for (int k = deg - 1; k >= 0; k--)
        r = fmaf(r, x, coef[k]);
    return r;
}
__device__ __noinline__ unsigned mix_step(unsigned h, unsigned v)
{
    h ^= v * 0xcc9e2d51u;
    h = (h << 13) | (h >> 19);
    return h * 5u + 0xe6546b64u;
}
__device__ __noinline__ unsigned mix_many(unsigned seed, unsigned block, int rounds)
{
    unsigned h = seed ^ block;
    for (int k = 0; k < rounds; k++)
        h = mix_step(h, (unsigned)k + block);
    return h;
}
__device__ __noinline__ unsigned gcd_rec(unsigned a, unsigned b)
{
    return b == 0 ? a : gcd_rec(b, a % b);
}
extern "C" __global__ void misc_noinline(float *out, unsigned *hout, const float *in,
                                         const float *coef, const unsigned *keys, int n, int deg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = poly_eval(coef, deg, in[i]);
    unsigned h = mix_many(keys[i], blockIdx.x, (int)(keys[i] & 7u) + 1);
    hout[2 * i] = h;
    hout[2 * i + 1] = gcd_rec(keys[i] | 1u, (h & 0xffffu) + 1u) + (unsigned)blockIdx.x;
}
// CASE: name=misc_noinline_50x64 kernel=misc_noinline grid=50 block=64
// PARAM: buf f32 3000 zero
// PARAM: buf u32 6000 zero
// PARAM: buf f32 3000 rand
// PARAM: buf f32 8 rand
// PARAM: buf u32 3000 rand
// PARAM: i32 3000
// PARAM: i32 7
// CASE: name=misc_noinline_2000x8 kernel=misc_noinline grid=2000 block=8
// PARAM: buf f32 15999 zero
// PARAM: buf u32 31998 zero
// PARAM: buf f32 15999 rand
// PARAM: buf f32 4 rand
// PARAM: buf u32 15999 rand
// PARAM: i32 15999
// PARAM: i32 3

// A callee that reads blockIdx itself: colocc only rewrites %ctaid in the
// kernel body, so it refuses slice and ptb for this kernel ("callee reads
// %ctaid or %nctaid").  Kept to show the refusal; the original still runs.
__device__ __noinline__ unsigned block_salt(unsigned v)
{
    return v * 2654435761u + blockIdx.x * 40503u + gridDim.x;
}
extern "C" __global__ void misc_callee_reads_ctaid(unsigned *out, const unsigned *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = block_salt(in[i]);
}
// CASE: name=misc_callee_reads_ctaid_refused kernel=misc_callee_reads_ctaid grid=20 block=64 flags=no-slice,no-ptb
// PARAM: buf u32 1280 zero
// PARAM: buf u32 1280 rand
// PARAM: i32 1250
