// RUN: %corpus-check %s
// 01-vecadd-basic.cu
// PTX features meant to be emitted:
//   - .visible .entry with mangled names and extern "C" names
//   - a kernel with zero params (.entry name() with an empty param list)
//   - ld.param / cvta.to.global / ld.global / st.global / mad.lo / mul.wide
//   - %tid/%ntid/%ctaid/%nctaid special registers, grid-stride loop
//   - setp + @%p bra, ret
// EXTRA-ARCHS: sm_75 sm_120

__device__ int g_counter;

// Zero-parameter kernel: PTX gets "(\n)" or "()" after the entry name.
__global__ void zero_params()
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        g_counter = 0;
}

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Grid-stride loop over doubles, 64-bit induction variable.
__global__ void vecadd_stride(const double *a, const double *b, double *c, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy_c(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// 3-D index computation uses every component of tid/ntid/ctaid/nctaid.
extern "C" __global__ void index3d(int *out)
{
    unsigned tx = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned ty = threadIdx.y + blockIdx.y * blockDim.y;
    unsigned tz = threadIdx.z + blockIdx.z * blockDim.z;
    unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
    out[(tz * h + ty) * w + tx] = (int)(tx ^ ty ^ tz);
}
