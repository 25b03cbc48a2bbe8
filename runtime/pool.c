/*
 * Per-tenant memory pools on the CUDA virtual memory API.
 *
 * Why: the latency tenant must get memory within milliseconds when a burst
 * needs more than the GPU has free, and what best-effort tenants hold is
 * usually held by their allocators, not by us.  With cuMemAlloc the only
 * way back is the application's own cuMemFree; with the virtual memory API
 * colocc owns the physical pages behind every allocation and can give back
 * those that hold nothing at once (trim), or all of them after copying
 * them out (swap), keeping the addresses the application holds.
 *
 * Layout: per device, regions of reserved virtual addresses (twice the
 * device's memory each, more when one allocation needs it), cut into pages
 * of COLOC_POOL_PAGE bytes (256 MiB by default: on the H100, handing 2 GiB
 * of cached pages over took p99 4.3 ms in 256 MiB pages, 6.3 ms in 64 MiB
 * pages and 88 ms in the driver's 2 MiB granules, docs/memory-design.md).  Allocations are blocks of a region
 * (best fit, 512-byte aligned, page-aligned from one page up); a page is
 * backed by its own physical allocation while any block overlaps it, and
 * stays backed when the last one goes: it is then *cached*, reused by the
 * next allocation without a driver call, and the first thing a handover
 * takes.
 *
 * Invariants:
 *  - a page is backed (h != 0) whenever live > 0, or while it is cached;
 *  - every page this process gets from the driver is zeroed on the pool's
 *    stream before any allocation on it is returned: physical memory may
 *    have belonged to another tenant a moment ago;
 *  - backed pages are charged to the tenant (memory.c), cached ones are
 *    also published as cached;
 *  - a freed block's pages are cached only after the context's work
 *    finished (cuMemFree waits for it, as the driver's does), so trimming a
 *    cached page never pulls memory from under a running kernel.
 *
 * Everything of a pool happens under its lock, driver calls included:
 * allocations are rare next to launches, and a trim or swap must not race
 * an allocation reusing the pages it gives back.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addrmap.h"
#include "pool.h"

#define MAX_DEVICES 32
#define BLOCK_ALIGN 512u

struct block {
	struct region *region;
	uint64_t off, size;
	struct block *prev, *next;   /* every block of the region, by address */
	struct block *fprev, *fnext; /* the region's free blocks */
	bool free;
};

struct page {
	CUmemGenericAllocationHandle h; /* 0: nothing behind it */
	uint32_t live;                  /* blocks on it */
	uint64_t idle_since_ns;         /* when live went to 0 */
	void *host;                     /* swapped out: its contents, pinned */
};

struct region {
	CUdeviceptr base;
	uint64_t size; /* a multiple of the page */
	struct page *pages;
	struct block *blocks, *free;
	struct region *next;
};

struct pool {
	pthread_mutex_t lock;
	int dev;
	CUcontext ctx;
	CUstream stream; /* zeroing and swap copies */
	uint64_t page;
	uint64_t region_size;
	struct region *regions;
	uint64_t backed, cached, swapped; /* bytes */
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
};

static struct {
	pthread_mutex_t lock; /* guards pools[] */
	struct pool *pools[MAX_DEVICES];
	struct coloc_addrmap blocks; /* allocation start -> struct block * */
} pools = { .lock = PTHREAD_MUTEX_INITIALIZER, .blocks = COLOC_ADDRMAP_INIT };

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

bool coloc_pool_enabled(void)
{
	return coloc_cfg.mem_pool && coloc_cfg.role != COLOC_ROLE_NONE && !coloc_cfg.disabled;
}

/* ---- pools and regions */

