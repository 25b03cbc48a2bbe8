// RUN: %corpus-check %s
// 23-wmma.cu
// PTX features meant to be emitted:
//   - wmma.load.a/.b/.c.sync.aligned.{row,col}.m16n16k16.global.f16 etc.
//   - wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 (f16 inputs),
//     .f16.f16 accumulators, m32n8k16 / m8n32k16 shapes
//   - bf16: wmma.mma...m16n16k16.f32.bf16.bf16.f32
//   - tf32: wmma.load...m16n16k8...tf32, wmma.mma...m16n16k8.f32.tf32.tf32.f32,
//     cvt.rna.tf32.f32 (__float_to_tf32)
//   - int8: wmma.mma...m16n16k16.s32.s8.s8.s32 / .u8, .satfinite
//   - double: wmma.mma...m8n8k4.f64.f64.f64.f64 (.rn)
//   - sub-byte (experimental) s4 / b1 shapes m8n8k32 / m8n8k128 (sm_80/sm_90)
//   - wmma.store.d.sync.aligned.{row,col}...; shared-memory fragments
//   - register vectors of 8 / 4 / 2 / 1 elements in braces
// EXTRA-ARCHS: sm_120

#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

__global__ void wmma_f16(const half *a, const half *b, const float *c, float *d, half *dh, int ld)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fh;
    wmma::load_matrix_sync(fa, a, ld);
    wmma::load_matrix_sync(fb, b, ld);
    wmma::load_matrix_sync(fc, c, ld, wmma::mem_row_major);
    wmma::fill_fragment(fh, __float2half(0.0f));
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::mma_sync(fh, fa, fb, fh);
    for (int i = 0; i < fc.num_elements; i++)
        fc.x[i] = fc.x[i] * 0.5f;
    wmma::store_matrix_sync(d, fc, ld, wmma::mem_col_major);
    wmma::store_matrix_sync(dh, fh, ld, wmma::mem_row_major);
}

__global__ void wmma_shapes(const half *a, const half *b, float *d)
{
    __shared__ half sa[32 * 16];
    __shared__ half sb[16 * 32];
    int t = threadIdx.x;
    for (int i = t; i < 32 * 16; i += 32) {
        sa[i] = a[i];
        sb[i] = b[i];
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> a1;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> b1;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> c1;
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> a2;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::row_major> b2;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> c2;
    wmma::load_matrix_sync(a1, sa, 32);
    wmma::load_matrix_sync(b1, sb, 8);
    wmma::fill_fragment(c1, 1.0f);
    wmma::mma_sync(c1, a1, b1, c1);
    wmma::store_matrix_sync(d, c1, 8, wmma::mem_row_major);
    wmma::load_matrix_sync(a2, sa, 16);
    wmma::load_matrix_sync(b2, sb, 32);
    wmma::fill_fragment(c2, __float2half(0.0f));
    wmma::mma_sync(c2, a2, b2, c2);
    wmma::store_matrix_sync(reinterpret_cast<half *>(sa), c2, 32, wmma::mem_col_major);
    __syncwarp();
    d[256 + t] = __half2float(sa[t]);
}

__global__ void wmma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

__global__ void wmma_tf32(const float *a, const float *b, float *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int i = 0; i < fa.num_elements; i++)
        fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++)
        fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_col_major);
}

__global__ void wmma_int8(const signed char *a, const signed char *b, const unsigned char *ua,
                          const unsigned char *ub, int *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fua;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> fub;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fua, ua, 16);
    wmma::load_matrix_sync(fub, ub, 16);
    wmma::fill_fragment(fc, 0);
    wmma::mma_sync(fc, fa, fb, fc, true);   // satfinite
    wmma::mma_sync(fc, fua, fub, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

__global__ void wmma_f64(const double *a, const double *b, const double *c, double *d)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a, 4);
    wmma::load_matrix_sync(fb, b, 4);
    wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

#if __CUDA_ARCH__ < 1000
__global__ void wmma_subbyte(const void *a, const void *b, int *d)
{
    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, b, 32);
    wmma::fill_fragment(fc, 0);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> bb;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> bc;
    wmma::load_matrix_sync(ba, a, 128);
    wmma::load_matrix_sync(bb, b, 128);
    wmma::fill_fragment(bc, 0);
    wmma::bmma_sync(bc, ba, bb, bc, bmmaBitOpAND);
    wmma::store_matrix_sync(d + 64, bc, 8, wmma::mem_row_major);
}
#endif
