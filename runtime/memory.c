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
 * cuMemAlloc and cuMemAllocPitch are served from the tenant's pools
 * (pool.c, COLOC_MEM_POOL=1, the default), whose pages can be handed to a
 * latency tenant without the application's help (handover.c); the others
 * are only accounted: stream-ordered pools, managed memory and the
 * application's own cuMemCreate stay the driver's.  A latency tenant whose
 * allocation does not fit waits for a handover before it is refused.
 * A tenant that dies gives its share back when it is reaped.
 *
 * A best-effort tenant with pools can be swapped out: its calls that touch
 * device memory pass the GPU gate here (launches in launch.c, copies and
 * sets through the GATE lines of hooks.def).
 *
 * Stream-ordered frees are refunded when they are asked for, not when the
 * stream reaches them: the driver's pool may keep the memory a little
 * longer than the budget says.
 */
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "pool.h"
#include "scheduler.h"

/* Live allocations the driver made: device pointer or handle -> bytes. */
static struct coloc_addrmap pointers = COLOC_ADDRMAP_INIT;
static struct coloc_addrmap handles = COLOC_ADDRMAP_INIT;

/* ---- the budget */

static uint64_t size_of(struct coloc_size s, uint64_t total)
{
	/* Exact for 1000 per mille: all of the device, not all but the last few bytes. */
	return s.bytes ? s.bytes : total / 1000 * s.permille + total % 1000 * s.permille / 1000;
}

/* The budget and reserve as configured, for the device of the current context. */
static void budget_of(struct coloc_segment *s, uint64_t *budget, uint64_t *reserve)
{
	uint64_t total = 0;
	CUdevice dev;

	if (!__atomic_load_n(&s->mem_budget, __ATOMIC_RELAXED) &&
	    REAL(cuCtxGetDevice)(&dev) == CUDA_SUCCESS)
		REAL(cuDeviceTotalMem_v2)((size_t *)&total, dev);
	*budget = size_of(coloc_cfg.mem_budget, total);
	if (!*budget)
		*budget = total ? total : UINT64_MAX;
	*reserve = size_of(coloc_cfg.mem_reserve, total);
}

/*
 * Charges `bytes` about to be taken from the driver on the current
 * context's GPU; `api` NULL: quietly, without a handover.
 */
static bool charge_each(uint64_t bytes, const char *api, uint64_t unit,
			void (*take)(void *arg, uint64_t bytes), void *arg)
{
	struct coloc_tenant *self = NULL;
	struct coloc_segment *s = coloc_sched_segment(&self);
	uint64_t budget, reserve;

	if (!s || !self || !bytes)
		return true;
	budget_of(s, &budget, &reserve);
	coloc_handover_serve(s, self);
	if (coloc_coord_mem_charge(s, self, bytes, budget, reserve) == 0)
		return true;
	if (!api)
		return false;
	if (coloc_cfg.role == COLOC_ROLE_LATENCY && coloc_cfg.mem_wait_ns &&
	    coloc_handover(s, self, bytes, budget, reserve, api, unit, take, arg))
		return true;
	coloc_sched_count(TC_MEM_REFUSED, 1);
	coloc_log(COLOC_LOG_WARN, "%s of %llu bytes refused: the tenants of GPU %s would hold more "
		  "than its budget of %llu bytes%s", api, (unsigned long long)bytes, s->gpu,
		  (unsigned long long)s->mem_budget,
		  coloc_cfg.role == COLOC_ROLE_BEST_EFFORT ? " less what latency tenants keep" : "");
	return false;
}

static bool charge(uint64_t bytes, const char *api)
{
	return charge_each(bytes, api, bytes, NULL, NULL);
}

bool coloc_mem_charge(uint64_t bytes, const char *api)
{
	return charge(bytes, api);
}

bool coloc_mem_charge_each(uint64_t bytes, const char *api, uint64_t unit,
			   void (*take)(void *arg, uint64_t bytes), void *arg)
{
	return charge_each(bytes, api, unit, take, arg);
}

bool coloc_mem_try_charge(uint64_t bytes)
{
	return charge(bytes, NULL);
}

