// RUN: %corpus-check %s
// 34-kernel-params.cu
// PTX features meant to be emitted:
//   - kernels with very many params (.param list of 40+ entries with
//     .u8/.u16/.u32/.u64/.f32/.f64 types)
//   - struct params by value: .param .align 1/2/4/8/16 .b8 name[N]
//     (char-only, short, mixed, double, float4-containing, nested arrays)
//   - __grid_constant__ struct params whose address is taken
//     (mov.b64 %rd, name_param_0; cvta.param.u64)
//   - unions, bool / half / bf16 / __int128 scalar params
//   - ld.param.v2 / ld.param.v4 vector param loads, ld.param.u8 / .s8
//   - extern "C" kernel with mixed params
// EXTRA-ARCHS: sm_75 sm_120

#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct Bytes3 {
    char a, b, c;
};
struct Shorts {
    short s[3];
};
struct Mixed {
    char tag;
    int value;
    double weight;
    short code;
};
struct alignas(16) Vec {
    float4 v;
    int id;
};
struct Nested {
    Bytes3 b[2];
    Mixed m;
    int arr[5];
};
union Bits {
    float f;
    unsigned u;
    unsigned char bytes[4];
};

__global__ void many_params(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,
                            float f0, float f1, float f2, float f3, double d0, double d1,
                            long long l0, unsigned long long u0, char c0, unsigned char uc0,
                            short s0, unsigned short us0, bool b0, bool b1, int *p0, float *p1,
                            const double *p2, int a8, int a9, int a10, int a11, int a12,
                            int a13, int a14, int a15, float f4, float f5, float f6, float f7,
                            double d2, double d3, int *out)
{
    long long r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 +
                  a14 + a15 + l0 + (long long)u0 + c0 + uc0 + s0 + us0 + b0 + b1;
    double f = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + d0 + d1 + d2 + d3;
    out[threadIdx.x] = (int)r + (int)f + p0[threadIdx.x] + (int)p1[threadIdx.x] +
                       (int)p2[threadIdx.x];
}

__global__ void struct_params(Bytes3 b, Shorts s, Mixed m, Vec v, Nested n, Bits u, int *out)
{
    int t = threadIdx.x;
    out[t] = b.a + b.b + b.c + s.s[0] + s.s[2] + m.tag + m.value + (int)m.weight + m.code +
             (int)v.v.x + (int)v.v.w + v.id + n.b[1].c + n.m.value + n.arr[t % 5] +
             (int)u.u + u.bytes[3];
}

__global__ void grid_constant_params(const __grid_constant__ Nested n,
                                     const __grid_constant__ Mixed m, int *out)
{
    const Nested *pn = &n;          // address of the parameter itself
    const int *arr = n.arr;
    out[threadIdx.x] = pn->arr[threadIdx.x % 5] + arr[(threadIdx.x + 1) % 5] + m.value +
                       (&m)->code;
}

__global__ void odd_scalars(__half h, __nv_bfloat16 bf, __half2 h2, __int128 big,
                            unsigned __int128 ubig, float2 f2, double2 d2, char4 c4, int *out)
{
    float r = __half2float(h) + __bfloat162float(bf) + __low2float(h2) + f2.x + f2.y +
              (float)d2.y + c4.x + c4.w;
    __int128 q = big * 3 + (__int128)ubig;
    out[threadIdx.x] = (int)r + (int)(q >> 64) + (int)q;
}

extern "C" __global__ void c_kernel_params(const float *__restrict__ in, float *__restrict__ out,
                                           int n, float scale, double bias, unsigned char flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * scale + (float)bias + (float)(flags & 1);
}
