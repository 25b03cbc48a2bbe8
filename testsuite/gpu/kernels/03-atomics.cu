// Atomics on global and shared memory.  Integer add/min/max/and/or/xor are
// commutative and associative, so any starting value and any block order give
// the same result; exchange and compare-and-swap are only used where one
// thread owns the address, so their results are fixed too.  Float additions
// across blocks depend on the order and carry a tolerance.

// Every 32-bit integer atomic on global bins, from a grid-stride loop.
// Starting values are random: the final values do not depend on the order.
extern "C" __global__ void at_global_u32(unsigned *b_add, unsigned *b_min, unsigned *b_max,
                                         unsigned *b_and, unsigned *b_or, unsigned *b_xor,
                                         int *b_smin, int *b_smax, int *b_sub, const unsigned *in,
                                         int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned v = in[i];
        int bin = (int)((v >> 7) % 61u);
        atomicAdd(&b_add[bin], v);
        atomicMin(&b_min[bin], v);
        atomicMax(&b_max[bin], v);
        atomicAnd(&b_and[bin], v | (1u << (i & 31)));
        atomicOr(&b_or[bin], v & (0x11111111u << (i & 3)));
        atomicXor(&b_xor[bin], v * 2654435761u);
        atomicMin(&b_smin[bin], (int)v);
        atomicMax(&b_smax[bin], (int)v);
        atomicSub(&b_sub[bin], (int)(v & 0xffff));
    }
}
// CASE: name=at_global_u32_37x128 kernel=at_global_u32 grid=37 block=128
// PARAM: buf u32 61 rand
// PARAM: buf u32 61 rand
// PARAM: buf u32 61 rand
// PARAM: buf u32 61 rand
// PARAM: buf u32 61 rand
// PARAM: buf u32 61 rand
// PARAM: buf i32 61 rand
// PARAM: buf i32 61 rand
// PARAM: buf i32 61 rand
// PARAM: buf u32 200003 rand
// PARAM: i32 200003
// CASE: name=at_global_u32_4096x64 kernel=at_global_u32 grid=4096 block=64
// PARAM: buf u32 61 zero
// PARAM: buf u32 61 const:4294967295
// PARAM: buf u32 61 zero
// PARAM: buf u32 61 const:4294967295
// PARAM: buf u32 61 zero
// PARAM: buf u32 61 zero
// PARAM: buf i32 61 const:2147483647
// PARAM: buf i32 61 const:-2147483648
// PARAM: buf i32 61 zero
// PARAM: buf u32 262144 rand
// PARAM: i32 262144

