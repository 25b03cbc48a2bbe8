// RUN: %corpus-check %s
// 02-int-arith.cu
// PTX features meant to be emitted:
//   - integer arithmetic on every width: ld/st/cvt of .s8/.u8, add/sub/mul on
//     .s16/.u16, .s32/.u32, .s64/.u64
//   - div/rem signed and unsigned, 32 and 64 bit (div.s64 / rem.u64 etc.)
//   - mul.lo / mul.hi / mul.wide / mad.lo / mad.hi / mul24 / mad24 / sad
//   - min/max/abs/neg of signed and unsigned, 16/32/64-bit
//   - shl/shr (arithmetic and logical) on 16/32/64 bits
//   - setp with every integer compare (eq ne lt le gt ge lo ls hi hs),
//     selp, slct (inline asm), predicates combined with and/or/xor/not.pred
//   - add.cc / addc (via inline asm), add.sat.s32, sub.sat
// EXTRA-ARCHS: sm_75

#include <cstdint>

__global__ void narrow_types(const int8_t *a8, const uint8_t *b8, const int16_t *a16,
                             const uint16_t *b16, int8_t *o8, uint8_t *ou8,
                             int16_t *o16, uint16_t *ou16)
{
    int i = threadIdx.x;
    int8_t x = a8[i];
    uint8_t y = b8[i];
    int16_t s = a16[i];
    uint16_t u = b16[i];
    o8[i] = (int8_t)(x * 3 - (int8_t)y);
    ou8[i] = (uint8_t)(y >> 2) | (uint8_t)(x << 1);
    o16[i] = (int16_t)(s * s + (int16_t)(s >> 3) - (int16_t)u);
    ou16[i] = (uint16_t)((u / 7) + (u % 5) + (u >> 1));
    // 16-bit min/max
    o16[i + 64] = s < (int16_t)x ? s : (int16_t)x;
    ou16[i + 64] = u > (uint16_t)y ? u : (uint16_t)y;
}

__global__ void int32_ops(const int *a, const unsigned *b, int *o, unsigned *ou)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 1] | 1;
    unsigned u = b[i], v = b[i + 1] | 1u;
    o[i * 16 + 0] = x / y;
    o[i * 16 + 1] = x % y;
    o[i * 16 + 2] = min(x, y) + max(x, y);
    o[i * 16 + 3] = abs(x) - (-y);
    o[i * 16 + 4] = __mulhi(x, y);
    o[i * 16 + 5] = __mul24(x, y) + x * y;
    o[i * 16 + 6] = x >> (y & 31);
    o[i * 16 + 7] = __sad(x, y, 3);
    o[i * 16 + 8] = __hadd(x, y) + __rhadd(x, y);
    ou[i * 16 + 0] = u / v;
    ou[i * 16 + 1] = u % v;
    ou[i * 16 + 2] = umin(u, v) ^ umax(u, v);
    ou[i * 16 + 3] = __umulhi(u, v);
    ou[i * 16 + 4] = __umul24(u, v) + u * v + 17u;
    ou[i * 16 + 5] = u >> (v & 31);
    ou[i * 16 + 6] = u << (v & 15);
    ou[i * 16 + 7] = __usad(u, v, 1u);
    ou[i * 16 + 8] = __uhadd(u, v) + __urhadd(u, v);
    // divide by constants -> mul.hi magic sequences
    ou[i * 16 + 9] = u / 10u + u % 1000u;
    o[i * 16 + 9] = x / -7 + x % 13;
}

__global__ void int64_ops(const long long *a, const unsigned long long *b,
                          long long *o, unsigned long long *ou, int k)
{
    int i = threadIdx.x;
    long long x = a[i], y = a[i + 1] | 1;
    unsigned long long u = b[i], v = b[i + 1] | 1;
    o[i * 8 + 0] = x / y;
    o[i * 8 + 1] = x % y;
    o[i * 8 + 2] = llmin(x, y) + llmax(x, y) + llabs(x);
    o[i * 8 + 3] = __mul64hi(x, y) + x * y;
    o[i * 8 + 4] = (x >> (k & 63)) + (x << 7);
    ou[i * 8 + 0] = u / v;
    ou[i * 8 + 1] = u % v;
    ou[i * 8 + 2] = ullmin(u, v) | ullmax(u, v);
    ou[i * 8 + 3] = __umul64hi(u, v);
    ou[i * 8 + 4] = u >> (k & 63);
    // 32x32 -> 64 multiplies and multiply-add
    ou[i * 8 + 5] = (unsigned long long)(unsigned)u * (unsigned)v + u;
    o[i * 8 + 5] = (long long)(int)x * (int)y;
}

