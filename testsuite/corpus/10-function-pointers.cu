// RUN: %corpus-check %s
// 10-function-pointers.cu
// PTX features meant to be emitted:
//   - indirect calls: prototype_N : .callprototype (.param .b32 _) _ (.param .b32 _, ...);
//     call (retval0), %rd, (param0, param1), prototype_N;
//   - function addresses as values: mov.u64 %rd, fname;
//   - a __device__ array of function pointers initialised with function names
//     (.global .align 8 .u64 table[4] = {fa, fb, ...})
//   - virtual functions: vtables emitted as .global .align 8 .u64 _ZTV...[n]
//     = {0, 0, fn1, fn2}, calls through loaded vtable slots
//   - indirect calls with struct/vector arguments and no return value
// EXTRA-ARCHS: sm_75

#include <new>

typedef int (*binop_t)(int, int);
typedef float4 (*vecop_t)(float4, float);
typedef void (*sink_t)(int *, int);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor(int a, int b) { return a ^ b; }

__device__ binop_t g_ops[4] = {op_add, op_sub, op_mul, op_xor};

__device__ __noinline__ float4 v_scale(float4 v, float s)
{
    return make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

__device__ __noinline__ float4 v_shift(float4 v, float s)
{
    return make_float4(v.x + s, v.y + s, v.z + s, v.w + s);
}

__device__ __noinline__ void sink_a(int *p, int v) { p[0] = v; }
__device__ __noinline__ void sink_b(int *p, int v) { p[1] = v * 2; }

__global__ void table_dispatch(const int *sel, const int *a, int *o)
{
    int i = threadIdx.x;
    binop_t f = g_ops[sel[i] & 3];
    o[i] = f(a[i], a[i + 1]);
}

__global__ void local_pointers(const int *sel, const float4 *v, float4 *o, int *s)
{
    int i = threadIdx.x;
    vecop_t f = (sel[i] & 1) ? v_scale : v_shift;
    o[i] = f(v[i], 2.0f);
    sink_t g = (sel[i] & 2) ? sink_a : sink_b;
    g(s + 2 * i, sel[i]);
}

// Virtual dispatch.
struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual float scale(float k) { return k; }
    __device__ virtual ~Shape() {}
};

struct Rect : Shape {
    float w, h;
    __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
    __device__ float area() const override { return w * h; }
    __device__ float scale(float k) override { return k * w; }
};

struct Circle : Shape {
    float r;
    __device__ explicit Circle(float r_) : r(r_) {}
    __device__ float area() const override { return 3.14159265f * r * r; }
};

__device__ __noinline__ float total_area(Shape **shapes, int n, float k)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += shapes[i]->area() * shapes[i]->scale(k);
    return s;
}

__global__ void virtual_calls(const float *params, float *out)
{
    alignas(16) unsigned char buf0[sizeof(Rect)];
    alignas(16) unsigned char buf1[sizeof(Circle)];
    int i = threadIdx.x;
    Shape *s[2];
    if (params[i] > 0.0f) {
        s[0] = new (buf0) Rect(params[i], params[i + 1]);
        s[1] = new (buf1) Circle(params[i + 2]);
    } else {
        s[0] = new (buf1) Circle(params[i + 3]);
        s[1] = new (buf0) Rect(params[i + 4], 1.0f);
    }
    out[i] = total_area(s, 2, params[i + 5]);
}