/* The pool of the current context's device, made on first use; NULL when it cannot be. */
static struct pool *current_pool(void)
{
	struct pool *p;
	CUcontext ctx = NULL;
	CUdevice dev;
	size_t gran = 0, total = 0;

	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx ||
	    REAL(cuCtxGetDevice)(&dev) != CUDA_SUCCESS || dev < 0 || dev >= MAX_DEVICES)
		return NULL;
	pthread_mutex_lock(&pools.lock);
	if ((p = pools.pools[dev]) || !(p = calloc(1, sizeof(*p))))
		goto out;
	pthread_mutex_init(&p->lock, NULL);
	p->dev = dev;
	p->ctx = ctx;
	p->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p->prop.location.id = dev;
	p->access.location = p->prop.location;
	p->access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	if (REAL(cuMemGetAllocationGranularity)(&gran, &p->prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
		    CUDA_SUCCESS || !gran ||
	    REAL(cuStreamCreate)(&p->stream, 1 /* CU_STREAM_NON_BLOCKING */) != CUDA_SUCCESS) {
		coloc_log(COLOC_LOG_WARN, "pool: device %d has no virtual memory management; its "
			  "allocations go to the driver", dev);
		free(p);
		p = NULL;
		coloc_cfg.mem_pool = false;
		goto out;
	}
	p->page = round_up(coloc_cfg.pool_page, gran);
	REAL(cuDeviceTotalMem_v2)(&total, dev);
	p->region_size = round_up(total ? 2 * (uint64_t)total : 64 * p->page, p->page);
	pools.pools[dev] = p;
	coloc_log(COLOC_LOG_INFO, "pool: device %d, pages of %" PRIu64 " MiB (granularity %zu KiB)",
		  dev, p->page >> 20, gran >> 10);
out:
	pthread_mutex_unlock(&pools.lock);
	return p;
}

static struct region *region_new(struct pool *p, uint64_t size)
{
	struct region *r = calloc(1, sizeof(*r));
	struct block *b = calloc(1, sizeof(*b));

	size = round_up(size > p->region_size ? size : p->region_size, p->page);
	if (!r || !b || !(r->pages = calloc(size / p->page, sizeof(*r->pages))))
		goto fail;
	if (REAL(cuMemAddressReserve)(&r->base, size, p->page, 0, 0) != CUDA_SUCCESS) {
		coloc_log(COLOC_LOG_WARN, "pool: cannot reserve %" PRIu64 " MiB of addresses on "
			  "device %d", size >> 20, p->dev);
		goto fail;
	}
	r->size = size;
	b->region = r;
	b->size = size;
	b->free = true;
	r->blocks = r->free = b;
	r->next = p->regions;
	p->regions = r;
	return r;
fail:
	if (r)
		free(r->pages);
	free(r);
	free(b);
	return NULL;
}

/* ---- blocks */

static void free_list_add(struct region *r, struct block *b)
{
	b->free = true;
	b->fprev = NULL;
	b->fnext = r->free;
	if (r->free)
		r->free->fprev = b;
	r->free = b;
}

static void free_list_del(struct region *r, struct block *b)
{
	if (b->fprev)
		b->fprev->fnext = b->fnext;
	else
		r->free = b->fnext;
	if (b->fnext)
		b->fnext->fprev = b->fprev;
	b->free = false;
	b->fprev = b->fnext = NULL;
}

/* Where an allocation of `size` aligned to `align` starts in free block `b`, or UINT64_MAX. */
static uint64_t fit(const struct block *b, uint64_t size, uint64_t align)
{
	uint64_t start = round_up(b->off, align);

	return start - b->off <= b->size && b->size - (start - b->off) >= size ? start : UINT64_MAX;
}

/* Splits `b` (free) at `at`, keeping [b->off, at) in b; the rest is a new free block. */
static struct block *split(struct region *r, struct block *b, uint64_t at)
{
	struct block *n;

	if (at == b->off || at == b->off + b->size || !(n = calloc(1, sizeof(*n))))
		return at == b->off + b->size ? NULL : b; /* nothing to split, or no memory */
	n->region = r;
	n->off = at;
	n->size = b->off + b->size - at;
	b->size = at - b->off;
	n->prev = b;
	n->next = b->next;
	if (b->next)
		b->next->prev = n;
	b->next = n;
	free_list_add(r, n);
	return n;
}

/*
 * Carves [start, start + size) out of free block `b`: the block returned
 * covers exactly that range and is off the free list; NULL when the
 * bookkeeping ran out of memory.
 */
static struct block *carve(struct region *r, struct block *b, uint64_t start, uint64_t size)
{
	struct block *m = b;

	if (start > b->off && (m = split(r, b, start)) == b)
		return NULL;
	if (start + size < m->off + m->size && split(r, m, start + size) == m)
		return NULL;
	free_list_del(r, m);
	return m;
}

