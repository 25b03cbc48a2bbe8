/*
 * Device memory, accounted against the GPU's budget.
 *
 * Every allocation a tenant makes through the driver (cuMemAlloc, pitched,
 * managed and stream-ordered allocations, and the physical memory of the
 * virtual memory API, cuMemCreate, which NCCL and PyTorch's expandable
 * segments use) is charged to the tenant in the GPU's coordinator segment
 * before it reaches the driver, and refunded when it is freed.  All
 * tenants together stay within COLOC_MEM_BUDGET (default: the device's
 * memory); best-effort tenants also leave COLOC_MEM_RESERVE to latency
 * tenants.  An allocation beyond that fails with CUDA_ERROR_OUT_OF_MEMORY,
 * as the driver's own would, and cuMemGetInfo reports each tenant the
 * memory it may still allocate, so that allocators that size themselves
 * from it (PyTorch's, TensorFlow's) see a consistent view.
 *
 * What this does not do yet (issue 7): serve allocations from per-tenant
 * pools, hand pages from best-effort to latency tenants, discard or swap.
 * A tenant that dies gives its share back when it is reaped.
 *
 * Stream-ordered frees are refunded when they are asked for, not when the
 * stream reaches them: the driver's pool may keep the memory a little
 * longer than the budget says.
 */
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

/* Live allocations of this process: device pointer or handle -> bytes. */
struct table {
	pthread_mutex_t lock;
	struct slot {
		uint64_t key; /* 0: empty; keys are never 0 */
		uint64_t bytes;
		bool dead;    /* removed: probing goes on past it */
	} *slots;
	size_t cap, used; /* used counts dead slots too */
};

static struct table pointers = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct table handles = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int table_grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct slot *old = t->slots, *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!old[i].key || old[i].dead)
			continue;
		for (j = slot_of(old[i].key, cap); slots[j].key; j = (j + 1) & (cap - 1))
			;
		slots[j] = old[i];
	}
	t->used = 0;
	for (size_t i = 0; i < cap; i++)
		t->used += slots[i].key != 0;
	free(old);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* Remembers an allocation; -1 when out of memory (then it is not accounted). */
