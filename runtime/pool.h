/*
 * The memory pools: each tenant's cuMemAlloc and cuMemAllocPitch are served
 * from its own pool on the CUDA virtual memory API (pool.c), so that the
 * physical pages behind them can be given back without the application
 * freeing anything, and mapped back at the same addresses (memory.c,
 * handover.c; docs/memory-design.md).
 */
#ifndef COLOC_POOL_H
#define COLOC_POOL_H

#include "coloc.h"

/* True when this process's cuMemAlloc goes to the pools (a role, COLOC_MEM_POOL). */
bool coloc_pool_enabled(void);

/*
 * Serves an allocation of `bytes` on the current context's device; `api`
 * names the caller in log lines.  The pages it needs and has not got are
 * charged to the tenant (memory.c) and zeroed before the caller sees them.
 */
CUresult coloc_pool_alloc(CUdeviceptr *ptr, size_t bytes, const char *api);
/*
 * Frees a pool allocation as cuMemFree does (after the context's work
 * finished); false when `ptr` is not the start of one, and the caller asks
 * the driver.
 */
bool coloc_pool_free(CUdeviceptr ptr, CUresult *rc);
/* The allocation containing `ptr`: its start and size; false when none is the pool's. */
bool coloc_pool_range(CUdeviceptr ptr, CUdeviceptr *base, size_t *size);

/*
 * Gives physical pages that hold no allocation back to the driver, the
 * longest unused first, until `want` bytes went (UINT64_MAX: all of them),
 * from the pool of device `dev` (-1: every device's).  Returns the bytes
 * released, which are refunded to the tenant on their device's GPU.
 */
uint64_t coloc_pool_trim(int dev, uint64_t want);

/*
 * Swapping, per device (`dev`; -1: every device): every page of the pool
 * is copied to pinned host memory and given back; the addresses stay
 * reserved.  The caller holds
 * the GPU gate (memory.c) so that nothing of this process touches the
 * memory meanwhile, and has waited for its work to finish.  Returns the
 * bytes given back, or a negative value when nothing was (then nothing
 * changed).
 */
int64_t coloc_pool_swap_out(int dev);
/* Maps the pages back at the same addresses with their contents; 0, or -1 when it could not (yet). */
int coloc_pool_swap_in(int dev);
/* Bytes swapped out now. */
uint64_t coloc_pool_swapped(int dev);

#endif

/*
 * A latency tenant's pools (of device `dev`; -1: all) keep what it freed as
 * its reserve: beyond 2 x `watermark` the oldest pages go back at once, and
 * beyond `watermark` those unused for `idle_ns`.
 */
void coloc_pool_keep(int dev, uint64_t watermark, uint64_t idle_ns);

/* ---- memory.c: the tenant's share of the GPU's budget */

/*
 * Charges `bytes` about to be taken from the driver on the current
 * context's GPU; false, after a log line, when the budget has no room even
 * after a handover (memory.c).  True also when there is no coordination.
 */
bool coloc_mem_charge(uint64_t bytes, const char *api);
/*
 * The same for a latency tenant that can use memory as it comes: when a
 * handover is needed, `take` gets each `unit` as soon as it is charged.
 * False when not all of it could be had; what `take` got stays charged.
 */
bool coloc_mem_charge_each(uint64_t bytes, const char *api, uint64_t unit,
			   void (*take)(void *arg, uint64_t bytes), void *arg);
void coloc_mem_refund(uint64_t bytes);
/* The same without a log line or a handover when it does not fit (api NULL in the pool). */
bool coloc_mem_try_charge(uint64_t bytes);
/* The pool's pages held but holding no allocation changed by `delta` bytes. */
void coloc_mem_cached(int64_t delta);

/*
 * The GPU gate of a best-effort tenant with pools: its calls that touch
 * device memory (launches, copies, sets, allocations) pass it shared;
 * swapping closes it, so that nothing touches the pages while they are
 * away.  Other tenants pass without a lock.
 */
void coloc_gpu_gate_enter(void);
void coloc_gpu_gate_leave(void);
void coloc_gpu_gate_close(void);
void coloc_gpu_gate_open(void);

/* ---- handover.c */

/*
 * A latency tenant lacks room for `bytes` on GPU segment `s`: takes memory
 * from best-effort tenants (cached pages, discard, swap) until all of it is
 * charged (true) or COLOC_MEM_WAIT_MS passed (false).  It is charged `unit`
 * bytes at a time as it comes, each handed to `take` (NULL: nobody) at once;
 * on failure, what was handed over stays charged.
 */
struct coloc_segment;
struct coloc_tenant;
bool coloc_handover(struct coloc_segment *s, struct coloc_tenant *self, uint64_t bytes,
		    uint64_t budget, uint64_t reserve, const char *api, uint64_t unit,
		    void (*take)(void *arg, uint64_t bytes), void *arg);
/* Starts this process's memory thread for segment `s` (once): it answers requests and keeps the policy. */
void coloc_handover_serve(struct coloc_segment *s, struct coloc_tenant *self);
