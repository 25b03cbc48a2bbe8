// Loops that look like waits on other blocks but are not: a lock-free CAS
// retry loop, atomicExch in a grid-stride loop, a last-block-done reduction
// that reads the partials through volatile, relaxed atomic loads in a
// counted loop.  All are deterministic and correct in any block order, so
// colocc must transform them.  Until afe0635 its spin-wait heuristic took
// any loop holding a volatile/relaxed/acquire global load, a global
// atom.cas/atom.exch or nanosleep for a wait and refused slice and ptb for
// all four; since then it follows the data flow into the loop's branches
// (a loop with nanosleep is still taken for a wait: see ca_barrier_memcpy in
// 09-async-copy.cu).

// A lock-free CAS retry loop (float atomic max): a CAS fails only when another
// running thread's CAS succeeded, so the loop makes progress whatever runs.
extern "C" __global__ void hz_cas_loop_fmax(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = in[i];
        unsigned *p = (unsigned *)&out[i & 15];
        unsigned old = *p, assumed;
        do {
            assumed = old;
            if (__uint_as_float(assumed) >= v)
                break;
            old = atomicCAS(p, assumed, __float_as_uint(v));
        } while (old != assumed);
    }
}
// CASE: name=hz_cas_loop_fmax_64x128 kernel=hz_cas_loop_fmax grid=64 block=128
// PARAM: buf f32 16 rand
// PARAM: buf f32 100000 rand
// PARAM: i32 100000

// atomicExch on elements each thread owns, in a grid-stride loop whose exit
// depends only on the index.
extern "C" __global__ void hz_exch_grid_stride(unsigned *a, unsigned *o, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        o[i] = atomicExch(&a[i], o[i] * 3u + 1u);
}
// CASE: name=hz_exch_grid_stride_29x64 kernel=hz_exch_grid_stride grid=29 block=64
// PARAM: buf u32 50000 rand
// PARAM: buf u32 50000 rand
// PARAM: i32 50000

// The last-block-done reduction as it is often written, with the last block
// reading the partials through a volatile pointer in a counted loop (the
// partials are all written before the last ticket is taken; nothing is
// waited for).
extern "C" __global__ void hz_last_block_volatile(float *partials, unsigned *ticket, float *result,
                                                  const float *in, int n)
{
    __shared__ float s[256];
    __shared__ bool am_last;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;

    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h)
            s[t] += s[t + h];
        __syncthreads();
    }
    if (t == 0) {
        partials[blockIdx.x] = s[0];
        __threadfence();
        am_last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (am_last && t == 0) {
        volatile float *vp = partials;
        float tot = 0.0f;
        for (unsigned b = 0; b < gridDim.x; b++)
            tot += vp[b];
        result[0] = tot;
    }
}
// CASE: name=hz_last_block_volatile_50x256 kernel=hz_last_block_volatile grid=50 block=256
// PARAM: buf f32 50 zero
// PARAM: buf u32 1 zero
// PARAM: buf f32 1 zero
// PARAM: buf f32 12345 rand
// PARAM: i32 12345

// Relaxed atomic loads (as cuda::atomic_ref::load(memory_order_relaxed)
// emits) of a read-only table in a counted loop.
extern "C" __global__ void hz_relaxed_load_loop(unsigned *out, unsigned *table, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned s = 0;
    for (int k = 0; k < m; k++)
        s = s * 31u + __nv_atomic_load_n(&table[(i + k * 7) % n], __NV_ATOMIC_RELAXED,
                                          __NV_THREAD_SCOPE_DEVICE);
    out[i] = s;
}
// CASE: name=hz_relaxed_load_loop_10x100 kernel=hz_relaxed_load_loop grid=10 block=100
// PARAM: buf u32 1000 zero
// PARAM: buf u32 1000 rand
// PARAM: i32 1000
// PARAM: i32 9