// Every integer comparison, signed and unsigned, 32 and 64 bit; selp.
__global__ void compares(const int *a, const unsigned *b, const long long *c,
                         const unsigned long long *d, int *o)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 32];
    unsigned u = b[i], v = b[i + 32];
    long long p = c[i], q = c[i + 32];
    unsigned long long r = d[i], s = d[i + 32];
    int m = 0;
    m |= (x == y) << 0;
    m |= (x != y) << 1;
    m |= (x < y) << 2;
    m |= (x <= y) << 3;
    m |= (x > y) << 4;
    m |= (x >= y) << 5;
    m |= (u < v) << 6;
    m |= (u <= v) << 7;
    m |= (u > v) << 8;
    m |= (u >= v) << 9;
    m |= (p < q) << 10;
    m |= (p >= q) << 11;
    m |= (r < s) << 12;
    m |= (r > s) << 13;
    m |= (r <= s) << 14;
    m |= (p == q) << 15;
    o[i] = m;
    // selp and combined predicates
    bool c1 = x < y, c2 = u > v, c3 = p != q;
    o[i + 64] = (c1 && c2) ? x : y;
    o[i + 128] = (c1 || c3) ? (int)u : (int)v;
    o[i + 192] = (c1 != c2) ? 5 : 9;
    o[i + 256] = !(c2 || c3) ? x + 1 : x - 1;
}

// Things nvcc will not produce from C++: slct, add.cc/addc, sat arithmetic, prefetch-free.
__global__ void inline_int(int *o, const int *a)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 1], z = a[i + 2];
    int r0, r1, r2;
    unsigned lo, hi;
    asm("slct.s32.s32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(y), "r"(z));
    asm("add.sat.s32 %0, %1, %2;" : "=r"(r1) : "r"(x), "r"(y));
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(r2) : "r"(r1), "r"(z));
    asm("add.cc.u32 %0, %2, %3;\n\t"
        "addc.u32 %1, %4, %5;"
        : "=r"(lo), "=r"(hi) : "r"(x), "r"(y), "r"(z), "r"(r0));
    float f;
    asm("slct.f32.s32 %0, %1, %2, %3;" : "=f"(f) : "f"((float)x), "f"((float)y), "r"(z));
    o[i * 6 + 0] = r0;
    o[i * 6 + 1] = r1;
    o[i * 6 + 2] = r2;
    o[i * 6 + 3] = (int)lo;
    o[i * 6 + 4] = (int)hi;
    o[i * 6 + 5] = (int)f;
}

// Remainder on its own (when the quotient is also needed nvcc derives rem
// from div; here it has to emit rem.*).
__global__ void rem_only(const int *a, const unsigned *b, const long long *c,
                         const unsigned long long *d, int *o, long long *o64)
{
    int i = threadIdx.x;
    o[i] = a[i] % (a[i + 1] | 1);
    o[i + 32] = (int)(b[i] % (b[i + 1] | 1u));
    o64[i] = c[i] % (c[i + 1] | 1);
    o64[i + 32] = (long long)(d[i] % (d[i + 1] | 1ull));
}

// 24-bit multiplies, negation, mad.hi, not.pred via inline asm.
__global__ void inline_mul24(int *o, const int *a)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 1], r0, r1, r2, r3;
    asm("mul24.lo.s32 %0, %1, %2;" : "=r"(r0) : "r"(x), "r"(y));
    asm("mad24.lo.u32 %0, %1, %2, %0;" : "+r"(r0) : "r"(x), "r"(y));
    asm("mad.hi.s32 %0, %1, %2, %3;" : "=r"(r1) : "r"(x), "r"(y), "r"(r0));
    asm("neg.s32 %0, %1;" : "=r"(r2) : "r"(r1));
    asm("{\n\t.reg .pred p, q;\n\t"
        "setp.gt.s32 p, %1, 0;\n\t"
        "not.pred q, p;\n\t"
        "selp.s32 %0, 1, 2, q;\n\t}"
        : "=r"(r3) : "r"(x));
    o[i * 4 + 0] = r0;
    o[i * 4 + 1] = r1;
    o[i * 4 + 2] = r2;
    o[i * 4 + 3] = r3;
}
