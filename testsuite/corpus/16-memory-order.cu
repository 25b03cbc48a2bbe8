// RUN: %corpus-check %s
// 16-memory-order.cu
// PTX features meant to be emitted:
//   - ld.acquire.gpu / ld.relaxed.gpu / st.release.gpu / st.relaxed (sys, cta
//     scopes too) from cuda::atomic_ref and inline PTX
//   - atom.acquire / .release / .acq_rel / .relaxed with .cta/.gpu/.sys scopes
//     (fetch_add, exchange, compare_exchange_strong, fetch_min ...)
//   - fence.sc.gpu / fence.acq_rel.gpu / fence.acq_rel.cta / fence.sc.sys,
//     membar.cta / membar.gl / membar.sys (__threadfence*)
//   - fence.proxy.alias, fence.proxy.async (sm_90), fence.mbarrier_init
//     .release.cluster (sm_90)
//   - ld.mmio.relaxed.sys / st.mmio (inline, sm_80 and up here)
//   - the __nv_atomic_* compiler builtins (CUDA 12.8+): atom.add.acquire.gpu,
//     atom.max.relaxed.cluster (sm_90), fence.sc.gpu for seq_cst
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_75

#include <cuda/atomic>

__global__ void atomic_ref_orders(int *data, unsigned long long *wide, int *out)
{
    int t = threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> dev(data[0]);
    cuda::atomic_ref<int, cuda::thread_scope_block> blk(data[1]);
    cuda::atomic_ref<int, cuda::thread_scope_system> sys(data[2]);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(*wide);

    int r = dev.load(cuda::std::memory_order_acquire);
    r += dev.load(cuda::std::memory_order_relaxed);
    r += blk.load(cuda::std::memory_order_seq_cst);
    dev.store(t, cuda::std::memory_order_release);
    sys.store(t, cuda::std::memory_order_relaxed);
    r += dev.fetch_add(1, cuda::std::memory_order_acq_rel);
    r += blk.fetch_add(2, cuda::std::memory_order_relaxed);
    r += sys.fetch_or(4, cuda::std::memory_order_release);
    r += dev.exchange(t, cuda::std::memory_order_acquire);
    int expected = 0;
    dev.compare_exchange_strong(expected, t, cuda::std::memory_order_acq_rel,
                                cuda::std::memory_order_acquire);
    r += expected;
    r += blk.fetch_min(t, cuda::std::memory_order_seq_cst);
    r += (int)w.fetch_add(3ull, cuda::std::memory_order_release);
    r += (int)w.load(cuda::std::memory_order_acquire);
    out[t] = r;
}

// Message passing with release/acquire flags.
__global__ void message_passing(int *payload, int *flag, int *out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0 && t == 0) {
        payload[0] = 42;
        cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
        f.store(1, cuda::std::memory_order_release);
    } else if (t == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
        while (f.load(cuda::std::memory_order_acquire) == 0) {
        }
        out[blockIdx.x] = payload[0];
    }
}

__global__ void fences(int *data)
{
    int t = threadIdx.x;
    data[t] = t;
    __threadfence_block();
    data[t + 32] = t;
    __threadfence();
    data[t + 64] = t;
    __threadfence_system();
    cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
    cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel, cuda::thread_scope_block);
    cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_system);
    asm volatile("fence.sc.cta;" ::: "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("fence.sc.sys;" ::: "memory");
    asm volatile("membar.gl;" ::: "memory");
    asm volatile("membar.cta;" ::: "memory");
    asm volatile("membar.sys;" ::: "memory");
    asm volatile("fence.proxy.alias;" ::: "memory");
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
#endif
    data[t + 96] = t;
}

__global__ void inline_orders(int *g, int *out)
{
    int t = threadIdx.x, a, b, c;
    unsigned long long d;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(a) : "l"(g));
    asm volatile("ld.relaxed.cta.global.b32 %0, [%1];" : "=r"(b) : "l"(g + 1));
    asm volatile("ld.acquire.sys.b64 %0, [%1];" : "=l"(d) : "l"(g + 2));
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(g + 4), "r"(t));
    asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(g + 5), "r"(t));
    asm volatile("st.release.cta.b32 [%0], %1;" ::"l"(g + 6), "r"(t));
    asm volatile("ld.volatile.global.b32 %0, [%1];" : "=r"(c) : "l"(g + 7));
    asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(c) : "l"(g + 8), "r"(0), "r"(t));
    asm volatile("atom.release.sys.global.inc.u32 %0, [%1], %2;" : "=r"(b) : "l"(g + 9), "r"(64));
#if __CUDA_ARCH__ >= 800
    int m;
    asm volatile("ld.mmio.relaxed.sys.global.b32 %0, [%1];" : "=r"(m) : "l"(g + 10));
    asm volatile("st.mmio.relaxed.sys.global.b32 [%0], %1;" ::"l"(g + 11), "r"(m));
    c += m;
#endif
    out[t] = a + b + c + (int)d;
}

// CUDA 12.8+ __nv_atomic builtins with explicit order and scope.
__global__ void nv_atomic_builtins(int *p, unsigned long long *q, float *f, int *o)
{
    int a = __nv_atomic_fetch_add(p, 1, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE);
    int b = __nv_atomic_load_n(p + 1, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_BLOCK);
    __nv_atomic_store_n(p + 2, a + b, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_SYSTEM);
    int expected = 0;
    bool ok = __nv_atomic_compare_exchange_n(p + 3, &expected, 5, false, __NV_ATOMIC_ACQ_REL,
                                             __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
    unsigned long long c = __nv_atomic_fetch_or(q, 1ull, __NV_ATOMIC_RELAXED,
                                                __NV_THREAD_SCOPE_DEVICE);
    float g = __nv_atomic_fetch_add(f, 1.0f, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_BLOCK);
    int x = __nv_atomic_exchange_n(p + 4, 3, __NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
    __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
#if __CUDA_ARCH__ >= 900
    x += __nv_atomic_fetch_max(p + 5, 3, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_CLUSTER);
#endif
    o[threadIdx.x] = a + b + ok + (int)c + (int)g + x + expected;
}
