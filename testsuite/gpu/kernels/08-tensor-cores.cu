// Tensor cores: a WMMA f16 -> f32 GEMM (whole-warp early returns, no
// barriers), a raw mma.sync m16n8k16 f16 kernel in a grid-stride loop over
// warp tiles, and a bf16 mma.sync fed by ldmatrix from shared memory staged
// with barriers.  All .aligned warp instructions: in the transformed forms
// every lane of a warp must still reach them together.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

// C = A * B + C with A (M x K) and B (K x N) row-major f16, C f32 row-major.
// A block of 4 warps owns a 32 x 32 tile of C, one 16 x 16 tile per warp;
// warps whose tile lies outside C return at once.  M, N, K multiples of 16.
extern "C" __global__ void tc_wmma_gemm(float *C, const __half *A, const __half *B, int M, int N,
                                        int K)
{
    using namespace nvcuda;
    int warp = threadIdx.x >> 5;
    int row0 = blockIdx.y * 32 + (warp >> 1) * 16;
    int col0 = blockIdx.x * 32 + (warp & 1) * 16;

    if (row0 >= M || col0 >= N)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, C + (size_t)row0 * N + col0, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, A + (size_t)row0 * K + k, K);
        wmma::load_matrix_sync(fb, B + (size_t)k * N + col0, N);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int e = 0; e < acc.num_elements; e++)
        acc.x[e] = acc.x[e] * 0.5f;
    wmma::store_matrix_sync(C + (size_t)row0 * N + col0, acc, N, wmma::mem_row_major);
}
// CASE: name=tc_wmma_64x96x48 kernel=tc_wmma_gemm grid=3,2 block=128
// PARAM: buf f32 6144 rand
// PARAM: buf f16 3072 rand
// PARAM: buf f16 4608 rand
// PARAM: i32 64
// PARAM: i32 96
// PARAM: i32 48
// CASE: name=tc_wmma_extra_blocks kernel=tc_wmma_gemm grid=5,4 block=128
// PARAM: buf f32 4608 rand
// PARAM: buf f16 3072 rand
// PARAM: buf f16 6144 rand
// PARAM: i32 48
// PARAM: i32 96
// PARAM: i32 64
// CASE: name=tc_wmma_256x128x128 kernel=tc_wmma_gemm grid=4,8 block=128
// PARAM: buf f32 32768 zero
// PARAM: buf f16 32768 rand
// PARAM: buf f16 16384 rand
// PARAM: i32 256
// PARAM: i32 128
// PARAM: i32 128

__device__ __forceinline__ unsigned ld_pair(const __half *p)
{
    return *reinterpret_cast<const unsigned *>(p); /* two consecutive halves */
}

// D = A * B + C by mma.sync.m16n8k16.row.col (f16 in, f32 accumulate).
// A is M x K row-major, B is given column-major (Bt is N x K row-major),
// C and D are M x N row-major.  Warp tiles (16 x 8) are taken in a
// grid-stride loop over the global warp index.
extern "C" __global__ void tc_mma_f16(float *D, const __half *A, const __half *Bt, const float *C,
                                      int M, int N, int K)
{
    int lane = threadIdx.x & 31;
    int g = lane >> 2, tq = lane & 3;
    int tiles_n = N / 8, tiles = (M / 16) * tiles_n;
    int wstride = gridDim.x * (blockDim.x / 32);

    for (int tile = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5); tile < tiles; tile += wstride) {
        int r0 = (tile / tiles_n) * 16, c0 = (tile % tiles_n) * 8;
        float d0 = C[(r0 + g) * N + c0 + 2 * tq], d1 = C[(r0 + g) * N + c0 + 2 * tq + 1];
        float d2 = C[(r0 + g + 8) * N + c0 + 2 * tq], d3 = C[(r0 + g + 8) * N + c0 + 2 * tq + 1];
        for (int k = 0; k < K; k += 16) {
            unsigned a0 = ld_pair(A + (r0 + g) * K + k + 2 * tq);
            unsigned a1 = ld_pair(A + (r0 + g + 8) * K + k + 2 * tq);
            unsigned a2 = ld_pair(A + (r0 + g) * K + k + 8 + 2 * tq);
            unsigned a3 = ld_pair(A + (r0 + g + 8) * K + k + 8 + 2 * tq);
            unsigned b0 = ld_pair(Bt + (c0 + g) * K + k + 2 * tq);
            unsigned b1 = ld_pair(Bt + (c0 + g) * K + k + 8 + 2 * tq);
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        D[(r0 + g) * N + c0 + 2 * tq] = d0;
        D[(r0 + g) * N + c0 + 2 * tq + 1] = d1;
        D[(r0 + g + 8) * N + c0 + 2 * tq] = d2;
        D[(r0 + g + 8) * N + c0 + 2 * tq + 1] = d3;
    }
}
// CASE: name=tc_mma_f16_3x64 kernel=tc_mma_f16 grid=3 block=64
// PARAM: buf f32 4096 zero
// PARAM: buf f16 4096 rand
// PARAM: buf f16 4096 rand
// PARAM: buf f32 4096 rand
// PARAM: i32 64
// PARAM: i32 64
// PARAM: i32 64
// CASE: name=tc_mma_f16_idle_warps kernel=tc_mma_f16 grid=96 block=32
// PARAM: buf f32 6144 zero
// PARAM: buf f16 3072 rand
// PARAM: buf f16 8192 rand
// PARAM: buf f32 6144 rand
// PARAM: i32 48
// PARAM: i32 128
// PARAM: i32 64
// CASE: name=tc_mma_f16_overprovisioned kernel=tc_mma_f16 grid=50 block=256
// PARAM: buf f32 2048 zero
// PARAM: buf f16 2048 rand
// PARAM: buf f16 4096 rand
// PARAM: buf f32 2048 rand
// PARAM: i32 32
// PARAM: i32 64
// PARAM: i32 64

