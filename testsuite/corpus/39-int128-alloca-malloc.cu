// RUN: %corpus-check %s
// 39-int128-alloca-malloc.cu
// PTX features meant to be emitted:
//   - __int128 arithmetic: add.cc/addc chains, mul.lo/mul.hi.u64 sequences,
//     128-bit shifts (shf / 64-bit shift combos), inlined 128-bit division
//     loops, ld/st.global.v2.u64 of 128-bit values
//   - 128-bit atomics on sm_90+: atom.global.cas.b128 / atom.global.exch.b128
//     inside nvcc-generated { } scopes that declare ".reg .b128 %dst;" and
//     use mov.b128 %b, {%rd1, %rd2} / mov.b128 {%rd3, %rd4}, %dst
//   - dynamic stack allocation: alloca.u64 %rd, %rd, 16 (alloca()),
//     stacksave.u64 / stackrestore.u64 (inline PTX; nvcc has no VLAs)
//   - device heap: .extern .func malloc / free calls with .param staging
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_75

__global__ void int128_math(const __int128 *a, const unsigned __int128 *b, __int128 *o,
                            unsigned __int128 *ou, int sh)
{
    int t = threadIdx.x;
    __int128 x = a[t], y = a[t + 1] | 1;
    unsigned __int128 u = b[t], v = b[t + 1] | 1;
    o[t * 4 + 0] = x + y;
    o[t * 4 + 1] = x * y - (x >> (sh & 127));
    o[t * 4 + 2] = x / y;
    o[t * 4 + 3] = x % y;
    ou[t * 4 + 0] = u * v;
    ou[t * 4 + 1] = u / 1000000007u;
    ou[t * 4 + 2] = (u << (sh & 127)) | (v >> 64);
    ou[t * 4 + 3] = u > v ? u - v : v - u;
}

__global__ void atomics_128(unsigned __int128 *p, __int128 *q, unsigned __int128 *out)
{
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
    unsigned __int128 expected = p[0];
    unsigned __int128 desired = expected + (unsigned __int128)t;
    unsigned __int128 old = atomicCAS(p, expected, desired);
    unsigned __int128 prev = atomicExch(p + 1, old);
    __int128 sprev = atomicExch(q, (__int128)t - 5);
    out[t] = old ^ prev ^ (unsigned __int128)sprev;
#else
    out[t] = p[t] + (unsigned __int128)q[t];
#endif
}

__global__ void dynamic_stack(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    int *buf = static_cast<int *>(alloca((size_t)n * sizeof(int)));
    for (int i = 0; i < n; i++)
        buf[i] = in[(t + i) & 255];
    int acc = 0;
    for (int round = 1; round < 4; round++) {
        int m = n / round + 1;
        unsigned long long sp;
        asm volatile("stacksave.u64 %0;" : "=l"(sp));
        int *tmp = static_cast<int *>(alloca((size_t)m * sizeof(int)));
        for (int i = 0; i < m; i++)
            tmp[i] = buf[i % n] * round;
        acc += tmp[t % m];
        asm volatile("stackrestore.u64 %0;" ::"l"(sp));
    }
    out[t] = acc + buf[t % n];
}

__global__ void heap(int *out, int n)
{
    int t = threadIdx.x;
    int *p = static_cast<int *>(malloc((size_t)n * sizeof(int)));
    if (p == nullptr) {
        out[t] = -1;
        return;
    }
    for (int i = 0; i < n; i++)
        p[i] = i * t;
    out[t] = p[n - 1];
    free(p);
}
