// RUN: %corpus-check %s
// 11-trap-printf-assert.cu
// PTX features meant to be emitted:
//   - trap; (__trap), exit; (inline asm), brkpt; (__brkpt), pmevent (inline asm)
//   - printf: .extern .func (.param .b32 func_retval0) vprintf(.param .b64, .param .b64)
//     with a local-depot argument buffer (st.local of mixed-size args),
//     format strings as .global .align 1 .b8 $str[..] = {..}, cvta.global
//   - assert: .extern .func __assertfail(...) with file/line/function strings
//   - calls with .param staging from several kernels
// EXTRA-ARCHS: sm_75

#include <cstdio>
#include <cassert>

__global__ void printing(const int *a, const double *d, const char *s)
{
    int i = threadIdx.x;
    printf("hello from thread %d block %d\n", i, blockIdx.x);
    printf("int=%d long=%lld uint=%u char=%c\n", a[i], (long long)a[i] * 1000000007LL,
           (unsigned)a[i + 1], 'A' + (i & 15));
    printf("float=%f double=%e ptr=%p str=%s\n", (float)d[i], d[i + 1], (void *)a, s);
    printf("no arguments at all\n");
    printf("%5.2f%% done, tab\tquote\" backslash\\\n", d[0] * 100.0);
}

__global__ void asserting(const int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i < n);
    assert(a[i] >= 0 && "values must be non-negative");
}

__global__ void trapping(const int *a, int *o)
{
    int i = threadIdx.x;
    int v = a[i];
    if (v == 0xdead)
        __trap();
    if (v == 0xbeef)
        asm volatile("exit;");
    if (v == 0xcafe)
        __brkpt();
    if (v == 0xf00d)
        asm volatile("pmevent 3;");
    if (v == 0xface)
        asm volatile("trap;");
    o[i] = v + 1;
}
