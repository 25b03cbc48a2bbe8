// RUN: %corpus-check %s
// 18-shared-memory.cu
// PTX features meant to be emitted:
//   - dynamic shared memory: .extern .shared .align 16 .b8 name[];
//     (several differently-typed extern __shared__ views, one alignas(128))
//   - static shared arrays of many types and alignments, "// demoted variable"
//     function-scope .shared declarations, 2-D shared tiles
//   - alignas(N) on shared and local variables: .shared .align 128 .b8 ...
//   - 32-bit shared addressing (mov.u32 %r, sym; ld.shared [%r+off])
//   - a transpose with padding (bank-conflict-free tile[32][33])
//   - shared memory used from a __noinline__ device function via generic
//     pointers (cvta.shared.u64)
// EXTRA-ARCHS: sm_75

struct alignas(16) Particle {
    float x, y, z;
    int id;
};

__global__ void dynamic_smem(const float *in, float *out, int n)
{
    extern __shared__ float dyn_f[];
    int t = threadIdx.x;
    dyn_f[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            dyn_f[t] += dyn_f[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = dyn_f[0] / n;
}

__global__ void dynamic_smem_aligned(const double *in, double *out)
{
    extern __shared__ __align__(128) unsigned char dyn_raw[];
    double *d = reinterpret_cast<double *>(dyn_raw);
    int *counts = reinterpret_cast<int *>(dyn_raw + blockDim.x * sizeof(double));
    int t = threadIdx.x;
    d[t] = in[t];
    counts[t] = t;
    __syncthreads();
    out[t] = d[blockDim.x - 1 - t] + counts[(t + 1) % blockDim.x];
}

__global__ void static_tiles(const float *in, float *out, int w, int h)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < w && y + j < h)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < h && y + j < w)
            out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void mixed_statics(const int *in, int *out)
{
    __shared__ char s_c[64];
    __shared__ short s_s[32];
    __shared__ long long s_ll[16];
    __shared__ double s_d[8];
    __shared__ alignas(128) int s_aligned[32];
    __shared__ Particle s_p[16];
    int t = threadIdx.x & 15;
    s_c[t] = (char)in[t];
    s_s[t] = (short)in[t + 16];
    s_ll[t] = (long long)in[t] << 33;
    s_d[t & 7] = (double)in[t];
    s_aligned[t] = in[t] * 2;
    s_p[t] = Particle{(float)t, 1.0f, 2.0f, in[t]};
    __syncthreads();
    Particle p = s_p[15 - t];
    out[threadIdx.x] = s_c[15 - t] + s_s[(t + 3) & 15] + (int)(s_ll[t] >> 33) + (int)s_d[t & 7] +
                       s_aligned[31 - t] + p.id + (int)p.x;
}

__device__ __noinline__ float sum_generic(const float *p, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}

__device__ float block_sum_helper(float v)
{
    static __shared__ float partial[32];   // function-scope static shared
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    return sum_generic(partial, (blockDim.x + 31) / 32);
}

__global__ void shared_through_generic(const float *in, float *out)
{
    alignas(16) float local[4] = {in[0], in[1], in[2], in[3]};
    out[threadIdx.x] = block_sum_helper(in[threadIdx.x]) + sum_generic(local, 4);
}
