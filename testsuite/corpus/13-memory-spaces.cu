// RUN: %corpus-check %s
// 13-memory-spaces.cu
// PTX features meant to be emitted:
//   - ld/st in every state space: .global, .shared, .local, .const, .param,
//     and generic (no space); cvta / cvta.to.* conversions
//   - ld.global.nc (__ldg and const __restrict__ pointers), ld.volatile,
//     st.volatile (volatile pointers, shared and global)
//   - local depot: .local .align 8 .b8 __local_depot0[N]; mov.u64 %SPL,
//     __local_depot0; cvta.local; dynamically-indexed local arrays
//   - isspacep.global/.shared/.local/.const (__isGlobal ...), cvta.to.shared
//     via __cvta_generic_to_shared, mov.u32 of a shared symbol address
//   - prefetch.global.L1/.L2, prefetchu.L1 (inline asm), applypriority
//   - ld.const with an offset from a __constant__ symbol, ld.param of a
//     kernel struct param whose address escapes (param copied to local)
// EXTRA-ARCHS: sm_75

__constant__ float c_coeffs[64];
__constant__ int c_scalar;
__device__ float g_table[256];
__device__ volatile int g_flag;

struct Params {
    int n;
    float scale;
    int offsets[6];
};

__global__ void spaces(const float *__restrict__ in, float *__restrict__ out, Params p)
{
    __shared__ float tile[128];
    int t = threadIdx.x;
    tile[t] = in[t] * c_coeffs[t & 63] + g_table[t & 255];
    __syncthreads();
    float acc = tile[(t + 1) & 127] * p.scale;
    // param array indexed dynamically: nvcc copies the param to local/generic
    acc += (float)p.offsets[t % 6];
    out[t] = acc + (float)c_scalar;
}

__global__ void ldg_volatile(const int *in, int *out, volatile int *vflag)
{
    int t = threadIdx.x;
    int a = __ldg(in + t);
    int4 b = __ldg(reinterpret_cast<const int4 *>(in) + t + 64);
    float2 c = __ldg(reinterpret_cast<const float2 *>(in) + t + 512);
    double d = __ldg(reinterpret_cast<const double *>(in) + t + 1024);
    volatile __shared__ int vs[32];
    vs[t & 31] = a;
    int v = vs[(t + 3) & 31];
    *vflag = v;
    g_flag = a;
    while (*vflag == 12345) {
    }
    out[t] = a + b.x + b.w + (int)c.y + (int)d + g_flag;
}

// Dynamically indexed local array -> local depot.
__global__ void local_depot(const int *idx, const float *in, float *out)
{
    float buf[32];
    double dbuf[8];
    int t = threadIdx.x;
#pragma unroll 1
    for (int k = 0; k < 32; k++)
        buf[k] = in[t * 32 + k];
#pragma unroll 1
    for (int k = 0; k < 8; k++)
        dbuf[k] = (double)buf[idx[k] & 31];
    out[t] = buf[idx[t] & 31] + (float)dbuf[idx[t + 1] & 7];
}

__device__ __noinline__ int space_of(const void *p)
{
    return (__isGlobal(p) ? 1 : 0) | (__isShared(p) ? 2 : 0) | (__isLocal(p) ? 4 : 0) |
           (__isConstant(p) ? 8 : 0);
}

__global__ void generic_pointers(int *out, int sel)
{
    __shared__ int sh[32];
    int loc[4] = {1, 2, 3, 4};
    int t = threadIdx.x;
    sh[t & 31] = t;
    const void *p = sel == 0 ? (const void *)out
                  : sel == 1 ? (const void *)sh
                  : sel == 2 ? (const void *)&loc[t & 3]
                             : (const void *)c_coeffs;
    out[t] = space_of(p);
    unsigned saddr = (unsigned)__cvta_generic_to_shared(sh + (t & 31));
    int v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(saddr));
    const int *gp = sel ? (const int *)sh : loc;   // generic loads
    out[t + 32] = v + gp[t & 3];
}

__global__ void prefetching(const float *in, float *out)
{
    int t = threadIdx.x;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(in + t + 256));
    asm volatile("prefetch.global.L1 [%0];" ::"l"(in + t + 512));
    asm volatile("prefetchu.L1 [%0];" ::"l"(in + t + 768));
#if __CUDA_ARCH__ >= 800
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(in + t + 1024));
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(out));
#endif
    out[t] = in[t];
}