/* Puts a block back on the free list, merged with free neighbours. */
static void release_block(struct region *r, struct block *b)
{
	struct block *n = b->next, *pr = b->prev;

	free_list_add(r, b);
	if (n && n->free) {
		free_list_del(r, n);
		b->size += n->size;
		b->next = n->next;
		if (n->next)
			n->next->prev = b;
		free(n);
	}
	if (pr && pr->free) {
		free_list_del(r, b);
		pr->size += b->size;
		pr->next = b->next;
		if (b->next)
			b->next->prev = pr;
		free(b);
	}
}

/* ---- pages */

static void page_drop(struct pool *p, struct region *r, uint64_t i)
{
	CUdeviceptr va = r->base + i * p->page;

	REAL(cuMemUnmap)(va, p->page);
	REAL(cuMemRelease)(r->pages[i].h);
	r->pages[i].h = 0;
	p->backed -= p->page;
}

/* Backs page i with fresh physical memory, mapped and readable; its contents are not set yet. */
static CUresult page_back(struct pool *p, struct region *r, uint64_t i)
{
	CUdeviceptr va = r->base + i * p->page;
	CUmemGenericAllocationHandle h;
	CUresult rc;

	if ((rc = REAL(cuMemCreate)(&h, p->page, &p->prop, 0)) != CUDA_SUCCESS)
		return rc;
	if ((rc = REAL(cuMemMap)(va, p->page, 0, h, 0)) != CUDA_SUCCESS) {
		REAL(cuMemRelease)(h);
		return rc;
	}
	if ((rc = REAL(cuMemSetAccess)(va, p->page, &p->access, 1)) != CUDA_SUCCESS) {
		REAL(cuMemUnmap)(va, p->page);
		REAL(cuMemRelease)(h);
		return rc;
	}
	r->pages[i].h = h;
	p->backed += p->page;
	return CUDA_SUCCESS;
}

/* Backing the pages of one allocation, as their charge comes in. */
struct taking {
	struct pool *p;
	struct region *r;
	uint64_t next, last; /* the pages still to look at */
	uint64_t *news;      /* pages made here, in order */
	uint64_t made;
	uint64_t charged;    /* bytes charged for them so far */
	CUresult rc;
};

/*
 * Backs the next page without memory behind it and starts zeroing it on
 * the pool's stream; records the first failure and makes nothing more.
 */
static void take_page(struct taking *t)
{
	struct pool *p = t->p;

	while (t->next <= t->last && t->r->pages[t->next].h)
		t->next++;
	if (t->rc != CUDA_SUCCESS || t->next > t->last)
		return;
	if ((t->rc = page_back(p, t->r, t->next)) != CUDA_SUCCESS)
		return;
	t->news[t->made++] = t->next;
	t->rc = REAL(cuMemsetD8Async)(t->r->base + t->next * p->page, 0, p->page, p->stream);
	t->next++;
}

/* A handover's charge came in: as many pages as it pays for. */
static void take_charged(void *arg, uint64_t bytes)
{
	struct taking *t = arg;

	t->charged += bytes;
	while (t->made * t->p->page < t->charged && t->rc == CUDA_SUCCESS && t->next <= t->last)
		take_page(t);
}

/*
 * Makes every page of [off, off + size) backed and counts the block on
 * them.  New pages are charged first (a latency tenant short of memory maps
 * each as soon as its charge comes in) and zeroed before this returns.  On
 * failure nothing changed.
 */
