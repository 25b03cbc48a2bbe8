// RUN: %corpus-check %s
// 24-mma-ldmatrix.cu
// PTX features meant to be emitted (all from inline PTX):
//   - mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 and .f16 accumulators
//   - mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//   - mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//   - mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 (+ u8 mix)
//   - mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64
//   - mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 (sm_89+: sm_90 up)
//   - mma.sp::ordered_metadata (sparse) m16n8k32 f16
//   - ldmatrix.sync.aligned.m8n8.x1/.x2/.x4(.trans).shared.b16
//   - stmatrix.sync.aligned.m8n8.x4(.trans).shared.b16 (sm_90)
//   - movmatrix.sync.aligned.m8n8.trans.b16
//   - long brace-enclosed register vector operands
// EXTRA-ARCHS: sm_120

#include <cuda_fp16.h>

__device__ __forceinline__ void mma_f16_f32(float (&d)[4], const unsigned (&a)[4],
                                            const unsigned (&b)[2], const float (&c)[4])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

__global__ void mma_kernels(const unsigned *A, const unsigned *B, const float *C, float *D,
                            unsigned *Dh, int *Di, const double *Ad, double *Dd)
{
    int t = threadIdx.x;
    unsigned a[4] = {A[t * 4], A[t * 4 + 1], A[t * 4 + 2], A[t * 4 + 3]};
    unsigned b[2] = {B[t * 2], B[t * 2 + 1]};
    float c[4] = {C[t * 4], C[t * 4 + 1], C[t * 4 + 2], C[t * 4 + 3]};
    float d[4];
    // f16 x f16 -> f32
    mma_f16_f32(d, a, b, c);
    // f16 x f16 -> f16
    unsigned h0, h1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(h0), "=r"(h1)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(0u), "r"(0u));
    // bf16
    float e[4];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
    // tf32 m16n8k8
    float g[4];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(g[0]), "=f"(g[1]), "=f"(g[2]), "=f"(g[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(e[0]), "f"(e[1]), "f"(e[2]), "f"(e[3]));
    // s8 m16n8k32 with saturation, and u8 x s8
    int i4[4], j4[4];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(i4[0]), "=r"(i4[1]), "=r"(i4[2]), "=r"(i4[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(0), "r"(1), "r"(2), "r"(3));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(j4[0]), "=r"(j4[1]), "=r"(j4[2]), "=r"(j4[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(i4[0]), "r"(i4[1]), "r"(i4[2]), "r"(i4[3]));
    // f64 m8n8k4
    double dd[2];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(dd[0]), "=d"(dd[1])
                 : "d"(Ad[t]), "d"(Ad[t + 32]), "d"(0.0), "d"(1.0));
#if __CUDA_ARCH__ >= 890
    float q[4];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(q[0]), "=f"(q[1]), "=f"(q[2]), "=f"(q[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(g[0]), "f"(g[1]), "f"(g[2]), "f"(g[3]));
    g[0] = q[0];
#endif
    // Sparse mma with metadata and selector.
    float s[4];
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                 "{%12, %13, %14, %15}, %16, 0x0;"
                 : "=f"(s[0]), "=f"(s[1]), "=f"(s[2]), "=f"(s[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(b[0]), "r"(b[1]), "f"(g[0]), "f"(g[1]), "f"(g[2]), "f"(g[3]),
                   "r"(A[128 + t]));
    for (int k = 0; k < 4; k++) {
        D[t * 4 + k] = s[k] + g[k];
        Di[t * 4 + k] = j4[k];
    }
    Dh[t * 2] = h0;
    Dh[t * 2 + 1] = h1;
    Dd[t * 2] = dd[0];
    Dd[t * 2 + 1] = dd[1];
}

__global__ void ldmatrix_kernels(const half *in, half *out, unsigned *ou)
{
    __shared__ alignas(16) half tile[16 * 16 * 2];
    int t = threadIdx.x;
    for (int i = t; i < 16 * 16 * 2; i += 32)
        tile[i] = in[i];
    __syncwarp();
    unsigned base = (unsigned)__cvta_generic_to_shared(&tile[(t & 15) * 16 + (t >> 4) * 8]);
    unsigned r0, r1, r2, r3, x1, y0, y1, tr;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(base));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(y0), "=r"(y1) : "r"(base));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%0}, [%1];" : "=r"(x1) : "r"(base));
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(tr) : "r"(r0));
    ou[t * 8 + 0] = r0;
    ou[t * 8 + 1] = r1;
    ou[t * 8 + 2] = r2;
    ou[t * 8 + 3] = r3;
    ou[t * 8 + 4] = y0 ^ y1;
    ou[t * 8 + 5] = x1;
    ou[t * 8 + 6] = tr;
#if __CUDA_ARCH__ >= 900
    __syncwarp();
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 ::"r"(base), "r"(r3), "r"(r2), "r"(r1), "r"(r0) : "memory");
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
                 ::"r"(base + 512), "r"(y1), "r"(y0) : "memory");
    asm volatile("stmatrix.sync.aligned.x1.m8n8.shared::cta.b16 [%0], {%1};"
                 ::"r"(base), "r"(x1) : "memory");
    __syncwarp();
#endif
    for (int i = t; i < 16 * 16 * 2; i += 32)
        out[i] = tile[i];
}