void coloc_mem_refund(uint64_t bytes)
{
	struct coloc_tenant *self = NULL;
	struct coloc_segment *s = coloc_sched_segment(&self);

	if (s && self && bytes) {
		coloc_coord_mem_refund(s, self, bytes);
		/* A swapped-out tenant's memory thread may find its room now. */
		coloc_coord_signal(s);
	}
}

void coloc_mem_cached(int64_t delta)
{
	struct coloc_tenant *self = NULL;
	struct coloc_segment *s = coloc_sched_segment(&self);

	if (s && self && delta)
		coloc_coord_mem_cached(s, self, delta);
}

static void refund(uint64_t bytes)
{
	coloc_mem_refund(bytes);
}

/*
 * After the driver answered an allocation of `bytes` charged beforehand:
 * remembers it under `key`, or refunds it when the driver failed.
 */
static CUresult settle(CUresult rc, struct coloc_addrmap *m, uint64_t key, uint64_t bytes)
{
	if (rc != CUDA_SUCCESS || !key || coloc_addrmap_put(m, key, bytes) < 0)
		refund(bytes);
	return rc;
}

static void release(struct coloc_addrmap *m, uint64_t key, CUresult rc)
{
	uint64_t bytes;

	if (rc == CUDA_SUCCESS && coloc_addrmap_take(m, key, &bytes))
		refund(bytes);
}

/* ---- the GPU gate */

static pthread_rwlock_t gate;
static int gate_state = -1; /* -1: not decided yet; 0: open for good; 1: in use */

static bool gate_used(void)
{
	int st = __atomic_load_n(&gate_state, __ATOMIC_ACQUIRE);

	if (st < 0) {
		st = coloc_cfg.role == COLOC_ROLE_BEST_EFFORT && coloc_pool_enabled();
		__atomic_store_n(&gate_state, st, __ATOMIC_RELEASE);
	}
	return st;
}

void coloc_gpu_gate_enter(void)
{
	if (gate_used())
		pthread_rwlock_rdlock(&gate);
}

void coloc_gpu_gate_leave(void)
{
	if (gate_used())
		pthread_rwlock_unlock(&gate);
}

void coloc_gpu_gate_close(void)
{
	pthread_rwlock_wrlock(&gate);
}

void coloc_gpu_gate_open(void)
{
	pthread_rwlock_unlock(&gate);
}

/*
 * Copies and sets: through the gate, and after the held launches they must
 * follow (fence.c), nothing else (the GATE lines of hooks.def).
 */
#define HOOK(sym, api, since, flavor, params, args)
#define DRIVER(sym, params)
#define GATE(sym, api, since, flavor, params, args, stream)         \
	CUresult hook_##sym(sym##_fn real, COLOC_UNPAREN params)    \
	{                                                           \
		CUresult rc;                                        \
                                                                    \
		coloc_gpu_gate_enter();                             \
		coloc_fence_begin(stream, flavor);                  \
		rc = real args;                                     \
		coloc_fence_end();                                  \
		coloc_gpu_gate_leave();                             \
		return rc;                                          \
	}
#include "hooks.def"
#undef HOOK
#undef DRIVER
#undef GATE

static void gate_after_fork_child(void)
{
	pthread_rwlock_init(&gate, NULL);
}

__attribute__((constructor)) static void gate_init(void)
{
	pthread_rwlockattr_t a;

	/* Writer first: a swap must not wait behind a stream of copies. */
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&gate, &a);
	pthread_rwlockattr_destroy(&a);
	pthread_atfork(NULL, NULL, gate_after_fork_child);
}

/* ---- the hooks */

CUresult hook_cuMemAlloc_v2(cuMemAlloc_v2_fn real, CUdeviceptr *ptr, size_t bytes)
{
	CUresult rc = CUDA_ERROR_NOT_SUPPORTED;

	if (!ptr || !bytes)
		return real(ptr, bytes); /* the driver's own answer to bad arguments */
	coloc_gpu_gate_enter();
	if (coloc_pool_enabled())
		rc = coloc_pool_alloc(ptr, bytes, "cuMemAlloc");
	if (rc == CUDA_ERROR_NOT_SUPPORTED) {
		if (!charge(bytes, "cuMemAlloc")) {
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		} else {
			rc = real(ptr, bytes);
			settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
		}
	}
	coloc_gpu_gate_leave();
	return rc;
}

