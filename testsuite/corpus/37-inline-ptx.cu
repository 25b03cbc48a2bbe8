// RUN: %corpus-check %s
// 37-inline-ptx.cu
// PTX features meant to be emitted:
//   - inline PTX blocks with their own { } scope and scoped .reg declarations
//     (.reg .pred, .reg .b32 r<4> parameterised names, .reg .f64, .reg .b16)
//   - nested scopes inside scopes, labels and loops inside inline asm
//     (several inlined copies of the same labels in sibling scopes)
//   - .local declarations inside an asm scope, ld.local/st.local on them
//   - every constraint kind: "h" (.u16), "r" (.u32), "l" (.u64), "f" (.f32),
//     "d" (.f64), "n" immediates, "+r" read-write, "=&r" early clobber
//   - %% escapes for special registers, multiple instructions per line
//     separated by ';', PTX comments (// and /* */) inside the asm text
//   - .pragma "nounroll"; written by hand, predicated instructions @p / @!p
//   - ld/st with immediate offsets [reg+imm] and negative offsets
// EXTRA-ARCHS: sm_75

__device__ __forceinline__ unsigned popc_loop(unsigned x)
{
    unsigned count;
    asm("{\n\t"
        ".reg .pred p;\n\t"
        ".reg .b32 r<3>;\n\t"
        "mov.b32 r0, %1;\n\t"
        "mov.b32 r1, 0;\n"
        "POPC_LOOP:\n\t"
        ".pragma \"nounroll\";\n\t"
        "setp.eq.b32 p, r0, 0;\n\t"
        "@p bra POPC_DONE;\n\t"
        "add.s32 r2, r0, -1;\n\t"
        "and.b32 r0, r0, r2;   // clear lowest set bit\n\t"
        "add.s32 r1, r1, 1;\n\t"
        "bra.uni POPC_LOOP;\n"
        "POPC_DONE:\n\t"
        "mov.b32 %0, r1;\n\t"
        "}"
        : "=r"(count) : "r"(x));
    return count;
}

__global__ void scoped_regs(const unsigned *in, unsigned *out)
{
    int t = threadIdx.x;
    // Two inlined copies of the same labels in sibling scopes.
    out[t] = popc_loop(in[t]) + popc_loop(in[t + 32]);
}

__global__ void nested_scopes(const float *in, float *out)
{
    int t = threadIdx.x;
    float r;
    asm("{\n\t"
        ".reg .f32 a, b;\n\t"
        "mov.f32 a, %1;\n\t"
        "{\n\t"
        "  .reg .f32 a;            /* shadows the outer a */\n\t"
        "  mov.f32 a, 0f40000000;\n\t"
        "  mul.f32 b, %1, a;\n\t"
        "}\n\t"
        "add.f32 %0, a, b;\n\t"
        "}"
        : "=f"(r) : "f"(in[t]));
    double d;
    asm("{ .reg .f64 x; cvt.f64.f32 x, %1; fma.rn.f64 %0, x, x, 0d3FF0000000000000; }"
        : "=d"(d) : "f"(r));
    out[t] = (float)d;
}

__global__ void constraint_kinds(const short *hs, const long long *ls, const double *ds, int *out)
{
    int t = threadIdx.x;
    unsigned short h = (unsigned short)hs[t], h2;
    unsigned long long l = (unsigned long long)ls[t], l2;
    double d = ds[t], d2;
    int acc = t;
    asm("add.u16 %0, %1, %2;" : "=h"(h2) : "h"(h), "n"(7));
    asm("shl.b64 %0, %1, %2;" : "=l"(l2) : "l"(l), "n"(3));
    asm("mul.rn.f64 %0, %1, %1;" : "=d"(d2) : "d"(d));
    asm("add.s32 %0, %0, %1;" : "+r"(acc) : "r"(t));
    int e;
    asm("mov.u32 %0, %%tid.x;\n\t"
        "add.u32 %0, %0, %1;" : "=&r"(e) : "r"(acc));
    out[t] = (int)h2 + (int)l2 + (int)d2 + acc + e;
}

__global__ void local_in_asm(const int *in, int *out)
{
    int t = threadIdx.x;
    int r;
    asm("{\n\t"
        ".local .align 8 .b8 scratch[16];\n\t"
        ".reg .b64 addr;\n\t"
        ".reg .b32 v<2>;\n\t"
        "mov.u64 addr, scratch;\n\t"
        "st.local.u32 [addr], %1;\n\t"
        "st.local.u32 [addr+4], %2;\n\t"
        "ld.local.v2.u32 {v0, v1}, [addr];\n\t"
        "add.s32 %0, v0, v1;\n\t"
        "}"
        : "=r"(r) : "r"(in[t]), "r"(in[t + 1]));
    int n;
    asm("ld.global.u32 %0, [%1+-4];" : "=r"(n) : "l"(in + t + 1));
    asm volatile("st.global.u32 [%0+8], %1;" ::"l"(out + t), "r"(r + n) : "memory");
}

// Predicates produced and consumed inside asm, and a loop that the
// compiler cannot see into.
__global__ void asm_loop(unsigned *out, unsigned n)
{
    unsigned s;
    asm volatile("{\n\t"
                 ".reg .pred done, odd;\n\t"
                 ".reg .u32 i, acc, bit;\n\t"
                 "mov.u32 i, 0;\n\t"
                 "mov.u32 acc, 0;\n"
                 "SUM_TOP:\n\t"
                 "setp.ge.u32 done, i, %1;\n\t"
                 "@done bra.uni SUM_END;\n\t"
                 "and.b32 bit, i, 1;\n\t"
                 "setp.ne.u32 odd, bit, 0;\n\t"
                 "@odd add.u32 acc, acc, i;\n\t"
                 "@!odd sub.u32 acc, acc, 1;\n\t"
                 "add.u32 i, i, 1;\n\t"
                 "bra.uni SUM_TOP;\n"
                 "SUM_END:\n\t"
                 "mov.u32 %0, acc;\n\t"
                 "}"
                 : "=r"(s) : "r"(n));
    out[threadIdx.x] = s;
}
