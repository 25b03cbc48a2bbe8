// RUN: %corpus-check %s
// 41-simd-video-dpx.cu
// PTX features meant to be emitted:
//   - SIMD-within-a-word intrinsics (__vadd4, __vabsdiffu4, __vcmpgtu2,
//     __vmaxs4, __vsads2, __vavgu4 ...): prmt / lop3 / sub / and sequences,
//     add.s16x2 / min.u16x2 / max.s16x2 packed forms where available
//   - DPX intrinsics (__viaddmax_s32, __vimax3_s32, __vibmax_s32,
//     __viaddmin_s16x2_relu ...): max.relu / min.s16x2 / 3-input forms
//   - video instructions in inline PTX: vadd4, vabsdiff4, vmax2, vset4,
//     vadd (scalar with .b0 / .h1 selectors and .add merge), vmad, vshl
//   - setp with a boolean op and dual predicate destination
//     setp.lt.and.s32 p|q, a, b, r; set.gt.u32.s32 / set.eq.or.u32.f32
//   - max.xorsign.abs.f32 (sm_86+), min.NaN.f16x2 (sm_80+), add.s16x2 /
//     min.s16x2 (sm_90+) in inline PTX
// EXTRA-ARCHS: sm_75

__global__ void simd_intrinsics(const unsigned *a, const unsigned *b, unsigned *o)
{
    int t = threadIdx.x;
    unsigned x = a[t], y = b[t];
    o[t * 12 + 0] = __vadd4(x, y);
    o[t * 12 + 1] = __vsub2(x, y);
    o[t * 12 + 2] = __vabsdiffu4(x, y);
    o[t * 12 + 3] = __vcmpgtu2(x, y);
    o[t * 12 + 4] = __vmaxs4(x, y);
    o[t * 12 + 5] = __vminu2(x, y);
    o[t * 12 + 6] = __vsads2(x, y);
    o[t * 12 + 7] = __vavgu4(x, y);
    o[t * 12 + 8] = __vaddss2(x, y);
    o[t * 12 + 9] = __vsetltu4(x, y);
    o[t * 12 + 10] = __vneg2(x) ^ __vabs4(y);
    o[t * 12 + 11] = __vhaddu2(x, y) + __vseteq2(x, y);
}

__global__ void dpx_intrinsics(const int *a, const unsigned *b, int *o, unsigned *ou)
{
    int t = threadIdx.x;
    int x = a[t], y = a[t + 1], z = a[t + 2];
    unsigned u = b[t], v = b[t + 1], w = b[t + 2];
    bool pred;
    o[t * 8 + 0] = __viaddmax_s32(x, y, z);
    o[t * 8 + 1] = __viaddmin_s32_relu(x, y, z);
    o[t * 8 + 2] = __vimax3_s32(x, y, z);
    o[t * 8 + 3] = __vimin3_s32_relu(x, y, z);
    o[t * 8 + 4] = __vibmax_s32(x, y, &pred) + pred;
    o[t * 8 + 5] = __vimax_s32_relu(x, y);
    ou[t * 4 + 0] = __viaddmax_u32(u, v, w);
    ou[t * 4 + 1] = __vimin3_u16x2(u, v, w);
    ou[t * 4 + 2] = __viaddmin_s16x2_relu(u, v, w);
    ou[t * 4 + 3] = __vimax3_s16x2_relu(u, v, w);
}

__global__ void video_inline(const unsigned *a, unsigned *o)
{
    int t = threadIdx.x;
    unsigned x = a[t], y = a[t + 1], z = a[t + 2], r[8];
    asm("vadd4.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(r[0]) : "r"(x), "r"(y), "r"(z));
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r[1]) : "r"(x), "r"(y), "r"(z));
    asm("vmax2.s32.s32.s32 %0, %1, %2, %3;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(z));
    asm("vset4.u32.u32.ne %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(z));
    asm("vadd.u32.u32.u32.add %0, %1.b0, %2.h1, %3;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(z));
    asm("vmad.s32.s32.s32 %0, %1.h0, %2.h0, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
    asm("vshl.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(r[6]) : "r"(x), "r"(y & 31), "r"(z));
    asm("vsub.s32.s32.s32.sat %0, %1, %2;" : "=r"(r[7]) : "r"(x), "r"(y));
    for (int k = 0; k < 8; k++)
        o[t * 8 + k] = r[k];
}

__global__ void predicate_forms(const int *a, const float *f, int *o, float *of)
{
    int t = threadIdx.x;
    int x = a[t], y = a[t + 1];
    int both, either, s1;
    asm("{\n\t"
        ".reg .pred r, p, q;\n\t"
        "setp.ne.s32 r, %3, 0;\n\t"
        "setp.lt.and.s32 p|q, %2, %3, r;\n\t"
        "selp.s32 %0, 1, 0, p;\n\t"
        "selp.s32 %1, 1, 0, q;\n\t"
        "}" : "=r"(both), "=r"(either) : "r"(x), "r"(y));
    asm("set.gt.u32.s32 %0, %1, %2;" : "=r"(s1) : "r"(x), "r"(y));
    unsigned fs;
    asm("{\n\t"
        ".reg .pred c;\n\t"
        "setp.gt.s32 c, %3, 0;\n\t"
        "set.eq.or.u32.f32 %0, %1, %2, !c;\n\t"
        "}" : "=r"(fs) : "f"(f[t]), "f"(f[t + 1]), "r"(x));
    float m = f[t];
    unsigned h2 = 0, p2 = 0, q2 = 0;
#if __CUDA_ARCH__ >= 800
    asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(h2) : "r"((unsigned)x), "r"((unsigned)y));
#endif
#if __CUDA_ARCH__ >= 860
    asm("max.xorsign.abs.f32 %0, %1, %2;" : "=f"(m) : "f"(f[t]), "f"(f[t + 1]));
#endif
#if __CUDA_ARCH__ >= 900
    asm("add.s16x2 %0, %1, %2;" : "=r"(p2) : "r"((unsigned)x), "r"((unsigned)y));
    asm("min.s16x2 %0, %1, %2;" : "=r"(q2) : "r"((unsigned)x), "r"((unsigned)y));
#endif
    o[t] = both + either + s1 + (int)fs + (int)(h2 ^ p2 ^ q2);
    of[t] = m;
}
