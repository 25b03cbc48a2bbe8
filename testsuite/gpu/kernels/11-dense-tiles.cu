// Dense kernels built on shared-memory tiles, as found in textbooks and
// real code: a tiled SGEMM with ragged edges, a transpose through a padded
// tile, and a 2-D five-point stencil with halo cells.  2-D grids; the edge
// blocks are partial.

// C = alpha * A * B + beta * C, A (M x K), B (K x N), C (M x N), row-major.
// 16 x 16 tiles; loads outside the matrices read 0.  Threads outside C stay
// for the barriers and skip the store.
#define SG_TILE 16
extern "C" __global__ void sgemm_tiled(float *C, const float *A, const float *B, int M, int N,
                                       int K, float alpha, float beta)
{
    __shared__ float As[SG_TILE][SG_TILE];
    __shared__ float Bs[SG_TILE][SG_TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * SG_TILE + ty, col = blockIdx.x * SG_TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += SG_TILE) {
        As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SG_TILE; k++)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}
// CASE: name=sgemm_tiled_100x70x45 kernel=sgemm_tiled grid=5,7 block=16,16
// PARAM: buf f32 7000 rand
// PARAM: buf f32 4500 rand
// PARAM: buf f32 3150 rand
// PARAM: i32 100
// PARAM: i32 70
// PARAM: i32 45
// PARAM: f32 1.25
// PARAM: f32 -0.5
// CASE: name=sgemm_tiled_256 kernel=sgemm_tiled grid=16,16 block=16,16
// PARAM: buf f32 65536 rand
// PARAM: buf f32 65536 rand
// PARAM: buf f32 65536 rand
// PARAM: i32 256
// PARAM: i32 256
// PARAM: i32 256
// PARAM: f32 1.0
// PARAM: f32 0.0
// CASE: name=sgemm_tiled_skinny kernel=sgemm_tiled grid=1,63 block=16,16
// PARAM: buf f32 10000 zero
// PARAM: buf f32 130000 rand
// PARAM: buf f32 1300 rand
// PARAM: i32 1000
// PARAM: i32 10
// PARAM: i32 130
// PARAM: f32 2.0
// PARAM: f32 1.0

// out = in^T for an R x C matrix, through a 32 x 33 tile; 32 x 8 threads,
// each moving 4 rows.  Threads outside the matrix return after the last
// barrier.
extern "C" __global__ void transpose_tiled(float *out, const float *in, int R, int C)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x; /* column of in */
    int y0 = blockIdx.y * 32 + threadIdx.y;

    for (int j = 0; j < 32; j += 8)
        if (x < C && y0 + j < R)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y0 + j) * C + x];
    __syncthreads();
    int ox = blockIdx.y * 32 + threadIdx.x; /* column of out = row of in */
    int oy0 = blockIdx.x * 32 + threadIdx.y;
    if (ox >= R)
        return;
    for (int j = 0; j < 32; j += 8)
        if (oy0 + j < C)
            out[(size_t)(oy0 + j) * R + ox] = tile[threadIdx.x][threadIdx.y + j];
}
// CASE: name=transpose_tiled_333x517 kernel=transpose_tiled grid=17,11 block=32,8
// PARAM: buf f32 172161 zero
// PARAM: buf f32 172161 rand
// PARAM: i32 333
// PARAM: i32 517
// CASE: name=transpose_tiled_1x2000 kernel=transpose_tiled grid=63,1 block=32,8
// PARAM: buf f32 2000 zero
// PARAM: buf f32 2000 rand
// PARAM: i32 1
// PARAM: i32 2000
// CASE: name=transpose_tiled_1024 kernel=transpose_tiled grid=32,32 block=32,8
// PARAM: buf f32 1048576 zero
// PARAM: buf f32 1048576 rand
// PARAM: i32 1024
// PARAM: i32 1024

// Five-point stencil on a W x H grid with clamped borders, through a
// (16 + 2) x (16 + 2) tile with halo.  The interior of each tile is loaded
// by every thread, the halo by the edge threads; threads outside the grid
// return after the barrier.  Runs `iters` Jacobi steps per launch on the
// tile only (a block-local smoother), ping-ponging two shared tiles.
extern "C" __global__ void stencil_2d(float *out, const float *in, int W, int H, int iters)
{
    __shared__ float t0[18][18], t1[18][18];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
    int cx = min(max(x, 0), W - 1), cy = min(max(y, 0), H - 1);

    t0[ty + 1][tx + 1] = in[(size_t)cy * W + cx];
    if (tx == 0)
        t0[ty + 1][0] = in[(size_t)cy * W + max(cx - 1, 0)];
    if (tx == 15)
        t0[ty + 1][17] = in[(size_t)cy * W + min(x + 1, W - 1)];
    if (ty == 0)
        t0[0][tx + 1] = in[(size_t)max(cy - 1, 0) * W + cx];
    if (ty == 15)
        t0[17][tx + 1] = in[(size_t)min(y + 1, H - 1) * W + cx];
    if (tx == 0 && ty == 0) {
        t0[0][0] = t0[0][17] = t0[17][0] = t0[17][17] = 0.0f;
        t1[0][0] = t1[0][17] = t1[17][0] = t1[17][17] = 0.0f;
    }
    __syncthreads();
    /* the halo stays fixed; copy it to the second tile */
    if (tx == 0)
        t1[ty + 1][0] = t0[ty + 1][0];
    if (tx == 15)
        t1[ty + 1][17] = t0[ty + 1][17];
    if (ty == 0)
        t1[0][tx + 1] = t0[0][tx + 1];
    if (ty == 15)
        t1[17][tx + 1] = t0[17][tx + 1];
    for (int it = 0; it < iters; it++) {
        float (*src)[18] = (it & 1) ? t1 : t0;
        float (*dst)[18] = (it & 1) ? t0 : t1;
        float c = src[ty + 1][tx + 1];
        float v = 0.5f * c + 0.125f * (src[ty][tx + 1] + src[ty + 2][tx + 1] + src[ty + 1][tx] +
                                       src[ty + 1][tx + 2]);
        dst[ty + 1][tx + 1] = v;
        __syncthreads();
    }
    if (x >= W || y >= H)
        return;
    float (*fin)[18] = (iters & 1) ? t1 : t0;
    out[(size_t)y * W + x] = fin[ty + 1][tx + 1];
}
// CASE: name=stencil_2d_100x77 kernel=stencil_2d grid=7,5 block=16,16
// PARAM: buf f32 7700 zero
// PARAM: buf f32 7700 rand
// PARAM: i32 100
// PARAM: i32 77
// PARAM: i32 5
// CASE: name=stencil_2d_1000x1000 kernel=stencil_2d grid=63,63 block=16,16
// PARAM: buf f32 1000000 zero
// PARAM: buf f32 1000000 rand
// PARAM: i32 1000
// PARAM: i32 1000
// PARAM: i32 8
// CASE: name=stencil_2d_thin kernel=stencil_2d grid=1,40 block=16,16
// PARAM: buf f32 6330 zero
// PARAM: buf f32 6330 rand
// PARAM: i32 10
// PARAM: i32 633
// PARAM: i32 1
