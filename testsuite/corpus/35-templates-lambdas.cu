// RUN: %corpus-check %s
// 35-templates-lambdas.cu
// PTX features meant to be emitted:
//   - template kernels instantiated for several types and values: long
//     mangled names (_Z...IfLi4EE...), one .entry per instantiation
//   - lambdas: device lambdas inside kernels, __device__ extended lambdas
//     passed from host-side templates (--extended-lambda), generic lambdas;
//     closure types mangled into kernel names
//     (_Z12apply_kernelIZ19instantiate_lambdasPfifEUlfiE_EvS0_iT_)
//   - functors with operator(), variadic templates, if constexpr
//   - static __device__ functions/variables and anonymous namespaces:
//     internal linkage (.func / .global without .visible)
//   - __forceinline__ vs __noinline__ template device functions
//     (.func for each instantiation)
// NVCC-EXTRA-FLAGS: --extended-lambda -std=c++17
// EXTRA-ARCHS: sm_75

#include <cstdint>
#include <type_traits>

template <typename T, int N>
__global__ void scale_vec(T *data, T factor)
{
    int i = blockIdx.x * blockDim.x * N + threadIdx.x;
#pragma unroll
    for (int k = 0; k < N; k++)
        data[i + k * blockDim.x] *= factor;
}

template __global__ void scale_vec<float, 4>(float *, float);
template __global__ void scale_vec<double, 2>(double *, double);
template __global__ void scale_vec<int, 8>(int *, int);
template __global__ void scale_vec<uint8_t, 1>(uint8_t *, uint8_t);

template <typename T>
__device__ __noinline__ T clamp_value(T v, T lo, T hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

template <typename T>
__device__ __forceinline__ T square(T v)
{
    return v * v;
}

struct AddOp {
    template <typename T>
    __device__ T operator()(T a, T b) const { return a + b; }
};

struct MaxOp {
    template <typename T>
    __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <typename Op, typename T>
__global__ void reduce_pairs(const T *in, T *out, Op op)
{
    int i = threadIdx.x;
    out[i] = op(in[2 * i], in[2 * i + 1]);
}

template __global__ void reduce_pairs<AddOp, float>(const float *, float *, AddOp);
template __global__ void reduce_pairs<MaxOp, int>(const int *, int *, MaxOp);
template __global__ void reduce_pairs<MaxOp, double>(const double *, double *, MaxOp);

// Variadic sum.
template <typename T>
__device__ T vsum(T v) { return v; }
template <typename T, typename... Rest>
__device__ T vsum(T v, Rest... rest) { return v + vsum(rest...); }

template <typename T>
__device__ T describe(T v)
{
    if constexpr (std::is_floating_point<T>::value)
        return v * (T)0.5;
    else
        return v >> 1;
}

// Internal linkage.
static __device__ int s_private_counter;
namespace {
__device__ float anon_table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
__device__ __noinline__ float anon_helper(float x) { return x * anon_table[1]; }
}
static __device__ __noinline__ int static_helper(int x) { return x ^ 0x5a5a; }

__global__ void lambdas_inside(const int *in, int *out, float *fout)
{
    int base = in[0];
    auto add_base = [base](int v) { return v + base; };
    auto generic = [&](auto v) { return v * 2 + (decltype(v))base; };
    int t = threadIdx.x;
    out[t] = add_base(in[t]) + generic(in[t + 1]) + clamp_value(in[t], -10, 10) +
             vsum(1, 2, in[t], 4) + describe(in[t]) + static_helper(in[t]) + square(t);
    fout[t] = generic(1.5f) + clamp_value(fout[t], 0.0f, 1.0f) + describe(3.0f) +
              anon_helper((float)t) + (float)clamp_value<double>(fout[t + 1], -1.0, 1.0);
    atomicAdd(&s_private_counter, 1);
}

// Extended (host-created) device lambdas passed to a template kernel.
template <typename F>
__global__ void apply_kernel(float *data, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = f(data[i], i);
}

void instantiate_lambdas(float *d, int n, float k)
{
    auto affine = [=] __device__(float x, int i) { return x * k + (float)i; };
    auto cube = [] __device__(float x, int) { return x * x * x; };
    apply_kernel<<<1, 1>>>(d, n, affine);
    apply_kernel<<<1, 1>>>(d, n, cube);
}
