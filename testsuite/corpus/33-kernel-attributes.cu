// RUN: %corpus-check %s
// 33-kernel-attributes.cu
// PTX features meant to be emitted (performance-tuning directives between
// the entry's param list and its body):
//   - .maxntid 256, 1, 1            (__launch_bounds__(256))
//   - .maxntid 128, 1, 1 + .minnctapersm 4   (__launch_bounds__(128, 4))
//   - .maxclusterrank 4             (__launch_bounds__(256, 2, 4), sm_90+)
//   - .maxnreg 64                   (__maxnreg__(64))
//   - .explicitcluster + .reqnctapercluster X, Y, Z (__cluster_dims__, sm_90+)
//   - .noreturn on a [[noreturn]] __noinline__ .func
//   - .entry with several directives combined; .func with .noreturn and params
// EXTRA-ARCHS: sm_75

#if __CUDA_ARCH__ >= 900
#define BOUNDS_CLUSTER __launch_bounds__(256, 2, 4)
#define CLUSTER_DIMS __cluster_dims__(2, 2, 1)
#define CLUSTER_DIMS_1D __cluster_dims__(4)
#else
#define BOUNDS_CLUSTER __launch_bounds__(256, 2)
#define CLUSTER_DIMS
#define CLUSTER_DIMS_1D
#endif

__global__ void __launch_bounds__(256) bounded_256(float *p)
{
    p[blockIdx.x * 256 + threadIdx.x] *= 2.0f;
}

__global__ void __launch_bounds__(128, 4) bounded_128_min4(const float *a, float *b)
{
    int i = blockIdx.x * 128 + threadIdx.x;
    b[i] = a[i] * a[i] + 1.0f;
}

__global__ void BOUNDS_CLUSTER bounded_cluster(int *p)
{
    p[blockIdx.x * blockDim.x + threadIdx.x] += 1;
}

__global__ void __maxnreg__(64) limited_registers(const double *a, double *b, int n)
{
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = threadIdx.x; i < n; i += blockDim.x)
#pragma unroll
        for (int k = 0; k < 8; k++)
            acc[k] += a[i * 8 + k] * (double)(k + 1);
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < 8; k++)
        s += acc[k];
    b[threadIdx.x] = s;
}

__global__ void __maxnreg__(32) limited_registers_32(int *p)
{
    p[threadIdx.x] = p[threadIdx.x + 32] * 3;
}

__global__ void CLUSTER_DIMS clustered_2x2(float *p)
{
    p[blockIdx.y * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

__global__ void CLUSTER_DIMS_1D __launch_bounds__(64) clustered_bounded(float *p)
{
    p[blockIdx.x * 64 + threadIdx.x] = 2.0f;
}

[[noreturn]] __device__ __noinline__ void abort_with(int code, const char *why)
{
    printf("abort %d: %s\n", code, why);
    __trap();
}

__device__ __noinline__ __attribute__((noreturn)) void abort_plain()
{
    asm volatile("trap;");
    __builtin_unreachable();
}

__global__ void __launch_bounds__(32, 1) uses_noreturn(const int *a, int *b)
{
    int v = a[threadIdx.x];
    if (v < 0)
        abort_with(v, "negative input");
    if (v == 12345)
        abort_plain();
    b[threadIdx.x] = v * 2;
}