static CUresult pages_take(struct pool *p, struct region *r, uint64_t off, uint64_t size,
			   const char *api)
{
	uint64_t first = off / p->page, last = (off + size - 1) / p->page, fresh = 0, reused = 0;
	struct taking t = { p, r, first, last, NULL, 0, 0, CUDA_SUCCESS };
	uint64_t i;

	for (i = first; i <= last; i++) {
		fresh += !r->pages[i].h;
		reused += r->pages[i].h && !r->pages[i].live;
	}
	if (fresh && !(t.news = malloc(fresh * sizeof(*t.news))))
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (fresh && !coloc_mem_charge_each(fresh * p->page, api, p->page, take_charged, &t)) {
		t.rc = CUDA_ERROR_OUT_OF_MEMORY;
	} else {
		uint64_t t0 = now_ns(), t1, early = t.made;

		t.charged = fresh * p->page;
		while (t.rc == CUDA_SUCCESS && t.made < fresh)
			take_page(&t);
		t1 = now_ns();
		if (t.rc == CUDA_SUCCESS && fresh)
			t.rc = REAL(cuStreamSynchronize)(p->stream);
		if (fresh && coloc_log_on(COLOC_LOG_DEBUG))
			coloc_log(COLOC_LOG_DEBUG, "pool: %s: %" PRIu64 " new pages; the last %" PRIu64
				  " made in %.3f ms after their charge, all zeroed %.3f ms later", api,
				  fresh, fresh - early, (double)(t1 - t0) / 1e6,
				  (double)(now_ns() - t1) / 1e6);
	}
	if (t.rc != CUDA_SUCCESS) {
		/* Back to where it was: the pages made here go, their charge with them. */
		for (uint64_t k = 0; k < t.made; k++)
			page_drop(p, r, t.news[k]);
		coloc_mem_refund(t.charged);
		free(t.news);
		if (t.charged)
			coloc_log(COLOC_LOG_WARN, "pool: %s: the driver refused %" PRIu64
				  " MiB of new pages (error %d)", api, fresh * p->page >> 20, t.rc);
		return t.rc;
	}
	free(t.news);
	for (i = first; i <= last; i++)
		r->pages[i].live++;
	p->cached -= reused * p->page;
	coloc_mem_cached(-(int64_t)(reused * p->page));
	return CUDA_SUCCESS;
}

/* The block is gone from [off, off + size): pages it was the last on become cached. */
static void pages_put(struct pool *p, struct region *r, uint64_t off, uint64_t size)
{
	uint64_t first = off / p->page, last = (off + size - 1) / p->page, now = now_ns(), n = 0;

	for (uint64_t i = first; i <= last; i++)
		if (!--r->pages[i].live) {
			r->pages[i].idle_since_ns = now;
			n++;
		}
	p->cached += n * p->page;
	coloc_mem_cached((int64_t)(n * p->page));
}

static void keep_locked(struct pool *p, uint64_t watermark, uint64_t idle_ns);

/* Pages of [off, off + size) of `r` with nothing behind them yet. */
static uint64_t fresh_pages(const struct pool *p, const struct region *r, uint64_t off,
			    uint64_t size)
{
	uint64_t n = 0;

	for (uint64_t i = off / p->page; i <= (off + size - 1) / p->page; i++)
		n += !r->pages[i].h;
	return n;
}

/* ---- allocation */

