// Grids in one, two and three dimensions whose sizes divide into nothing.
// The transformed forms rebuild blockIdx (slice: offset + %ctaid; ptb: from
// a linear virtual block id) and gridDim (the original grid); these kernels
// write what they saw, per block and per thread.

// One record per block: its coordinates, the grid, and a per-thread word.
extern "C" __global__ void gd_block_ids(unsigned *rec, unsigned *per_thread)
{
    unsigned lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x;

    if (t == 0) {
        rec[6 * lin + 0] = blockIdx.x;
        rec[6 * lin + 1] = blockIdx.y;
        rec[6 * lin + 2] = blockIdx.z;
        rec[6 * lin + 3] = gridDim.x;
        rec[6 * lin + 4] = gridDim.y;
        rec[6 * lin + 5] = gridDim.z;
    }
    per_thread[lin * blockDim.x + t] = (blockIdx.x * 2654435761u) ^ (blockIdx.y << 20) ^
                                       (blockIdx.z << 26) ^ (t * 40503u);
}
// CASE: name=gd_block_ids_37x5x3 kernel=gd_block_ids grid=37,5,3 block=32
// PARAM: buf u32 3330 const:4294967295
// PARAM: buf u32 17760 zero
// CASE: name=gd_block_ids_4095 kernel=gd_block_ids grid=4095 block=1
// PARAM: buf u32 24570 const:4294967295
// PARAM: buf u32 4095 zero
// CASE: name=gd_block_ids_13x17 kernel=gd_block_ids grid=13,17 block=64
// PARAM: buf u32 1326 const:4294967295
// PARAM: buf u32 14144 zero
// CASE: name=gd_block_ids_1x1x61 kernel=gd_block_ids grid=1,1,61 block=96
// PARAM: buf u32 366 const:4294967295
// PARAM: buf u32 5856 zero
// CASE: name=gd_block_ids_1x59x1 kernel=gd_block_ids grid=1,59,1 block=33
// PARAM: buf u32 354 const:4294967295
// PARAM: buf u32 1947 zero
// CASE: name=gd_block_ids_7x1x11 kernel=gd_block_ids grid=7,1,11 block=128
// PARAM: buf u32 462 const:4294967295
// PARAM: buf u32 9856 zero
// CASE: name=gd_block_ids_2x3x5 kernel=gd_block_ids grid=2,3,5 block=1024
// PARAM: buf u32 180 const:4294967295
// PARAM: buf u32 30720 zero

// 3-D blocks over a 3-D array with a bounds check per thread; the block
// shape does not divide the array either.
extern "C" __global__ void gd_block3d(float *out, const float *in, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;

    if (x >= nx || y >= ny || z >= nz)
        return;
    int i = (z * ny + y) * nx + x;
    float left = x > 0 ? in[i - 1] : 0.0f;
    float down = y > 0 ? in[i - nx] : 0.0f;
    float back = z > 0 ? in[i - nx * ny] : 0.0f;
    out[i] = in[i] * 4.0f - left - down - back + (float)(threadIdx.z * 100 + threadIdx.y * 10 + threadIdx.x);
}
// CASE: name=gd_block3d_7x9x5 kernel=gd_block3d grid=7,9,5 block=8,4,2
// PARAM: buf f32 14850 zero
// PARAM: buf f32 14850 rand
// PARAM: i32 50
// PARAM: i32 33
// PARAM: i32 9
// CASE: name=gd_block3d_3x3x3 kernel=gd_block3d grid=3,3,3 block=10,10,10
// PARAM: buf f32 24389 zero
// PARAM: buf f32 24389 rand
// PARAM: i32 29
// PARAM: i32 29
// PARAM: i32 29
// CASE: name=gd_block3d_flat kernel=gd_block3d grid=19,1,23 block=7,1,3
// PARAM: buf f32 8778 zero
// PARAM: buf f32 8778 rand
// PARAM: i32 133
// PARAM: i32 1
// PARAM: i32 66

// Each block adds its linear index to a 64-bit total and counts itself per
// z-plane and per row; the totals tell whether every block ran exactly once
// and with the right coordinates.
extern "C" __global__ void gd_linear_sum(unsigned long long *total, unsigned *per_z, unsigned *per_y,
                                         unsigned *first_thread)
{
    unsigned lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);

    if (threadIdx.x == 0 && threadIdx.y == 0) {
        atomicAdd(total, (unsigned long long)lin * lin + 1ull);
        atomicAdd(&per_z[blockIdx.z], 1u);
        atomicAdd(&per_y[blockIdx.y], blockIdx.x + 1u);
        atomicMax(&first_thread[blockIdx.z], lin);
        atomicAdd(&total[1], (unsigned long long)(gridDim.x * gridDim.y * gridDim.z));
    }
}
// CASE: name=gd_linear_sum_37x5x3 kernel=gd_linear_sum grid=37,5,3 block=16,2
// PARAM: buf u64 2 zero
// PARAM: buf u32 3 zero
// PARAM: buf u32 5 zero
// PARAM: buf u32 3 zero
// CASE: name=gd_linear_sum_31x11x12 kernel=gd_linear_sum grid=31,11,12 block=1,1
// PARAM: buf u64 2 zero
// PARAM: buf u32 12 zero
// PARAM: buf u32 11 zero
// PARAM: buf u32 12 zero
// CASE: name=gd_linear_sum_4093 kernel=gd_linear_sum grid=4093 block=64
// PARAM: buf u64 2 zero
// PARAM: buf u32 1 zero
// PARAM: buf u32 1 zero
// PARAM: buf u32 1 zero