CUresult hook_cuMemAllocPitch_v2(cuMemAllocPitch_v2_fn real, CUdeviceptr *ptr, size_t *pitch,
				 size_t width, size_t height, unsigned elem)
{
	/* The driver rounds each row up to 512 bytes on the GPUs colocc targets; so do the pools. */
	uint64_t row = (uint64_t)(width + 511) / 512 * 512, bytes = row * height;
	CUresult rc = CUDA_ERROR_NOT_SUPPORTED;

	if (!ptr || !pitch || !width || !height || (elem != 4 && elem != 8 && elem != 16) ||
	    height > UINT64_MAX / row)
		return real(ptr, pitch, width, height, elem);
	coloc_gpu_gate_enter();
	if (coloc_pool_enabled() &&
	    (rc = coloc_pool_alloc(ptr, bytes, "cuMemAllocPitch")) == CUDA_SUCCESS)
		*pitch = (size_t)row;
	if (rc == CUDA_ERROR_NOT_SUPPORTED) {
		if (!charge(bytes, "cuMemAllocPitch")) {
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		} else {
			rc = real(ptr, pitch, width, height, elem);
			settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
		}
	}
	coloc_gpu_gate_leave();
	return rc;
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
	CUresult rc;

	coloc_gpu_gate_enter();
	if (!coloc_pool_free(ptr, &rc)) {
		rc = real(ptr);
		release(&pointers, ptr, rc);
	}
	coloc_gpu_gate_leave();
	return rc;
}

