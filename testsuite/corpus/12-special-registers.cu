// RUN: %corpus-check %s
// 12-special-registers.cu
// PTX features meant to be emitted:
//   - mov.u32 %r, %laneid / %warpid / %nwarpid / %smid / %nsmid / %gridid
//   - %lanemask_eq/_le/_lt/_ge/_gt, %dynamic_smem_size, %total_smem_size
//   - %clock, %clock64 (clock(), clock64()), %globaltimer (inline asm),
//     %globaltimer_lo/_hi, %envreg0..%envreg31 (a few), %pm0
//   - nanosleep.u32 (__nanosleep) with register and immediate operands
//   - mov.u64 of 64-bit special registers, mov.u32 %r, %tid.x etc.
// EXTRA-ARCHS: sm_75

__device__ __forceinline__ unsigned sreg_laneid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

__global__ void ids(unsigned *o)
{
    unsigned lane, warp, nwarp, sm, nsm;
    unsigned long long grid;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nwarp));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
    lane = sreg_laneid();
    unsigned t = threadIdx.x;
    o[t * 6 + 0] = lane;
    o[t * 6 + 1] = warp;
    o[t * 6 + 2] = nwarp;
    o[t * 6 + 3] = sm;
    o[t * 6 + 4] = nsm;
    o[t * 6 + 5] = (unsigned)grid;
}

__global__ void lanemasks(unsigned *o)
{
    unsigned eq, le, lt, ge, gt;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    o[threadIdx.x] = eq ^ le ^ lt ^ ge ^ gt;
}

__global__ void smem_sizes(unsigned *o)
{
    extern __shared__ int dyn[];
    unsigned dsz, tsz;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsz));
    asm("mov.u32 %0, %%total_smem_size;" : "=r"(tsz));
    dyn[threadIdx.x] = (int)dsz;
    __syncthreads();
    o[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x] + tsz;
}

__global__ void timers(unsigned long long *o, unsigned ns)
{
    long long c0 = clock64();
    clock_t c32 = clock();
    unsigned long long g, glo, ghi;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    unsigned lo, hi;
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(lo));
    asm volatile("mov.u32 %0, %%globaltimer_hi;" : "=r"(hi));
    glo = lo;
    ghi = hi;
    __nanosleep(ns);
    __nanosleep(100);
    asm volatile("nanosleep.u32 %0;" ::"r"(ns * 2));
    asm volatile("nanosleep.u32 250;");
    unsigned ck, ckhi;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(ck));
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(ckhi));
    c32 += ck ^ ckhi;
    long long c1 = clock64();
    unsigned pm;
    asm volatile("mov.u32 %0, %%pm0;" : "=r"(pm));
    o[threadIdx.x * 5 + 0] = (unsigned long long)(c1 - c0);
    o[threadIdx.x * 5 + 1] = (unsigned long long)c32;
    o[threadIdx.x * 5 + 2] = g;
    o[threadIdx.x * 5 + 3] = (ghi << 32) | glo;
    o[threadIdx.x * 5 + 4] = pm;
}

__global__ void envregs(unsigned *o)
{
    unsigned e0, e1, e31;
    asm("mov.b32 %0, %%envreg0;" : "=r"(e0));
    asm("mov.b32 %0, %%envreg1;" : "=r"(e1));
    asm("mov.b32 %0, %%envreg31;" : "=r"(e31));
    o[threadIdx.x] = e0 + e1 + e31;
}

// Busy-wait on a flag with backoff.
__global__ void spin_wait(volatile int *flag, int *o)
{
    unsigned backoff = 32;
    while (*flag == 0) {
        __nanosleep(backoff);
        if (backoff < 4096)
            backoff <<= 1;
    }
    o[threadIdx.x] = (int)clock();
}
