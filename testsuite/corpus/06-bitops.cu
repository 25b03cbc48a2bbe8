// RUN: %corpus-check %s
// 06-bitops.cu
// PTX features meant to be emitted:
//   - popc.b32/.b64, clz.b32/.b64, brev.b32/.b64, bfind.u32/.s32/.shiftamt
//   - bfe.u32/.s32/.u64, bfi.b32/.b64, prmt.b32 (and .f4e/.b4e/.rc8/.ecl
//     modes), lop3.b32 with immediate LUT
//   - shf.l.wrap / shf.r.clamp (funnel shifts, rotates)
//   - fns.b32 (__fns), dp4a / dp2a (lo/hi, signed and unsigned)
//   - bmsk.clamp / bmsk.wrap, szext.clamp / szext.wrap (sm_70+)
//   - and/or/xor/not/cnot on .b16/.b32/.b64, xor.pred, predicated @s / @!s
// EXTRA-ARCHS: sm_75

#include <cstdint>

__global__ void counts(const unsigned *a, const unsigned long long *b, int *o)
{
    int i = threadIdx.x;
    unsigned x = a[i];
    unsigned long long y = b[i];
    o[i * 10 + 0] = __popc(x);
    o[i * 10 + 1] = __popcll(y);
    o[i * 10 + 2] = __clz((int)x);
    o[i * 10 + 3] = __clzll((long long)y);
    o[i * 10 + 4] = (int)__brev(x);
    o[i * 10 + 5] = (int)(__brevll(y) >> 32);
    o[i * 10 + 6] = __ffs((int)x);
    o[i * 10 + 7] = __ffsll((long long)y);
    o[i * 10 + 8] = 31 - __clz((int)x);
    o[i * 10 + 9] = (int)__fns(x, (unsigned)i, 3);
}

__global__ void fields(const unsigned *a, const int *s, unsigned long long *b, unsigned *o, int *os)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = a[i + 1];
    int z = s[i];
    o[i * 8 + 0] = (x >> 7) & 0x3ffu;              // bfe.u32
    os[i] = (z << 9) >> 20;                          // bfe.s32
    o[i * 8 + 1] = (x & ~0xff00u) | ((y & 0xffu) << 8); // bfi
    o[i * 8 + 2] = __byte_perm(x, y, 0x5140);
    o[i * 8 + 3] = __byte_perm(x, y, (unsigned)z);
    o[i * 8 + 4] = (x & y) ^ (~x & a[i + 2]) ^ (y | ~a[i + 3]); // lop3
    o[i * 8 + 5] = __funnelshift_l(x, y, z);
    o[i * 8 + 6] = __funnelshift_rc(x, y, z);
    o[i * 8 + 7] = (x << 13) | (x >> 19);            // rotate
    b[i] = (b[i] >> 12) & 0xfffffull;                // bfe.u64
}

__global__ void dot_products(const int *a, const unsigned *b, int *o, unsigned *ou)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 1];
    unsigned u = b[i], v = b[i + 1];
    o[i * 3 + 0] = __dp4a(x, y, 7);
    o[i * 3 + 1] = __dp2a_lo(x, y, o[i]);
    o[i * 3 + 2] = __dp2a_hi(x, y, 1);
    ou[i * 2 + 0] = __dp4a(u, v, 3u);
    ou[i * 2 + 1] = __dp2a_hi(u, v, ou[i]);
}

// Forms that need inline PTX: bmsk, szext, bfind, prmt modes, explicit bfe,
// lop3 with an arbitrary LUT, logical ops on predicates and 16-bit values.
__global__ void inline_bits(const unsigned *a, unsigned *o)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = a[i + 1], z = a[i + 2];
    unsigned r[12];
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r[0]) : "r"(x & 31), "r"(y & 31));
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r[1]) : "r"(x), "r"(y));
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r[2]) : "r"(x), "r"(y));
    asm("szext.wrap.u32 %0, %1, %2;" : "=r"(r[3]) : "r"(x), "r"(y));
    asm("bfind.u32 %0, %1;" : "=r"(r[4]) : "r"(x));
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(r[5]) : "r"(y));
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(z));
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r[7]) : "r"(x), "r"(y), "r"(z));
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r[8]) : "r"(x), "r"(y & 31), "r"(8));
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r[9]) : "r"(x), "r"(y), "r"(z));
    unsigned t0, t1;
    unsigned long long t2;
    asm("bfe.u32 %0, %1, 4, 12;" : "=r"(t0) : "r"(x));
    asm("bfi.b32 %0, %1, %2, 8, 8;" : "=r"(t1) : "r"(x), "r"(y));
    asm("bfe.u64 %0, %1, %2, 20;" : "=l"(t2) : "l"((unsigned long long)z << 7), "r"(x & 31));
    r[9] += t0 ^ t1 ^ (unsigned)t2;
    unsigned short h = (unsigned short)x, hr;
    asm("{\n\t.reg .b16 t;\n\t"
        "not.b16 t, %1;\n\t"
        "cnot.b16 %0, t;\n\t}" : "=h"(hr) : "h"(h));
    r[10] = hr;
    unsigned long long w = ((unsigned long long)y << 32) | x, wr;
    asm("bfind.u64 %0, %1;" : "=r"(r[11]) : "l"(w));
    asm("{\n\t.reg .pred p, q, s;\n\t"
        "setp.ne.u64 p, %1, 0;\n\t"
        "setp.lt.u64 q, %1, 1000;\n\t"
        "xor.pred s, p, q;\n\t"
        "@s not.b64 %0, %1;\n\t"
        "@!s brev.b64 %0, %1;\n\t}" : "=l"(wr) : "l"(w));
    for (int k = 0; k < 12; k++)
        o[i * 12 + k] = r[k];
    o[1024 + i] = (unsigned)wr;
}
