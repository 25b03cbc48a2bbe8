// RUN: %corpus-check %s
// 07-control-flow.cu
// PTX features meant to be emitted:
//   - if/else diamonds, nested loops, while / do-while, break / continue
//   - .pragma "nounroll"; from #pragma unroll 1 (label-attached pragma)
//   - fully / partially unrolled loops (#pragma unroll 4)
//   - goto-style jumps, multiple exits, bra and bra.uni, predicated @%p / @!%p
//   - early return followed by __syncthreads (bar.sync 0 after a branch)
//   - many $L__BB labels, loops with 64-bit trip counts
// EXTRA-ARCHS: sm_75

__global__ void if_else(const int *a, int *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    if (x > 100)
        x = x * 3;
    else if (x < -100)
        x = -x;
    else
        x = x + 7;
    o[i] = x;
}

__global__ void loops(const float *a, float *o, int n, int m)
{
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        float v = a[i * m + threadIdx.x];
        if (v < 0.0f)
            continue;
        if (v > 1.0e6f)
            break;
        acc += v;
    }
    int k = 0;
    while (acc > 1.0f && k < 64) {
        acc *= 0.5f;
        k++;
    }
    do {
        acc += 1.0f;
    } while (acc < (float)k);
#pragma unroll 4
    for (int j = 0; j < m; j++)
        acc += a[j];
#pragma unroll
    for (int j = 0; j < 8; j++)
        acc = acc * 1.0001f + (float)j;
    o[threadIdx.x] = acc;
}

// Nested loops with no unroll, 64-bit trip counts.
__global__ void nested(const double *a, double *o, long long rows, long long cols)
{
    double s = 0.0;
#pragma unroll 1
    for (long long r = 0; r < rows; r++) {
#pragma unroll 1
        for (long long c = threadIdx.x; c < cols; c += blockDim.x)
            s += a[r * cols + c];
    }
    o[threadIdx.x] = s;
}

// goto-based control flow: search with an early exit and a retry label.
__global__ void goto_search(const int *a, int *o, int n, int key)
{
    int tries = 0;
    int idx;
retry:
    idx = threadIdx.x + tries;
    for (; idx < n; idx += blockDim.x) {
        if (a[idx] == key)
            goto found;
    }
    if (++tries < 3)
        goto retry;
    o[threadIdx.x] = -1;
    return;
found:
    o[threadIdx.x] = idx;
}

// Early return, then a barrier: the exiting threads skip the bar.sync.
__global__ void early_return_sync(float *data, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x >= (unsigned)n)
        return;
    tile[threadIdx.x] = data[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
#pragma unroll 1
        for (int k = 0; k < 256; k++)
            s += tile[k];
        tile[0] = s;
    }
    __syncthreads();
    data[i] = tile[0] - tile[threadIdx.x];
}

// Data-dependent loop with both a predicated store and a uniform branch.
__global__ void predicated(int *o, const int *a, int flag)
{
    int x = a[threadIdx.x];
    if (flag)            // uniform across the block -> bra.uni
        x <<= 1;
    if (x & 1)
        o[threadIdx.x] = x;   // predicated store
    else
        o[threadIdx.x + 32] = x;
}