CUresult coloc_pool_alloc(CUdeviceptr *ptr, size_t bytes, const char *api)
{
	struct pool *p = current_pool();
	uint64_t size = round_up(bytes ? bytes : 1, BLOCK_ALIGN), align, start = 0;
	struct block *best = NULL, *b;
	uint64_t best_fresh = 0;
	struct region *r;
	CUresult rc;

	if (!p)
		return CUDA_ERROR_NOT_SUPPORTED; /* the caller asks the driver */
	align = size >= p->page ? p->page : BLOCK_ALIGN;
	pthread_mutex_lock(&p->lock);
	/*
	 * The place needing the fewest new pages (each one a charge and driver
	 * calls), then the smallest block that fits.
	 */
	for (r = p->regions; r; r = r->next)
		for (b = r->free; b; b = b->fnext) {
			uint64_t s = fit(b, size, align), fresh;

			if (s == UINT64_MAX)
				continue;
			fresh = fresh_pages(p, r, s, size);
			if (!best || fresh < best_fresh ||
			    (fresh == best_fresh && b->size < best->size)) {
				best = b;
				start = s;
				best_fresh = fresh;
			}
		}
	if (!best) {
		if (!(r = region_new(p, size + align))) {
			pthread_mutex_unlock(&p->lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		best = r->free;
		start = fit(best, size, align);
	}
	r = best->region;
	if (!(b = carve(r, best, start, size))) {
		pthread_mutex_unlock(&p->lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if ((rc = pages_take(p, r, b->off, b->size, api)) != CUDA_SUCCESS ||
	    coloc_addrmap_put(&pools.blocks, r->base + b->off, (uint64_t)(uintptr_t)b) < 0) {
		if (rc == CUDA_SUCCESS) {
			pages_put(p, r, b->off, b->size);
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		}
		release_block(r, b);
		pthread_mutex_unlock(&p->lock);
		return rc;
	}
	*ptr = r->base + b->off;
	pthread_mutex_unlock(&p->lock);
	if (coloc_log_on(COLOC_LOG_DEBUG))
		coloc_log(COLOC_LOG_DEBUG, "pool: %s of %zu bytes at 0x%llx", api, bytes,
			  (unsigned long long)*ptr);
	return CUDA_SUCCESS;
}

static struct pool *pool_of(const struct region *r)
{
	for (int d = 0; d < MAX_DEVICES; d++) {
		struct pool *p = __atomic_load_n(&pools.pools[d], __ATOMIC_ACQUIRE);

		for (struct region *x = p ? p->regions : NULL; x; x = x->next)
			if (x == r)
				return p;
	}
	return NULL;
}

bool coloc_pool_free(CUdeviceptr ptr, CUresult *rc)
{
	uint64_t v;
	struct block *b;
	struct region *r;
	struct pool *p;

	if (!ptr || !coloc_addrmap_take(&pools.blocks, ptr, &v))
		return false;
	b = (struct block *)(uintptr_t)v;
	r = b->region;
	p = pool_of(r);
	/*
	 * The driver's cuMemFree waits for the work in flight (measured on the
	 * H100: it returned when a kernel on another stream ended); so does this
	 * one, before the pages may be reused or given back.
	 */
	*rc = REAL(cuCtxSynchronize)();
	pthread_mutex_lock(&p->lock);
	pages_put(p, r, b->off, b->size);
	release_block(r, b);
	if (coloc_cfg.role == COLOC_ROLE_LATENCY && p->cached > 2 * coloc_cfg.mem_watermark)
		keep_locked(p, coloc_cfg.mem_watermark, coloc_cfg.mem_idle_ns);
	pthread_mutex_unlock(&p->lock);
	return true;
}

bool coloc_pool_range(CUdeviceptr ptr, CUdeviceptr *base, size_t *size)
{
	for (int d = 0; d < MAX_DEVICES; d++) {
		struct pool *p = __atomic_load_n(&pools.pools[d], __ATOMIC_ACQUIRE);
		bool found = false;

		if (!p)
			continue;
		pthread_mutex_lock(&p->lock);
		for (struct region *r = p->regions; r && !found; r = r->next) {
			if (ptr < r->base || ptr - r->base >= r->size)
				continue;
			for (struct block *b = r->blocks; b; b = b->next)
				if (!b->free && ptr - r->base >= b->off && ptr - r->base < b->off + b->size) {
					*base = r->base + b->off;
					*size = (size_t)b->size;
					found = true;
					break;
				}
		}
		pthread_mutex_unlock(&p->lock);
		if (found)
			return true;
	}
	return false;
}

/* ---- giving pages back */

struct cold {
	struct region *r;
	uint64_t i, since;
};

/*
 * Oldest first; of pages freed together, the highest first, so that what
 * stays cached is the low end of the region, where the next allocation
 * looks first.
 */
static int by_age(const void *a, const void *b)
{
	const struct cold *x = a, *y = b;

	if (x->since != y->since)
		return (x->since > y->since) - (x->since < y->since);
	if (x->r != y->r)
		return (uintptr_t)x->r < (uintptr_t)y->r ? 1 : -1;
	return (x->i < y->i) - (x->i > y->i);
}

/*
 * Releases cached pages of `p` unused since before `before_ns`, oldest
 * first, until `want` bytes went; under its lock.
 */
static uint64_t trim_older(struct pool *p, uint64_t want, uint64_t before_ns)
{
	uint64_t n = 0, got = 0;
	struct cold *c;

	for (struct region *r = p->regions; r; r = r->next)
		for (uint64_t i = 0; i < r->size / p->page; i++)
			n += r->pages[i].h && !r->pages[i].live;
	if (!n || !(c = malloc(n * sizeof(*c))))
		return 0;
	n = 0;
	for (struct region *r = p->regions; r; r = r->next)
		for (uint64_t i = 0; i < r->size / p->page; i++)
			if (r->pages[i].h && !r->pages[i].live)
				c[n++] = (struct cold){ r, i, r->pages[i].idle_since_ns };
	qsort(c, n, sizeof(*c), by_age);
	for (uint64_t k = 0; k < n && got < want && c[k].since < before_ns; k++) {
		page_drop(p, c[k].r, c[k].i);
		c[k].r->pages[c[k].i].idle_since_ns = 0;
		got += p->page;
		p->cached -= p->page;
		/* Page by page: a latency tenant waiting for it maps it at once. */
		coloc_mem_refund(p->page);
	}
	free(c);
	coloc_mem_cached(-(int64_t)got);
	return got;
}

static uint64_t trim_locked(struct pool *p, uint64_t want)
{
	return trim_older(p, want, UINT64_MAX);
}

/* The latency tenant's reserve rule of coloc_pool_keep, for one pool; under its lock. */
static void keep_locked(struct pool *p, uint64_t watermark, uint64_t idle_ns)
{
	uint64_t now = now_ns();

	if (p->cached > 2 * watermark)
		trim_locked(p, p->cached - watermark);
	else if (p->cached > watermark && now > idle_ns)
		trim_older(p, p->cached - watermark, now - idle_ns);
}

/*
 * Runs `fn` on the pool of device `dev` (-1: every pool) with its context
 * current and its lock held; the calling thread's context is put back after.
 */
static void each_pool(int dev, void (*fn)(struct pool *, void *), void *arg)
{
	CUcontext saved = NULL;

	REAL(cuCtxGetCurrent)(&saved);
	for (int d = 0; d < MAX_DEVICES; d++) {
		struct pool *p = __atomic_load_n(&pools.pools[d], __ATOMIC_ACQUIRE);

		if (!p || (dev >= 0 && d != dev))
			continue;
		REAL(cuCtxSetCurrent)(p->ctx);
		pthread_mutex_lock(&p->lock);
		fn(p, arg);
		pthread_mutex_unlock(&p->lock);
	}
	REAL(cuCtxSetCurrent)(saved);
}

/* Bytes cached in all pools, read without their locks: a hint whether to look. */
static uint64_t cached_hint(void)
{
	uint64_t n = 0;

	for (int d = 0; d < MAX_DEVICES; d++) {
		struct pool *p = __atomic_load_n(&pools.pools[d], __ATOMIC_ACQUIRE);

		if (p)
			n += __atomic_load_n(&p->cached, __ATOMIC_RELAXED);
	}
	return n;
}

struct trim_arg {
	uint64_t want, got;
};

static void trim_one(struct pool *p, void *arg)
{
	struct trim_arg *t = arg;

	if (t->got < t->want)
		t->got += trim_locked(p, t->want - t->got);
}

uint64_t coloc_pool_trim(int dev, uint64_t want)
{
	struct trim_arg t = { want, 0 };
	uint64_t t0 = now_ns();

	if (!cached_hint())
		return 0;
	each_pool(dev, trim_one, &t);
	if (t.got)
		coloc_log(COLOC_LOG_INFO, "pool: %" PRIu64 " MiB of cached pages given back in %.3f ms",
			  t.got >> 20, (double)(now_ns() - t0) / 1e6);
	return t.got;
}

/* ---- the latency tenant's reserve rule, on its memory thread's clock */

struct keep_arg {
	uint64_t watermark, idle_ns;
};

static void keep_one(struct pool *p, void *arg)
{
	struct keep_arg *k = arg;

	keep_locked(p, k->watermark, k->idle_ns);
}

void coloc_pool_keep(int dev, uint64_t watermark, uint64_t idle_ns)
{
	struct keep_arg k = { watermark, idle_ns };

	if (cached_hint() <= watermark)
		return; /* nothing to give back: no driver call at every tick */

	each_pool(dev, keep_one, &k);
}

/* ---- swapping */

struct swap_arg {
	int64_t bytes; /* given back (out) or taken (in); -1 after a failure */
};

/*
 * Copies the live pages of `p` out and gives every page back, one at a time:
 * each page's refund lets a waiting latency tenant map a page of its own
 * while the next is copied.  Under its lock.  A failure stops the swap where
 * it is: the pages given back so far stay out (swap_in_one brings them back),
 * the rest stay mapped.
 */
static void swap_out_one(struct pool *p, void *arg)
{
	struct swap_arg *a = arg;
	uint64_t live = 0, dropped = 0;
	CUresult rc = CUDA_SUCCESS;

	if (a->bytes < 0)
		return;
	for (struct region *r = p->regions; r && rc == CUDA_SUCCESS; r = r->next)
		for (uint64_t i = 0; i < r->size / p->page && rc == CUDA_SUCCESS; i++) {
			struct page *pg = &r->pages[i];

			if (!pg->h)
				continue;
			if (pg->live) {
				if ((rc = REAL(cuMemHostAlloc)(&pg->host, p->page, 0)) != CUDA_SUCCESS) {
					pg->host = NULL;
					break;
				}
				rc = REAL(cuMemcpyDtoHAsync_v2)(pg->host, r->base + i * p->page, p->page,
							       p->stream);
				if (rc == CUDA_SUCCESS)
					rc = REAL(cuStreamSynchronize)(p->stream);
				if (rc != CUDA_SUCCESS) {
					REAL(cuMemFreeHost)(pg->host);
					pg->host = NULL;
					break;
				}
				live += p->page;
			} else {
				p->cached -= p->page;
				coloc_mem_cached(-(int64_t)p->page);
			}
			page_drop(p, r, i);
			pg->idle_since_ns = 0;
			dropped += p->page;
			coloc_mem_refund(p->page);
		}
	p->swapped += live;
	if (rc != CUDA_SUCCESS) {
		coloc_log(COLOC_LOG_WARN, "pool: swapping device %d out stopped after %" PRIu64 " of "
			  "its MiB: pinning host memory for a page or copying it there failed (error %d)", p->dev,
			  dropped >> 20, rc);
		if (!dropped) {
			a->bytes = -1;
			return;
		}
	}
	a->bytes += (int64_t)dropped;
}

int64_t coloc_pool_swap_out(int dev)
{
	struct swap_arg a = { 0 };

	each_pool(dev, swap_out_one, &a);
	return a.bytes;
}

/* Maps the swapped pages of `p` back and copies their contents in; under its lock. */
static void swap_in_one(struct pool *p, void *arg)
{
	struct swap_arg *a = arg;
	CUresult rc = CUDA_SUCCESS;

	if (a->bytes < 0 || !p->swapped)
		return;
	if (!coloc_mem_try_charge(p->swapped)) {
		a->bytes = -1;
		return;
	}
	for (struct region *r = p->regions; r && rc == CUDA_SUCCESS; r = r->next)
		for (uint64_t i = 0; i < r->size / p->page && rc == CUDA_SUCCESS; i++) {
			if (!r->pages[i].host || r->pages[i].h)
				continue;
			if ((rc = page_back(p, r, i)) == CUDA_SUCCESS)
				rc = REAL(cuMemcpyHtoDAsync_v2)(r->base + i * p->page, r->pages[i].host,
							       p->page, p->stream);
		}
	if (rc == CUDA_SUCCESS)
		rc = REAL(cuStreamSynchronize)(p->stream);
	if (rc != CUDA_SUCCESS) {
		/* The copies stay on the host; the pages made so far go again. */
		for (struct region *r = p->regions; r; r = r->next)
			for (uint64_t i = 0; i < r->size / p->page; i++)
				if (r->pages[i].host && r->pages[i].h)
					page_drop(p, r, i);
		coloc_mem_refund(p->swapped);
		coloc_log(COLOC_LOG_WARN, "pool: cannot swap device %d back in (error %d); it stays "
			  "out", p->dev, rc);
		a->bytes = -1;
		return;
	}
	for (struct region *r = p->regions; r; r = r->next)
		for (uint64_t i = 0; i < r->size / p->page; i++)
			if (r->pages[i].host) {
				REAL(cuMemFreeHost)(r->pages[i].host);
				r->pages[i].host = NULL;
			}
	a->bytes += (int64_t)p->swapped;
	p->swapped = 0;
}

int coloc_pool_swap_in(int dev)
{
	struct swap_arg a = { 0 };

	each_pool(dev, swap_in_one, &a);
	return a.bytes < 0 ? -1 : 0;
}

uint64_t coloc_pool_swapped(int dev)
{
	uint64_t n = 0;

	for (int d = 0; d < MAX_DEVICES; d++) {
		struct pool *p = __atomic_load_n(&pools.pools[d], __ATOMIC_ACQUIRE);

		if (p && (dev < 0 || d == dev))
			n += __atomic_load_n(&p->swapped, __ATOMIC_RELAXED);
	}
	return n;
}

static void after_fork_child(void)
{
	/* The child has no CUDA state of its parent's: it starts without pools. */
	pthread_mutex_init(&pools.lock, NULL);
	for (int d = 0; d < MAX_DEVICES; d++)
		pools.pools[d] = NULL;
	coloc_addrmap_reset(&pools.blocks);
}

__attribute__((constructor)) static void pool_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}