// Exchange and compare-and-swap where each thread owns its element (no
// loop around them): the old values are part of the output.  Also the
// shared-memory forms, on slots owned by one thread each.
extern "C" __global__ void at_exch_cas_owned(unsigned *a, unsigned *olds, const unsigned *keys,
                                             unsigned long long *a64, int n)
{
    __shared__ unsigned s[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;

    s[t] = (unsigned)i * 7u;
    __syncthreads();
    if (i >= n)
        return;
    unsigned k = keys[i];
    unsigned old = atomicExch(&a[i], k);
    /* succeeds when k is odd: a[i] holds k now */
    unsigned prev = atomicCAS(&a[i], (k & 1u) ? k : ~k, k * 3u + 1u);
    unsigned sx = atomicExch(&s[t], k ^ old);
    unsigned sc = atomicCAS(&s[t], k ^ old, sx + prev);
    unsigned long long o64 = atomicExch(&a64[i], (unsigned long long)k << 32 | old);
    unsigned long long c64 = atomicCAS(&a64[i], o64, 5ull); /* succeeds only if o64 == new */
    olds[4 * i + 0] = old;
    olds[4 * i + 1] = prev;
    olds[4 * i + 2] = sc ^ s[t];
    olds[4 * i + 3] = (unsigned)(c64 >> 7) ^ (unsigned)o64;
}
// CASE: name=at_exch_cas_owned_tail kernel=at_exch_cas_owned grid=40 block=256
// PARAM: buf u32 10000 rand
// PARAM: buf u32 40000 zero
// PARAM: buf u32 10000 rand
// PARAM: buf u64 10000 rand
// PARAM: i32 10000
// CASE: name=at_exch_cas_owned_small_keys kernel=at_exch_cas_owned grid=7,1 block=1000
// PARAM: buf u32 7000 randint:0:3
// PARAM: buf u32 28000 zero
// PARAM: buf u32 7000 randint:0:3
// PARAM: buf u64 7000 randint:0:3
// PARAM: i32 7000

// Shared-memory atomics of every kind, then one global atomic per shared bin
// and block.  Shared bins are set up before a barrier and flushed after one.
extern "C" __global__ void at_shared_ops(unsigned *g_add, unsigned *g_min, unsigned *g_max,
                                         unsigned *g_and, unsigned *g_or, unsigned *g_xor,
                                         unsigned long long *g_add64, const unsigned *in, int n)
{
    __shared__ unsigned s_add[32], s_min[32], s_max[32], s_and[32], s_or[32], s_xor[32];
    __shared__ unsigned long long s_add64[32];
    __shared__ unsigned s_inc[32];
    int t = threadIdx.x;

    for (int j = t; j < 32; j += blockDim.x) {
        s_add[j] = 0;
        s_min[j] = 0xffffffffu;
        s_max[j] = 0;
        s_and[j] = 0xffffffffu;
        s_or[j] = 0;
        s_xor[j] = 0;
        s_add64[j] = 0;
        s_inc[j] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        unsigned v = in[i];
        int bin = v & 31;
        atomicAdd(&s_add[bin], v >> 5);
        atomicMin(&s_min[bin], v);
        atomicMax(&s_max[bin], v);
        atomicAnd(&s_and[bin], v | 0x0f0f0f0fu);
        atomicOr(&s_or[bin], v & 0x10204080u);
        atomicXor(&s_xor[bin], v);
        atomicAdd(&s_add64[bin], (unsigned long long)v * v);
        atomicInc(&s_inc[bin], 9u); /* counts modulo 10: order-free */
    }
    __syncthreads();
    for (int j = t; j < 32; j += blockDim.x) {
        atomicAdd(&g_add[j], s_add[j] + s_inc[j]);
        atomicMin(&g_min[j], s_min[j]);
        atomicMax(&g_max[j], s_max[j]);
        atomicAnd(&g_and[j], s_and[j]);
        atomicOr(&g_or[j], s_or[j]);
        atomicXor(&g_xor[j], s_xor[j]);
        atomicAdd(&g_add64[j], s_add64[j]);
    }
}
// CASE: name=at_shared_ops_64x256 kernel=at_shared_ops grid=64 block=256
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 rand
// PARAM: buf u64 32 rand
// PARAM: buf u32 300001 rand
// PARAM: i32 300001
// CASE: name=at_shared_ops_2000x16 kernel=at_shared_ops grid=2000 block=16
// PARAM: buf u32 32 zero
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 zero
// PARAM: buf u32 32 rand
// PARAM: buf u32 32 zero
// PARAM: buf u32 32 zero
// PARAM: buf u64 32 zero
// PARAM: buf u32 50000 rand
// PARAM: i32 50000

// 64-bit atomics: unsigned add/min/max/and/or/xor and signed min/max.
extern "C" __global__ void at_atomic64(unsigned long long *u, long long *s,
                                       const unsigned long long *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned long long v = in[i];
        int bin = (int)(v % 13ull);
        atomicAdd(&u[bin], v);
        atomicMin(&u[13 + bin], v);
        atomicMax(&u[26 + bin], v);
        atomicAnd(&u[39 + bin], v | (1ull << (i & 63)));
        atomicOr(&u[52 + bin], v & (0x0101010101010101ull << (i & 7)));
        atomicXor(&u[65 + bin], v);
        atomicMin(&s[bin], (long long)v);
        atomicMax(&s[13 + bin], (long long)v);
    }
}
// CASE: name=at_atomic64_50x128 kernel=at_atomic64 grid=50 block=128
// PARAM: buf u64 78 rand
// PARAM: buf i64 26 rand
// PARAM: buf u64 100000 rand
// PARAM: i32 100000
// CASE: name=at_atomic64_3x1024 kernel=at_atomic64 grid=3 block=1024
// PARAM: buf u64 78 rand
// PARAM: buf i64 26 rand
// PARAM: buf u64 77777 rand
// PARAM: i32 77777

// Float and double atomicAdd into few bins from many blocks: the sums depend
// on the order of the additions, hence tol.  Values are shifted to [1, 3) so
// that no bin sums to nearly zero (a relative tolerance would fail there).
extern "C" __global__ void at_float_add(float *bins, double *dbins, const float *in, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = in[i] + 2.0f;
        int b = (i * 7) % nbins;
        atomicAdd(&bins[b], v);
        atomicAdd(&dbins[b], (double)v * 1.0000001);
    }
}
// CASE: name=at_float_add_100x128 kernel=at_float_add grid=100 block=128 tol=1e-4
// PARAM: buf f32 16 zero
// PARAM: buf f64 16 zero
// PARAM: buf f32 100000 rand
// PARAM: i32 100000
// PARAM: i32 16
// CASE: name=at_float_add_4000x32_97bins kernel=at_float_add grid=4000 block=32 tol=1e-4
// PARAM: buf f32 97 rand
// PARAM: buf f64 97 rand
// PARAM: buf f32 20000 rand
// PARAM: i32 20000
// PARAM: i32 97

// atomicInc / atomicDec with wrap-around on global counters: k increments
// from 0 (or decrements) end at the same value in any order.
extern "C" __global__ void at_inc_dec(unsigned *ctr, const unsigned *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned v = in[i];
        atomicInc(&ctr[v & 7], 1000u);
        atomicDec(&ctr[8 + ((v >> 3) & 7)], 77u);
    }
}
// CASE: name=at_inc_dec_31x96 kernel=at_inc_dec grid=31 block=96
// PARAM: buf u32 16 zero
// PARAM: buf u32 123457 rand
// PARAM: i32 123457
// CASE: name=at_inc_dec_1x32 kernel=at_inc_dec grid=1 block=32
// PARAM: buf u32 16 zero
// PARAM: buf u32 5000 rand
// PARAM: i32 5000
