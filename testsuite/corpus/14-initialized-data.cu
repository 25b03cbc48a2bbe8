// RUN: %corpus-check %s
// 14-initialized-data.cu
// PTX features meant to be emitted:
//   - .const .align 4 .b8 / .u32 / .f32 / .f64 arrays with initializers
//     (= {..}), partially initialised arrays, zero-initialised arrays (no
//     initializer), 2-D arrays, nested struct arrays emitted as .b8 byte lists
//   - .global initialised scalars and arrays of every width: .u8 .u16 .u32
//     .u64 .f32 .f64 and .b8 strings
//   - .global .align 8 .u64 p = generic(sym) (pointer to a __device__
//     variable), pointer arrays with generic(...) and offsets (generic(x)+8)
//   - __managed__ variables: .global .attribute(.managed) .align 4 .u32 m;
//   - a .const pointer table to constant data
//   - float/double immediates that are NaN / Inf / negative zero in hex form
// EXTRA-ARCHS: sm_75

#include <cstdint>
#include <cmath>

struct Inner {
    short s;
    char c;
    double d;
};

struct Outer {
    int id;
    Inner in[2];
    float f[3];
    const char *name;
};

__constant__ int c_ints[8] = {1, -2, 3, -4, 5, -6, 7, -8};
__constant__ float c_floats[6] = {0.5f, -1.25f, 3.0e10f, 1.0e-30f, INFINITY, -0.0f};
__constant__ double c_doubles[4] = {3.141592653589793, -2.5e-300, NAN, 1.0 / 3.0};
__constant__ int c_matrix[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
__constant__ unsigned char c_bytes[5] = {0xde, 0xad, 0xbe, 0xef, 0x01};
__constant__ int c_partial[16] = {42, 43};
__constant__ float c_zeroes[32];
__constant__ char c_message[] = "constant string\n";

__device__ Outer g_outer[2] = {
    {1, {{-1, 'a', 0.25}, {2, 'b', 1e100}}, {1.0f, 2.0f, 3.0f}, "first"},
    {2, {{300, 'z', -7.5}, {-4, '\t', 0.0}}, {-1.0f, 0.0f, 1.0f}, "second"},
};

__device__ uint8_t g_u8[4] = {1, 2, 250, 255};
__device__ int16_t g_s16[3] = {-32768, 0, 32767};
__device__ uint32_t g_u32 = 0xdeadbeefu;
__device__ int64_t g_s64[2] = {-1, 0x123456789abcdefLL};
__device__ float g_f32_2d[2][3] = {{1.5f, 2.5f, 3.5f}, {-1.5f, -2.5f, -3.5f}};
__device__ double g_f64 = 2.718281828459045;
__device__ float g_f32 = -1.5f;
__device__ float g_f32_inf = -INFINITY;
__device__ uint16_t g_u16 = 65535;
__device__ int8_t g_s8 = -3;
__device__ uint64_t g_u64 = 0xfedcba9876543210ULL;
__constant__ double c_f64 = -0.0;
__constant__ float c_nan = NAN;
__device__ bool g_flags[3] = {true, false, true};
__device__ char g_text[32] = "device text";

// Pointer variables initialised with addresses.
__device__ int g_target[4] = {10, 20, 30, 40};
__device__ int *g_ptr = g_target;
__device__ int *g_ptr_offset = &g_target[2];
__device__ int *g_ptr_table[3] = {&g_target[0], &g_target[1], &g_target[3]};
__device__ const char *g_strings[3] = {"alpha", "beta", "gamma"};
__device__ float *g_null = nullptr;
__constant__ const int *c_ptr_to_const = c_ints;

// Managed memory.
__managed__ int m_counter = 5;
__managed__ float m_values[16];
__managed__ double m_init[2] = {1.0, 2.0};

__global__ void read_all(float *of, double *od, int *oi, char *oc)
{
    int t = threadIdx.x;
    oi[t] = c_ints[t & 7] + c_matrix[t % 3][t & 3] + c_bytes[t % 5] + c_partial[t & 15] +
            g_u8[t & 3] + g_s16[t % 3] + (int)g_u32 + (int)g_s64[t & 1] + g_flags[t % 3] +
            *g_ptr + *g_ptr_offset + *g_ptr_table[t % 3] + c_ptr_to_const[t & 7] +
            g_outer[t & 1].id + g_outer[t & 1].in[t & 1].s + g_outer[t & 1].in[1].c;
    of[t] = c_floats[t % 6] + c_zeroes[t & 31] + g_f32_2d[t & 1][t % 3] +
            g_outer[t & 1].f[t % 3] + (g_null ? *g_null : 0.0f);
    od[t] = c_doubles[t & 3] + g_f64 + g_outer[t & 1].in[0].d + c_f64 +
            (double)(g_f32 + g_f32_inf + c_nan) + (double)(g_u16 + g_s8) + (double)g_u64;
    oc[t] = c_message[t & 15] + g_text[t & 31] + g_strings[t % 3][1] + g_outer[t & 1].name[0];
}

__global__ void use_managed(int n)
{
    int t = threadIdx.x;
    if (t < 16)
        m_values[t] = (float)(m_counter * t) + (float)m_init[t & 1];
    if (t == 0)
        atomicAdd(&m_counter, n);
    g_ptr = g_target + (n & 3);
}
