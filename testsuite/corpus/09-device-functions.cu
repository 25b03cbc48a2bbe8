// RUN: %corpus-check %s
// 09-device-functions.cu
// PTX features meant to be emitted:
//   - .func with several .param inputs and a .param return
//     (.func (.param .b32 func_retval0) name(.param .b32 p0, ...))
//   - struct returns larger than 8 bytes: .param .align 8 .b8 func_retval0[24]
//   - aligned/vector params: .param .align 16 .b8 x[16] (float4), .align 8
//   - call.uni (retval0), name, (param0, param1, ...); with st.param / ld.param
//     staging, st.param.v4 / ld.param.v2 vector staging
//   - recursion (a __noinline__ function calling itself)
//   - .noreturn on a [[noreturn]] __noinline__ function
//   - .weak-free internal functions: static __device__ -> .func without .visible
// EXTRA-ARCHS: sm_75

struct Triple {
    double a, b, c;
};

struct Mixed {
    char tag;
    int count;
    float weight;
    short flags[3];
};

struct alignas(16) Quad {
    int x, y, z, w;
};

__device__ __noinline__ int add3(int a, int b, int c)
{
    return a * 3 + b * 2 + c;
}

__device__ __noinline__ double mix(float f, double d, long long l, char c, short s,
                                   unsigned char uc, bool flag)
{
    double r = f * d + (double)l;
    if (flag)
        r += c * s;
    return r - uc;
}

__device__ __noinline__ Triple make_triple(double x, int n)
{
    Triple t;
    t.a = x;
    t.b = x * n;
    t.c = x / (n + 1);
    return t;
}

__device__ __noinline__ Mixed make_mixed(const int *p)
{
    Mixed m;
    m.tag = (char)p[0];
    m.count = p[1];
    m.weight = (float)p[2] * 0.5f;
    m.flags[0] = (short)p[3];
    m.flags[1] = (short)p[4];
    m.flags[2] = (short)p[5];
    return m;
}

__device__ __noinline__ float4 scale4(float4 v, float s)
{
    return make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

__device__ __noinline__ int quad_sum(Quad q, double2 d, int2 i2)
{
    return q.x + q.y + q.z + q.w + (int)(d.x + d.y) + i2.x * i2.y;
}

__device__ __noinline__ void outputs(int in, int *a, float *b, double &c)
{
    *a = in + 1;
    *b = (float)in * 0.25f;
    c = (double)in * 3.0;
}

__device__ __noinline__ bool is_small(long long v)
{
    return v > -100 && v < 100;
}

// Recursion.
__device__ __noinline__ unsigned long long fib(int n)
{
    if (n < 2)
        return (unsigned long long)n;
    return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int ackermann_ish(int m, int n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann_ish(m - 1, 1);
    return ackermann_ish(m - 1, ackermann_ish(m, n - 1) & 7);
}

// Internal linkage: no .visible on the .func.
static __device__ __noinline__ int internal_helper(int x)
{
    return x * x - 1;
}

[[noreturn]] __device__ __noinline__ void fatal_error(int code)
{
    printf("fatal error %d\n", code);
    __trap();
}

__global__ void call_everything(const int *in, int *oi, double *od, float4 *of4,
                                Triple *ot, Mixed *om)
{
    int t = threadIdx.x;
    oi[t] = add3(in[t], in[t + 1], in[t + 2]);
    od[t] = mix((float)in[t], 1.5, (long long)in[t + 3], (char)t, (short)in[t + 4],
                (unsigned char)in[t + 5], in[t] > 0);
    ot[t] = make_triple((double)in[t], in[t + 6]);
    om[t] = make_mixed(in + t);
    of4[t] = scale4(of4[t + 32], 0.5f);
    Quad q = {in[t], in[t + 1], in[t + 2], in[t + 3]};
    oi[t + 32] = quad_sum(q, make_double2(od[t], od[t + 1]), make_int2(in[t], 7));
    int a;
    float b;
    double c;
    outputs(in[t + 8], &a, &b, c);
    oi[t + 64] = a + (int)b + (int)c;
    oi[t + 96] = is_small((long long)in[t]) ? 1 : 0;
    oi[t + 128] = (int)fib(in[t] & 15);
    oi[t + 160] = ackermann_ish(in[t] & 3, in[t + 1] & 3);
    oi[t + 192] = internal_helper(in[t + 9]);
    if (in[t] == -12345)
        fatal_error(in[t + 1]);
}
