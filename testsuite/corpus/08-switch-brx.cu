// RUN: %corpus-check %s
// 08-switch-brx.cu
// PTX features meant to be emitted:
//   - dense switch statements lowered to jump tables (nvcc prints one
//     target label per line):
//       $L_brx_0: .branchtargets
//       $L__BB0_17,
//       ...
//       $L__BB0_2;
//       brx.idx %r1, $L_brx_0;
//   - sparse switch lowered to a compare tree (setp.eq / bra chains)
//   - switch inside a loop, switch with fallthrough and default
//   - brx.idx written directly in inline PTX (labels and .branchtargets inside
//     a { } scope, so inlined copies do not clash)
// NVCC 13.0 does not build jump tables by default (its jump-table density
// threshold is above 100%), so this file lowers the threshold:
// NVCC-EXTRA-FLAGS: -Xcicc -jump-table-density=40
// EXTRA-ARCHS: sm_75

__device__ __noinline__ int opcode_eval(int op, int a, int b)
{
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / (b | 1);
    case 4: return a % (b | 1);
    case 5: return a & b;
    case 6: return a | b;
    case 7: return a ^ b;
    case 8: return a << (b & 31);
    case 9: return a >> (b & 31);
    case 10: return min(a, b);
    case 11: return max(a, b);
    case 12: return abs(a - b);
    case 13: return __popc(a ^ b);
    case 14: return __clz(a) + b;
    case 15: return ~a;
    default: return -1;
    }
}

// A small interpreter: dense switch in a loop.
__global__ void interpreter(const int *code, int ncode, const int *in, int *out)
{
    int acc = in[threadIdx.x];
    int pc = 0;
#pragma unroll 1
    while (pc < ncode) {
        int op = code[pc];
        switch (op) {
        case 0: acc += 1; break;
        case 1: acc -= 3; break;
        case 2: acc *= 5; break;
        case 3: acc ^= 0x55; break;
        case 4: acc = acc >> 1; break;
        case 5: acc = acc << 2; break;
        case 6: acc = ~acc; break;
        case 7: pc += 2; break;
        case 8: acc = opcode_eval(code[pc + 1], acc, in[threadIdx.x + 32]); break;
        case 9: acc = acc * acc + 7; break;
        case 10: acc |= 0x100;  /* fall through */
        case 11: acc &= 0xffff; break;
        case 12: acc += in[(acc & 31)]; break;
        case 13: acc -= in[(acc & 63)]; break;
        default: goto done;
        }
        pc++;
    }
done:
    out[threadIdx.x] = acc;
}

// Sparse case values: compare tree rather than a table.
__global__ void sparse_switch(const int *in, int *out)
{
    int v = in[threadIdx.x], r;
    switch (v) {
    case 1: r = 10; break;
    case 100: r = 20; break;
    case 1000: r = 31; break;
    case 10000: r = 47; break;
    case -5: r = 53; break;
    case 77777: r = 61; break;
    default: r = v; break;
    }
    out[threadIdx.x] = r;
}

// Switch on a 64-bit value, and on a char.
__global__ void wide_narrow_switch(const long long *in, const char *cin, float *out)
{
    long long v = in[threadIdx.x];
    float f;
    switch (v) {
    case 0: f = 0.5f; break;
    case 1: f = out[1] * 2.0f; break;
    case 2: f = out[2] + 3.0f; break;
    case 3: f = __sinf(out[3]); break;
    case 4: f = out[4] - 1.0f; break;
    case 5: f = sqrtf(out[5]); break;
    case 6: f = out[6] * out[7]; break;
    case 7: f = -out[8]; break;
    default: f = 9.0f; break;
    }
    switch (cin[threadIdx.x]) {
    case 'a': f += 1.0f; break;
    case 'b': f *= 2.0f; break;
    case 'c': f -= 4.0f; break;
    case 'd': f = f * f; break;
    case 'e': f = 1.0f / f; break;
    case 'f': f += out[9]; break;
    case 'g': f += out[10]; break;
    default: break;
    }
    out[threadIdx.x + 64] = f;
}

// Hand-written jump table in inline PTX; works without the flag above.
__device__ __forceinline__ int asm_dispatch(unsigned sel, int x)
{
    int r;
    asm("{\n\t"
        ".reg .pred p;\n\t"
        "setp.gt.u32 p, %1, 3;\n\t"
        "@p bra.uni Ldef;\n\t"
        "Ltab: .branchtargets L0, L1, L2, L3;\n\t"
        "brx.idx %1, Ltab;\n"
        "L0:\n\t"
        "add.s32 %0, %2, 1;\n\t"
        "bra.uni Ldone;\n"
        "L1:\n\t"
        "shl.b32 %0, %2, 1;\n\t"
        "bra.uni Ldone;\n"
        "L2:\n\t"
        "mul.lo.s32 %0, %2, %2;\n\t"
        "bra.uni Ldone;\n"
        "L3:\n\t"
        "not.b32 %0, %2;\n\t"
        "bra.uni Ldone;\n"
        "Ldef:\n\t"
        "mov.s32 %0, 0;\n"
        "Ldone:\n\t"
        "}"
        : "=r"(r) : "r"(sel), "r"(x));
    return r;
}

__global__ void inline_brx(const unsigned *sel, const int *in, int *out)
{
    int i = threadIdx.x;
    // Two inlined copies of the same labels, each in its own scope.
    out[i] = asm_dispatch(sel[i], in[i]) + asm_dispatch(sel[i + 32] & 3, in[i + 32]);
}
