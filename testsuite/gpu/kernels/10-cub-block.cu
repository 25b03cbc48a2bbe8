// CUB block-level algorithms as library code uses them: BlockLoad/BlockStore
// (warp-transpose and transpose, with partial tiles), BlockReduce, BlockScan
// and BlockRadixSort.  Their temp storage is shared memory reused across
// barriers; their barriers are plain __syncthreads, which unisync handles.
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

// Per-block sums and maxima with both BlockReduce algorithms; the tile of
// the last block is partial (num_valid).
extern "C" __global__ void cub_block_reduce(int *sums, float *maxes, float *fsums, const int *in,
                                            const float *fin, int n)
{
    constexpr int T = 128;
    using RedRanks = cub::BlockReduce<int, T, cub::BLOCK_REDUCE_RAKING>;
    using RedWarps = cub::BlockReduce<float, T, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    __shared__ typename RedRanks::TempStorage ts_i;
    __shared__ typename RedWarps::TempStorage ts_f;
    int bid = blockIdx.x + gridDim.x * blockIdx.y;
    int base = bid * T * 2;
    int i0 = base + threadIdx.x, i1 = base + T + threadIdx.x;
    int valid = min(2 * T, max(0, n - base));

    int items[2] = {i0 < n ? in[i0] : 0, i1 < n ? in[i1] : 0};
    float fitem = i0 < n ? fin[i0] : -1e30f;
    int s = RedRanks(ts_i).Sum(items);
    __syncthreads();
    /* at least one valid item, so that an empty tail block still gets a defined value */
    float mx = RedWarps(ts_f).Reduce(fitem, cuda::maximum<>{}, max(1, min(T, n - base)));
    __syncthreads();
    float fs = RedWarps(ts_f).Sum(fitem > -1e29f ? fitem : 0.0f);
    if (threadIdx.x == 0) {
        sums[bid] = valid > 0 ? s : -1;
        maxes[bid] = mx;
        fsums[bid] = fs;
    }
}
// CASE: name=cub_block_reduce_40 kernel=cub_block_reduce grid=40 block=128
// PARAM: buf i32 40 zero
// PARAM: buf f32 40 zero
// PARAM: buf f32 40 zero
// PARAM: buf i32 10000 randint:-1000:1000
// PARAM: buf f32 10000 rand
// PARAM: i32 10000
// CASE: name=cub_block_reduce_9x7 kernel=cub_block_reduce grid=9,7 block=128
// PARAM: buf i32 63 zero
// PARAM: buf f32 63 zero
// PARAM: buf f32 63 zero
// PARAM: buf i32 16128 randint:-5:5
// PARAM: buf f32 16128 rand
// PARAM: i32 15000

// Inclusive sum, exclusive sum with the block aggregate, and an exclusive
// max scan, each on 4 items per thread loaded with BlockLoad (direct, then
// warp-transpose) and stored with BlockStore.
extern "C" __global__ void cub_block_scan(int *incl, int *excl, int *mscan, int *aggr,
                                          const int *in, int n)
{
    constexpr int T = 64, I = 4;
    using Load = cub::BlockLoad<int, T, I, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Store = cub::BlockStore<int, T, I, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    using Scan = cub::BlockScan<int, T>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
    } ts;
    int base = blockIdx.x * T * I;
    int valid = max(0, min(T * I, n - base));
    int items[I], out[I], aggregate;

    Load(ts.load).Load(in + base, items, valid, 0);
    __syncthreads();
    Scan(ts.scan).InclusiveSum(items, out);
    __syncthreads();
    Store(ts.store).Store(incl + base, out, valid);
    __syncthreads();
    Scan(ts.scan).ExclusiveSum(items, out, aggregate);
    __syncthreads();
    Store(ts.store).Store(excl + base, out, valid);
    __syncthreads();
    Scan(ts.scan).ExclusiveScan(items, out, INT_MIN, cuda::maximum<>{});
    __syncthreads();
    Store(ts.store).Store(mscan + base, out, valid);
    if (threadIdx.x == 0)
        aggr[blockIdx.x] = aggregate;
}
// CASE: name=cub_block_scan_37 kernel=cub_block_scan grid=37 block=64
// PARAM: buf i32 9472 zero
// PARAM: buf i32 9472 zero
// PARAM: buf i32 9472 zero
// PARAM: buf i32 37 zero
// PARAM: buf i32 9472 randint:-100:100
// PARAM: i32 9400
// CASE: name=cub_block_scan_1000 kernel=cub_block_scan grid=1000 block=64
// PARAM: buf i32 256000 zero
// PARAM: buf i32 256000 zero
// PARAM: buf i32 256000 zero
// PARAM: buf i32 1000 zero
// PARAM: buf i32 256000 randint:-1000000:1000000
// PARAM: i32 255999

