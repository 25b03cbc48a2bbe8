// RUN: %corpus-check %s
// 19-warp-primitives.cu
// PTX features meant to be emitted:
//   - shfl.sync.idx / .up / .down / .bfly .b32 in all 4 forms, with a
//     non-default width (clamp/segment mask operand), 64-bit values shuffled
//     as two halves, and the dual-destination form shfl.sync... %r|%p
//   - vote.sync.ballot.b32, vote.sync.any.pred, vote.sync.all.pred,
//     vote.sync.uni.pred, activemask.b32
//   - match.any.sync.b32 / .b64, match.all.sync.b32 with its predicate
//     output (%r|%p)
//   - redux.sync.add/.min/.max/.and/.or/.xor (.u32/.s32/.b32, sm_80+),
//     redux.sync.min.f32 / max.abs.NaN.f32 (sm_100a)
//   - bar.warp.sync (__syncwarp) with full and partial masks
// EXTRA-ARCHS: sm_75 sm_100a

__global__ void shuffles(const int *in, const float *fin, const double *din, int *o, float *of,
                         double *od)
{
    int t = threadIdx.x;
    int v = in[t];
    float f = fin[t];
    double d = din[t];
    o[t * 4 + 0] = __shfl_sync(0xffffffffu, v, 3);
    o[t * 4 + 1] = __shfl_up_sync(0xffffffffu, v, 1);
    o[t * 4 + 2] = __shfl_down_sync(0xffffffffu, v, 2);
    o[t * 4 + 3] = __shfl_xor_sync(0xffffffffu, v, 16);
    // width < 32 -> different c operand
    of[t * 4 + 0] = __shfl_sync(0xffffffffu, f, 0, 8);
    of[t * 4 + 1] = __shfl_up_sync(0xffffffffu, f, 1, 16);
    of[t * 4 + 2] = __shfl_down_sync(0x0000ffffu, f, 4, 16);
    of[t * 4 + 3] = __shfl_xor_sync(0xffffffffu, f, 1, 4);
    od[t * 2 + 0] = __shfl_sync(0xffffffffu, d, t & 7);
    od[t * 2 + 1] = __shfl_xor_sync(0xffffffffu, d, 8) +
                    (double)__shfl_down_sync(0xffffffffu, (long long)v << 20, 1);
}

__global__ void warp_reduce(const float *in, float *out)
{
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        out[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] = v;
}

__global__ void votes(const int *in, unsigned *o)
{
    int t = threadIdx.x;
    int v = in[t];
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v == 7);
    int all = __all_sync(0xffffffffu, v != 0);
    int uni = __uni_sync(0xffffffffu, v & 1);
    unsigned act = __activemask();
    o[t * 5 + 0] = b;
    o[t * 5 + 1] = any;
    o[t * 5 + 2] = all;
    o[t * 5 + 3] = uni;
    o[t * 5 + 4] = act;
    if (v & 1) {
        // divergent region: partial masks
        unsigned m = __activemask();
        o[t * 5 + 4] += __ballot_sync(m, v > 100);
        __syncwarp(m);
    }
    __syncwarp();
}

__global__ void matches(const int *in, const long long *lin, unsigned *o)
{
    int t = threadIdx.x;
    int pred;
    o[t * 4 + 0] = __match_any_sync(0xffffffffu, in[t]);
    o[t * 4 + 1] = __match_all_sync(0xffffffffu, in[t], &pred);
    o[t * 4 + 2] = __match_any_sync(0xffffffffu, lin[t]);
    o[t * 4 + 3] = __match_all_sync(0xffffffffu, lin[t], &pred) + pred;
}

__global__ void reductions(const int *in, const unsigned *uin, int *o, unsigned *ou)
{
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 800
    o[t * 3 + 0] = __reduce_add_sync(0xffffffffu, in[t]);
    o[t * 3 + 1] = __reduce_min_sync(0xffffffffu, in[t]);
    o[t * 3 + 2] = __reduce_max_sync(0xffffffffu, in[t]);
    ou[t * 6 + 0] = __reduce_add_sync(0xffffffffu, uin[t]);
    ou[t * 6 + 1] = __reduce_min_sync(0xffffffffu, uin[t]);
    ou[t * 6 + 2] = __reduce_max_sync(0xffffffffu, uin[t]);
    ou[t * 6 + 3] = __reduce_and_sync(0xffffffffu, uin[t]);
    ou[t * 6 + 4] = __reduce_or_sync(0xffffffffu, uin[t]);
    ou[t * 6 + 5] = __reduce_xor_sync(0xffffffffu, uin[t]);
#else
    o[t] = in[t];
    ou[t] = uin[t];
#endif
}

// Inline-PTX-only forms: predicate outputs of shfl and match, vote.uni,
// redux on floats (sm_100a).
__global__ void dual_destination(const int *in, const float *fin, int *o, float *of)
{
    int t = threadIdx.x;
    int v = in[t], r, valid, m, all;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "shfl.sync.up.b32 %0|p, %2, 1, 0, -1;\n\t"
                 "selp.s32 %1, 1, 0, p;\n\t"
                 "}" : "=r"(r), "=r"(valid) : "r"(v));
    asm volatile("{\n\t"
                 ".reg .pred q;\n\t"
                 "match.all.sync.b32 %0|q, %2, 0xffffffff;\n\t"
                 "selp.s32 %1, 1, 0, q;\n\t"
                 "}" : "=r"(m), "=r"(all) : "r"(v));
    int u;
    asm volatile("{\n\t"
                 ".reg .pred a, b;\n\t"
                 "setp.ne.s32 a, %1, 0;\n\t"
                 "vote.sync.uni.pred b, a, 0xffffffff;\n\t"
                 "vote.sync.any.pred a, !a, 0xffffffff;\n\t"
                 "selp.s32 %0, 1, 0, b;\n\t"
                 "@a add.s32 %0, %0, 2;\n\t"
                 "}" : "=r"(u) : "r"(v & 1));
    unsigned bal;
    asm volatile("{\n\t"
                 ".reg .pred a;\n\t"
                 "setp.gt.s32 a, %1, 0;\n\t"
                 "vote.sync.ballot.b32 %0, a, 0xffffffff;\n\t"
                 "}" : "=r"(bal) : "r"(v));
    o[t * 4 + 0] = r + valid;
    o[t * 4 + 1] = m + all;
    o[t * 4 + 2] = u;
    o[t * 4 + 3] = (int)bal;
    float f = fin[t];
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
    float mn, mx;
    asm volatile("redux.sync.min.f32 %0, %1, 0xffffffff;" : "=f"(mn) : "f"(f));
    asm volatile("redux.sync.max.abs.NaN.f32 %0, %1, 0xffffffff;" : "=f"(mx) : "f"(f));
    f = mn + mx;
#endif
    of[t] = f;
}
