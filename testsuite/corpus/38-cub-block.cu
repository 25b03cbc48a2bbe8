// RUN: %corpus-check %s
// 38-cub-block.cu
// PTX features meant to be emitted (library-generated code):
//   - cub::BlockReduce / cub::BlockScan / cub::BlockRadixSort / WarpReduce
//     instantiations: long template-mangled .entry and .func names,
//     union-typed TempStorage in .shared (.align 16 .b8 ...[N]),
//     shfl.sync trees, bar.sync, redux.sync (sm_80+), bmsk in radix sort
//   - CCCL inline PTX helpers (lane masks, shfl with explicit clamp operands)
// NVCC-EXTRA-FLAGS: -std=c++17

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/warp/warp_reduce.cuh>

template <int THREADS>
__global__ void block_sum(const int *in, int *out)
{
    using Reduce = cub::BlockReduce<int, THREADS>;
    __shared__ typename Reduce::TempStorage tmp;
    int v = in[blockIdx.x * THREADS + threadIdx.x];
    int s = Reduce(tmp).Sum(v);
    if (threadIdx.x == 0)
        out[blockIdx.x] = s;
}

template __global__ void block_sum<128>(const int *, int *);
template __global__ void block_sum<256>(const int *, int *);

__global__ void block_scan_max(const float *in, float *out, float *maxes)
{
    using Scan = cub::BlockScan<float, 128>;
    using Reduce = cub::BlockReduce<float, 128, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    __shared__ union {
        typename Scan::TempStorage scan;
        typename Reduce::TempStorage reduce;
    } tmp;
    float v = in[blockIdx.x * 128 + threadIdx.x];
    float prefix;
    Scan(tmp.scan).ExclusiveSum(v, prefix);
    out[blockIdx.x * 128 + threadIdx.x] = prefix;
    __syncthreads();
    float m = Reduce(tmp.reduce).Reduce(v, cuda::maximum<>{});
    if (threadIdx.x == 0)
        maxes[blockIdx.x] = m;
}

__global__ void block_sort(const unsigned *keys, unsigned *sorted)
{
    using Sort = cub::BlockRadixSort<unsigned, 64, 4>;
    __shared__ typename Sort::TempStorage tmp;
    unsigned k[4];
    for (int i = 0; i < 4; i++)
        k[i] = keys[blockIdx.x * 256 + threadIdx.x * 4 + i];
    Sort(tmp).Sort(k);
    for (int i = 0; i < 4; i++)
        sorted[blockIdx.x * 256 + threadIdx.x * 4 + i] = k[i];
}

__global__ void warp_sums(const double *in, double *out)
{
    using WR = cub::WarpReduce<double>;
    __shared__ typename WR::TempStorage tmp[4];
    double v = in[blockIdx.x * blockDim.x + threadIdx.x];
    double s = WR(tmp[threadIdx.x / 32]).Sum(v);
    if ((threadIdx.x & 31) == 0)
        out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = s;
}