// BlockRadixSort of (key, value) pairs, 4 per thread, blocked arrangement
// in and striped out; keys are full-range 32-bit integers, values their
// original positions.  The last tile is padded with the largest key.
extern "C" __global__ void cub_radix_sort(unsigned *keys_out, int *vals_out, const unsigned *keys,
                                          int n)
{
    constexpr int T = 128, I = 4;
    using Sort = cub::BlockRadixSort<unsigned, T, I, int>;
    __shared__ typename Sort::TempStorage ts;
    int base = blockIdx.x * T * I;
    unsigned k[I];
    int v[I];

    for (int j = 0; j < I; j++) {
        int i = base + threadIdx.x * I + j;
        k[j] = i < n ? keys[i] : 0xffffffffu;
        v[j] = i < n ? i : -1;
    }
    Sort(ts).SortBlockedToStriped(k, v);
    for (int j = 0; j < I; j++) {
        int i = base + j * T + threadIdx.x;
        if (i < n) {
            keys_out[i] = k[j];
            vals_out[i] = v[j];
        }
    }
}
// CASE: name=cub_radix_sort_20 kernel=cub_radix_sort grid=20 block=128
// PARAM: buf u32 10000 zero
// PARAM: buf i32 10000 zero
// PARAM: buf u32 10000 rand
// PARAM: i32 10000
// CASE: name=cub_radix_sort_dups kernel=cub_radix_sort grid=300 block=128
// PARAM: buf u32 150000 zero
// PARAM: buf i32 150000 zero
// PARAM: buf u32 150000 randint:0:15
// PARAM: i32 150000

// Descending sort of float keys with BlockRadixSort, loaded and stored with
// BLOCK_LOAD_TRANSPOSE / BLOCK_STORE_TRANSPOSE, with an early return for the
// blocks past the end (whole blocks, before any barrier).
extern "C" __global__ void cub_load_sort_store(float *out, const float *in, int n)
{
    constexpr int T = 96, I = 3;
    using Load = cub::BlockLoad<float, T, I, cub::BLOCK_LOAD_TRANSPOSE>;
    using Store = cub::BlockStore<float, T, I, cub::BLOCK_STORE_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<float, T, I>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Sort::TempStorage sort;
    } ts;
    int base = blockIdx.x * T * I;
    if (base >= n)
        return;
    int valid = min(T * I, n - base);
    float items[I];

    Load(ts.load).Load(in + base, items, valid, -INFINITY);
    __syncthreads();
    Sort(ts.sort).SortDescending(items);
    __syncthreads();
    Store(ts.store).Store(out + base, items, valid);
}
// CASE: name=cub_load_sort_store_50 kernel=cub_load_sort_store grid=50 block=96
// PARAM: buf f32 13000 zero
// PARAM: buf f32 13000 rand
// PARAM: i32 13000
// CASE: name=cub_load_sort_store_idle kernel=cub_load_sort_store grid=400 block=96
// PARAM: buf f32 20000 zero
// PARAM: buf f32 20000 randint:-3:3
// PARAM: i32 20000