static int table_put(struct table *t, uint64_t key, uint64_t bytes)
{
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	if ((t->used + 1) * 2 > t->cap && table_grow(t) < 0) {
		rc = -1;
	} else {
		for (i = slot_of(key, t->cap); t->slots[i].key && !t->slots[i].dead;
		     i = (i + 1) & (t->cap - 1))
			;
		t->used += !t->slots[i].key;
		t->slots[i].key = key;
		t->slots[i].bytes = bytes;
		t->slots[i].dead = false;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/* Forgets an allocation: its size, or 0 when it was not known. */
static uint64_t table_take(struct table *t, uint64_t key)
{
	uint64_t bytes = 0;

	pthread_mutex_lock(&t->lock);
	for (size_t i = t->cap ? slot_of(key, t->cap) : 0; t->cap && t->slots[i].key;
	     i = (i + 1) & (t->cap - 1)) {
		if (t->slots[i].key == key && !t->slots[i].dead) {
			bytes = t->slots[i].bytes;
			t->slots[i].dead = true;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return bytes;
}

/* ---- the budget */

static uint64_t size_of(struct coloc_size s, uint64_t total)
{
	return s.bytes ? s.bytes : total / 1000 * s.permille;
}

/*
 * Charges an allocation about to be made on the current context's GPU.
 * Returns false, after a log line, when it would exceed the budget; true
 * when it may go on (also when there is no coordination to ask).
 */
static bool charge(uint64_t bytes, const char *api)
{
	struct coloc_tenant *self = NULL;
	struct coloc_segment *s = coloc_sched_segment(&self);
	uint64_t budget, reserve, total = 0;
	CUdevice dev;

	if (!s || !self || !bytes)
		return true;
	if (!__atomic_load_n(&s->mem_budget, __ATOMIC_RELAXED) &&
	    REAL(cuCtxGetDevice)(&dev) == CUDA_SUCCESS)
		REAL(cuDeviceTotalMem_v2)((size_t *)&total, dev);
	budget = size_of(coloc_cfg.mem_budget, total);
	if (!budget)
		budget = total ? total : UINT64_MAX;
	reserve = size_of(coloc_cfg.mem_reserve, total);
	if (coloc_coord_mem_charge(s, self, bytes, budget, reserve) == 0)
		return true;
	coloc_sched_count(TC_MEM_REFUSED, 1);
	coloc_log(COLOC_LOG_WARN, "%s of %llu bytes refused: the tenants of GPU %s would hold more "
		  "than its budget of %llu bytes%s", api, (unsigned long long)bytes, s->gpu,
		  (unsigned long long)s->mem_budget,
		  coloc_cfg.role == COLOC_ROLE_BEST_EFFORT ? " less the latency tenants' reserve" : "");
	return false;
}

static void refund(uint64_t bytes)
{
	struct coloc_tenant *self = NULL;
	struct coloc_segment *s = coloc_sched_segment(&self);

	if (s && self && bytes)
		coloc_coord_mem_refund(s, self, bytes);
}

/*
 * After the driver answered an allocation of `bytes` charged beforehand:
 * remembers it under `key`, or refunds it when the driver failed.
 */
static CUresult settle(CUresult rc, struct table *t, uint64_t key, uint64_t bytes)
{
	if (rc != CUDA_SUCCESS || !key || table_put(t, key, bytes) < 0)
		refund(bytes);
	return rc;
}

static void release(struct table *t, uint64_t key, CUresult rc)
{
	if (rc == CUDA_SUCCESS)
		refund(table_take(t, key));
}

/* ---- the hooks */

CUresult hook_cuMemAlloc_v2(cuMemAlloc_v2_fn real, CUdeviceptr *ptr, size_t bytes)
{
	CUresult rc;

	if (!ptr)
		return real(ptr, bytes);
	if (!charge(bytes, "cuMemAlloc"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = real(ptr, bytes);
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemAllocPitch_v2(cuMemAllocPitch_v2_fn real, CUdeviceptr *ptr, size_t *pitch,
				 size_t width, size_t height, unsigned elem)
{
	/* The driver rounds each row up; charge what it can take at most (512-byte rows). */
	uint64_t bytes = (uint64_t)((width + 511) / 512 * 512) * height;
	CUresult rc;

	if (!ptr || !pitch)
		return real(ptr, pitch, width, height, elem);
	if (!charge(bytes, "cuMemAllocPitch"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = real(ptr, pitch, width, height, elem);
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemAllocManaged(cuMemAllocManaged_fn real, CUdeviceptr *ptr, size_t bytes,
				unsigned flags)
{
	CUresult rc;

	if (!ptr)
		return real(ptr, bytes, flags);
	if (!charge(bytes, "cuMemAllocManaged"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = real(ptr, bytes, flags);
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemFree_v2(cuMemFree_v2_fn real, CUdeviceptr ptr)
{
	CUresult rc = real(ptr);

	release(&pointers, ptr, rc);
	return rc;
}

CUresult hook_cuMemAllocAsync(cuMemAllocAsync_fn real, CUdeviceptr *ptr, size_t bytes,
			      CUstream stream)
{
	CUresult rc;

	if (!ptr)
		return real(ptr, bytes, stream);
	if (!charge(bytes, "cuMemAllocAsync"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = real(ptr, bytes, stream);
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemAllocAsync_ptsz(cuMemAllocAsync_ptsz_fn real, CUdeviceptr *ptr, size_t bytes,
				   CUstream stream)
{
	return hook_cuMemAllocAsync(real, ptr, bytes, stream);
}

CUresult hook_cuMemAllocFromPoolAsync(cuMemAllocFromPoolAsync_fn real, CUdeviceptr *ptr,
				      size_t bytes, CUmemoryPool pool, CUstream stream)
{
	CUresult rc;

	if (!ptr)
		return real(ptr, bytes, pool, stream);
	if (!charge(bytes, "cuMemAllocFromPoolAsync"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = real(ptr, bytes, pool, stream);
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemAllocFromPoolAsync_ptsz(cuMemAllocFromPoolAsync_ptsz_fn real, CUdeviceptr *ptr,
					   size_t bytes, CUmemoryPool pool, CUstream stream)
{
	return hook_cuMemAllocFromPoolAsync(real, ptr, bytes, pool, stream);
}

CUresult hook_cuMemFreeAsync(cuMemFreeAsync_fn real, CUdeviceptr ptr, CUstream stream)
{
	CUresult rc = real(ptr, stream);

	release(&pointers, ptr, rc);
	return rc;
}

CUresult hook_cuMemFreeAsync_ptsz(cuMemFreeAsync_ptsz_fn real, CUdeviceptr ptr, CUstream stream)
{
	return hook_cuMemFreeAsync(real, ptr, stream);
}

CUresult hook_cuMemCreate(cuMemCreate_fn real, CUmemGenericAllocationHandle *handle, size_t bytes,
			  const CUmemAllocationProp *prop, unsigned long long flags)
{
	CUresult rc;

	if (!handle)
		return real(handle, bytes, prop, flags);
	if (!charge(bytes, "cuMemCreate"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = real(handle, bytes, prop, flags);
	return settle(rc, &handles, rc == CUDA_SUCCESS ? *handle : 0, bytes);
}

CUresult hook_cuMemRelease(cuMemRelease_fn real, CUmemGenericAllocationHandle handle)
{
	CUresult rc = real(handle);

	release(&handles, handle, rc);
	return rc;
}

CUresult hook_cuMemGetInfo_v2(cuMemGetInfo_v2_fn real, size_t *free_bytes, size_t *total)
{
	struct coloc_tenant *self = NULL;
	struct coloc_segment *s;
	uint64_t room, budget;
	CUresult rc = real(free_bytes, total);

	if (rc != CUDA_SUCCESS || !free_bytes || !total || !(s = coloc_sched_segment(&self)) ||
	    !self)
		return rc;
	coloc_coord_mem_view(s, self, &room, &budget);
	if (!budget)
		return rc; /* nobody allocated through colocc yet: the driver's view */
	if (budget < *total)
		*total = (size_t)budget;
	if (room < *free_bytes)
		*free_bytes = (size_t)room;
	return rc;
}
