// RUN: %corpus-check %s
// 36-rdc-linkage.cu
// PTX features meant to be emitted (separate compilation, -rdc=true):
//   - .extern .global / .extern .const variables (extern __device__ /
//     extern __constant__ defined in another translation unit)
//   (Calls to extern device functions are left out: the harness runs ptxas
//   in whole-program mode, which rejects unresolved extern functions but
//   accepts unresolved, sized extern variables with a warning; an unsized
//   extern array is rejected as well. .extern .func itself
//   appears for vprintf / __assertfail in 11-trap-printf-assert.cu.)
//   - .visible .func (externally visible device functions in rdc mode)
//   - .weak .func / .weak .global for inline functions, template
//     instantiations and inline variables (C++17) emitted in every TU
//   - .visible .global definitions, .global without .visible (static)
//   - // .globl directives for functions and variables
// NVCC-EXTRA-FLAGS: -rdc=true -std=c++17

extern __device__ int ext_counter;
extern __device__ float ext_table[256];
extern __constant__ double ext_coeffs[16];

__device__ int visible_global = 7;
static __device__ int static_global = 9;
inline __device__ int inline_variable = 11;

template <typename T>
__device__ T twice(T v) { return v + v; }

template <typename T>
__device__ __noinline__ T noinline_twice(T v) { return v * 2; }

inline __device__ __noinline__ int inline_noinline(int v) { return v * 31 + 1; }

__device__ __noinline__ int visible_function(int x, int y)
{
    return x * y + ext_counter;
}

static __device__ __noinline__ int internal_function(int x)
{
    return x - static_global;
}

__global__ void uses_externals(int *out, float *fout)
{
    int t = threadIdx.x;
    int a = (int)ext_table[t];
    float4 v = make_float4(ext_table[t + 1], 2.0f, 3.0f, (float)t);
    out[t] = a + visible_function(t, visible_global) + internal_function(t) + inline_variable +
             noinline_twice(t) + inline_noinline(t) + twice(t);
    fout[t] = v.x + v.w + (float)ext_coeffs[t & 15] + noinline_twice(1.5f) + twice(0.5f);
    atomicAdd(&ext_counter, 1);
}