/* Stream-ordered allocations: after the held launches they must follow (fence.c). */
static CUresult alloc_async(cuMemAllocAsync_fn real, enum coloc_stream_flavor flavor,
			    CUdeviceptr *ptr, size_t bytes, CUstream stream)
{
	CUresult rc;

	if (!ptr)
		return real(ptr, bytes, stream);
	if (!charge(bytes, "cuMemAllocAsync"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	coloc_fence_begin(stream, flavor);
	rc = real(ptr, bytes, stream);
	coloc_fence_end();
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemAllocAsync(cuMemAllocAsync_fn real, CUdeviceptr *ptr, size_t bytes,
			      CUstream stream)
{
	return alloc_async(real, STREAM_LEGACY, ptr, bytes, stream);
}

CUresult hook_cuMemAllocAsync_ptsz(cuMemAllocAsync_ptsz_fn real, CUdeviceptr *ptr, size_t bytes,
				   CUstream stream)
{
	return alloc_async(real, STREAM_PTDS, ptr, bytes, stream);
}

static CUresult alloc_pool_async(cuMemAllocFromPoolAsync_fn real, enum coloc_stream_flavor flavor,
				 CUdeviceptr *ptr, size_t bytes, CUmemoryPool pool, CUstream stream)
{
	CUresult rc;

	if (!ptr)
		return real(ptr, bytes, pool, stream);
	if (!charge(bytes, "cuMemAllocFromPoolAsync"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	coloc_fence_begin(stream, flavor);
	rc = real(ptr, bytes, pool, stream);
	coloc_fence_end();
	return settle(rc, &pointers, rc == CUDA_SUCCESS ? *ptr : 0, bytes);
}

CUresult hook_cuMemAllocFromPoolAsync(cuMemAllocFromPoolAsync_fn real, CUdeviceptr *ptr,
				      size_t bytes, CUmemoryPool pool, CUstream stream)
{
	return alloc_pool_async(real, STREAM_LEGACY, ptr, bytes, pool, stream);
}

CUresult hook_cuMemAllocFromPoolAsync_ptsz(cuMemAllocFromPoolAsync_ptsz_fn real, CUdeviceptr *ptr,
					   size_t bytes, CUmemoryPool pool, CUstream stream)
{
	return alloc_pool_async(real, STREAM_PTDS, ptr, bytes, pool, stream);
}

static CUresult free_async(cuMemFreeAsync_fn real, enum coloc_stream_flavor flavor,
			   CUdeviceptr ptr, CUstream stream)
{
	CUresult rc;

	coloc_fence_begin(stream, flavor);
	rc = real(ptr, stream);
	coloc_fence_end();
	release(&pointers, ptr, rc);
	return rc;
}

CUresult hook_cuMemFreeAsync(cuMemFreeAsync_fn real, CUdeviceptr ptr, CUstream stream)
{
	return free_async(real, STREAM_LEGACY, ptr, stream);
}

CUresult hook_cuMemFreeAsync_ptsz(cuMemFreeAsync_ptsz_fn real, CUdeviceptr ptr, CUstream stream)
{
	return free_async(real, STREAM_PTDS, ptr, stream);
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
	if (!budget) {
		uint64_t reserve;

		/* Nobody allocated on this GPU yet: the budget starts here, as a charge would set it. */
		budget_of(s, &budget, &reserve);
		coloc_coord_mem_charge(s, self, 0, budget, reserve);
		coloc_coord_mem_view(s, self, &room, &budget);
		if (!budget)
			return rc;
	}
	/* What the tenant's pools hold unused is its to allocate again. */
	room += __atomic_load_n(&self->mem_cached, __ATOMIC_RELAXED);
	if (budget < *total)
		*total = (size_t)budget;
	if (room < *free_bytes)
		*free_bytes = (size_t)room;
	return rc;
}

/* ---- what the driver cannot know of pool allocations */

CUresult hook_cuMemGetAddressRange_v2(cuMemGetAddressRange_v2_fn real, CUdeviceptr *base,
				      size_t *size, CUdeviceptr ptr)
{
	CUdeviceptr b;
	size_t n;

	/* The driver would answer with the page behind `ptr`, not the allocation. */
	if (!coloc_pool_range(ptr, &b, &n))
		return real(base, size, ptr);
	if (base)
		*base = b;
	if (size)
		*size = n;
	return CUDA_SUCCESS;
}

CUresult hook_cuPointerGetAttribute(cuPointerGetAttribute_fn real, void *data,
				    CUpointer_attribute attr, CUdeviceptr ptr)
{
	CUresult rc = real(data, attr, ptr);
	CUdeviceptr b;
	size_t n;

	if (rc == CUDA_SUCCESS && data &&
	    (attr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR || attr == CU_POINTER_ATTRIBUTE_RANGE_SIZE) &&
	    coloc_pool_range(ptr, &b, &n)) {
		if (attr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
			*(CUdeviceptr *)data = b;
		else
			*(size_t *)data = n;
	}
	return rc;
}

CUresult hook_cuPointerGetAttributes(cuPointerGetAttributes_fn real, unsigned n,
				     CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
	CUresult rc = real(n, attrs, data, ptr);
	CUdeviceptr b;
	size_t size;

	if (rc != CUDA_SUCCESS || !attrs || !data || !coloc_pool_range(ptr, &b, &size))
		return rc;
	for (unsigned i = 0; i < n; i++) {
		if (!data[i])
			continue;
		if (attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
			*(CUdeviceptr *)data[i] = b;
		else if (attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_SIZE)
			*(size_t *)data[i] = size;
	}
	return rc;
}

CUresult hook_cuIpcGetMemHandle(cuIpcGetMemHandle_fn real, CUipcMemHandle *handle, CUdeviceptr ptr)
{
	CUdeviceptr b;
	size_t n;
	CUresult rc = real(handle, ptr);

	if (rc != CUDA_SUCCESS && coloc_pool_range(ptr, &b, &n))
		coloc_log(COLOC_LOG_ERROR, "cuIpcGetMemHandle: 0x%llx was allocated from colocc's "
			  "memory pool, which the driver's legacy IPC cannot export (error %d); run "
			  "this tenant with COLOC_MEM_POOL=0 to share its allocations with other "
			  "processes", (unsigned long long)ptr, rc);
	return rc;
}