// bf16 mma.sync fed by ldmatrix.  A block of 2 warps computes a 16 x 16
// tile of D (one 16 x 8 half per warp): each K step stages a 16 x 16 tile of
// A and of Bt (N x K row-major) in padded shared arrays, synchronizes,
// loads fragments with ldmatrix.x4 / .x2, and synchronizes again before the
// next step overwrites the tiles.  Blocks outside D return before the loop.
#define TC_LD 24 /* padded row length in bf16 elements: 48 bytes, 16-byte aligned rows */
extern "C" __global__ void tc_mma_bf16_ldmatrix(float *D, const __nv_bfloat16 *A,
                                                const __nv_bfloat16 *Bt, int M, int N, int K)
{
    __shared__ __align__(16) __nv_bfloat16 As[16 * TC_LD];
    __shared__ __align__(16) __nv_bfloat16 Bs[16 * TC_LD];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int r0 = blockIdx.y * 16, c0 = blockIdx.x * 16;

    if (r0 >= M || c0 >= N)
        return;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < K; k += 16) {
        for (int e = t; e < 256; e += blockDim.x) {
            int r = e >> 4, c = e & 15;
            As[r * TC_LD + c] = A[(r0 + r) * K + k + c];
            Bs[r * TC_LD + c] = Bt[(c0 + r) * K + k + c];
        }
        __syncthreads();
        unsigned a0, a1, a2, a3, b0, b1;
        unsigned pa = (unsigned)__cvta_generic_to_shared(&As[(lane & 15) * TC_LD + (lane >> 4) * 8]);
        unsigned pb = (unsigned)__cvta_generic_to_shared(
            &Bs[(warp * 8 + (lane & 7)) * TC_LD + ((lane >> 3) & 1) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                     : "r"(pa));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b0), "=r"(b1)
                     : "r"(pb));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncthreads();
    }
    int g = lane >> 2, tq = lane & 3, col = c0 + warp * 8 + 2 * tq;
    D[(r0 + g) * N + col] = d[0];
    D[(r0 + g) * N + col + 1] = d[1];
    D[(r0 + g + 8) * N + col] = d[2];
    D[(r0 + g + 8) * N + col + 1] = d[3];
}
// CASE: name=tc_mma_bf16_64x64x64 kernel=tc_mma_bf16_ldmatrix grid=4,4 block=64
// PARAM: buf f32 4096 zero
// PARAM: buf bf16 4096 rand
// PARAM: buf bf16 4096 rand
// PARAM: i32 64
// PARAM: i32 64
// PARAM: i32 64
// CASE: name=tc_mma_bf16_extra_blocks kernel=tc_mma_bf16_ldmatrix grid=9,5 block=64
// PARAM: buf f32 3072 zero
// PARAM: buf bf16 1536 rand
// PARAM: buf bf16 2048 rand
// PARAM: i32 48
// PARAM: i32 64
// PARAM: i32 32
