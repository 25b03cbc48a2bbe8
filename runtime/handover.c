/*
 * Memory handover: a latency tenant short of memory takes it from
 * best-effort tenants within milliseconds (issue 7; SIRIUS, ATC '25 §4.2-4.3,
 * shared/notes/sirius.md; docs/memory-design.md).
 *
 * The latency tenant's allocating thread does the asking, in the order that
 * costs the best-effort side least:
 *
 *   1. cached: tenants whose pools hold pages they do not use give them
 *      back (their memory thread unmaps and releases them);
 *   2. discard: tenants that mark their work (include/coloc/discard.h) are
 *      asked to drop the micro-batch under way; their acknowledgement frees
 *      the pages it used (discard.c trims the pool before it acknowledges);
 *   3. swap: a tenant's pools are copied to pinned host memory and given
 *      back whole; the addresses stay reserved, and its GPU work waits at
 *      colocc's gate until the pages come back.
 *
 * Each step waits until the charge fits, every tenant asked has answered,
 * or its share of COLOC_MEM_WAIT_MS is spent; then the next.  The wait is
 * recorded by the step that ended it.  Tenants that died are reaped while
 * waiting, so that one killed in the middle of a handover gives its memory
 * back instead of holding the latency tenant up.
 *
 * The reallocation policy keeps memory from moving back and forth
 * (Algorithm 1 of SIRIUS, with its parameters): a handover takes the
 * shortfall plus W (COLOC_MEM_WATERMARK), and best-effort tenants leave
 * that W to latency tenants until none has needed a handover for T_idle
 * (COLOC_MEM_IDLE_MS); the latency tenant's own pool keeps what it frees up
 * to 2W, gives back down to W beyond that, and what stays unused beyond W
 * for T_idle (pool.c, coloc_pool_keep).  A swapped-out tenant comes back
 * when its pages fit again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "pool.h"
#include "scheduler.h"

#define MAX_SEGMENTS 32
/* How often a waiting latency tenant looks for dead tenants. */
#define REAP_EVERY_NS 10000000u
/* How often the memory thread looks at the policy without being woken. */
#define SERVE_TICK_NS 100000000u

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- the latency side: asking */

struct asked {
	struct coloc_tenant *t;
	uint32_t seq;
	bool discard;  /* a discard request, answered through discard_ack */
};

static bool answered(const struct asked *a)
{
	uint32_t ack = __atomic_load_n(a->discard ? &a->t->discard_ack : &a->t->mem_ack,
				       __ATOMIC_ACQUIRE);

	/* A slot freed or reused by another process answers nothing more. */
	return (int32_t)(ack - a->seq) >= 0 || !a->t->pid || !coloc_tenant_alive(a->t);
}

/* What a latency tenant still has to charge, and who takes it as it comes. */
struct need {
	uint64_t left;  /* bytes not charged yet */
	uint64_t unit;  /* charged this much at a time */
	uint64_t budget, reserve;
	void (*take)(void *arg, uint64_t bytes);
	void *arg;
	uint64_t first_ns, last_ns; /* when the first and the last unit were charged */
};

/*
 * Charges what fits now, `unit` at a time, handing each to the taker: the
 * latency tenant maps its first pages while the best-effort tenant is still
 * giving back the rest.  True when nothing is left.
 */
static bool charge_some(struct coloc_segment *s, struct coloc_tenant *self, struct need *n)
{
	while (n->left) {
		uint64_t x = n->left < n->unit ? n->left : n->unit;

		if (coloc_coord_mem_charge(s, self, x, n->budget, n->reserve) != 0)
			return false;
		n->left -= x;
		n->last_ns = now_ns();
		if (!n->first_ns)
			n->first_ns = n->last_ns;
		if (n->take)
			n->take(n->arg, x);
	}
	return true;
}

/*
 * Waits until everything needed is charged (true), every tenant in `asked`
 * answered, or `until` passed.
 */
static bool wait_for_room(struct coloc_segment *s, struct coloc_tenant *self, struct need *need,
			  const struct asked *asked, int n, uint64_t until)
{
	uint64_t reaped = now_ns();

	for (;;) {
		uint32_t epoch = __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE);
		uint64_t now;
		int open = 0;

		if (charge_some(s, self, need))
			return true;
		for (int i = 0; i < n; i++)
			open += !answered(&asked[i]);
		now = now_ns();
		if (!open || now >= until)
			return charge_some(s, self, need);
		if (now - reaped >= REAP_EVERY_NS) {
			coloc_coord_reap(s);
			reaped = now;
		}
		coloc_coord_wait(s, epoch, until - now < REAP_EVERY_NS ? until - now : REAP_EVERY_NS);
	}
}

/* Posts step `path`'s requests for `want` bytes to the tenants that can answer it. */
static int ask(struct coloc_segment *s, enum coloc_handover_path path, uint64_t want,
	       struct asked *asked)
{
	int n = 0;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		struct coloc_tenant *t = &s->tenants[i];
		uint64_t cached = __atomic_load_n(&t->mem_cached, __ATOMIC_RELAXED);
		uint32_t seq;
		pid_t pid = __atomic_load_n(&t->pid, __ATOMIC_ACQUIRE);

		if (!pid || t->role != COLOC_ROLE_BEST_EFFORT || !coloc_tenant_alive(t))
			continue;
		switch (path) {
		case COLOC_PATH_CACHED:
			if (!cached || coloc_coord_post_reclaim(s, t, COLOC_RECLAIM_TRIM,
								 want < cached ? want : cached, &seq))
				continue;
			asked[n++] = (struct asked){ t, seq, false };
			break;
		case COLOC_PATH_DISCARD:
			/* Tenants in the protocol: a unit begun at least once. */
			if (!__atomic_load_n(&t->marks, __ATOMIC_RELAXED))
				continue;
			if (coloc_coord_request_discard(s, pid, want, &seq))
				continue;
			asked[n++] = (struct asked){ t, seq, true };
			break;
		case COLOC_PATH_SWAP:
			if (__atomic_load_n(&t->mem_held, __ATOMIC_RELAXED) <= cached ||
			    coloc_coord_post_reclaim(s, t, COLOC_RECLAIM_SWAP, 0, &seq))
				continue;
			asked[n++] = (struct asked){ t, seq, false };
			break;
		default:
			break;
		}
	}
	return n;
}

static const char *const path_names[COLOC_PATHS] = { "cached pages", "discard", "swap",
						      "nothing" };

bool coloc_handover(struct coloc_segment *s, struct coloc_tenant *self, uint64_t bytes,
		    uint64_t budget, uint64_t reserve, const char *api, uint64_t unit,
		    void (*take)(void *arg, uint64_t bytes), void *arg)
{
	struct need need = { bytes, unit ? unit : bytes, budget, reserve, take, arg, 0, 0 };
	static const enum coloc_handover_path steps[] = { COLOC_PATH_CACHED, COLOC_PATH_DISCARD,
							  COLOC_PATH_SWAP };
	/* Of the wait, the share each step may use before the next is tried. */
	static const unsigned share[] = { 4, 2, 1 };
	uint64_t start = now_ns(), deadline = start + coloc_cfg.mem_wait_ns;
	uint64_t want = coloc_coord_mem_shortfall(s, self, bytes) + coloc_cfg.mem_watermark;
	enum coloc_handover_path path = COLOC_PATH_FAILED;
	struct asked asked[COLOC_MAX_TENANTS];

	coloc_log(COLOC_LOG_INFO, "handover: %s of %" PRIu64 " bytes needs %" PRIu64
		  " MiB from best-effort tenants", api, bytes, want >> 20);
	/*
	 * What they give back now is not theirs to take again (a swap-in, a new
	 * page): until this tenant has charged all it asked for, they leave room
	 * for all of it, not just the shortfall (measured on the H100: a tenant
	 * swapped out swapped itself back in into the room the latency tenant was
	 * about to charge); once it is charged, the hold drops to W.
	 */
	coloc_coord_hold(s, bytes + coloc_cfg.mem_watermark, start);
	__atomic_store_n(&self->mem_wanting, 1, __ATOMIC_SEQ_CST);
	for (unsigned k = 0; k < sizeof(steps) / sizeof(*steps); k++) {
		uint64_t now = now_ns(), until;
		int n;

		if (now >= deadline)
			break;
		until = now + (deadline - now) / share[k];
		n = ask(s, steps[k], want, asked);
		if (coloc_log_on(COLOC_LOG_DEBUG))
			coloc_log(COLOC_LOG_DEBUG, "handover: %s: %d tenants asked", path_names[steps[k]],
				  n);
		if (wait_for_room(s, self, &need, asked, n, until)) {
			path = steps[k];
			break;
		}
	}
	__atomic_store_n(&self->mem_wanting, 0, __ATOMIC_SEQ_CST);
	coloc_coord_handover_record(s, path, bytes, now_ns() - start, coloc_cfg.mem_watermark,
				    now_ns());
	if (path == COLOC_PATH_FAILED)
		coloc_log(COLOC_LOG_WARN, "handover: %s of %" PRIu64 " bytes: best-effort tenants gave "
			  "back too little (%.1f ms waited, COLOC_MEM_WAIT_MS=%" PRIu64 ")", api, bytes,
			  (double)(now_ns() - start) / 1e6, coloc_cfg.mem_wait_ns / 1000000u);
	else
		coloc_log(COLOC_LOG_INFO, "handover: %s of %" PRIu64 " bytes served through %s in "
			  "%.3f ms (first of it charged at %.3f ms, the last at %.3f ms)", api, bytes,
			  path_names[path], (double)(now_ns() - start) / 1e6,
			  need.first_ns ? (double)(need.first_ns - start) / 1e6 : 0.0,
			  need.last_ns ? (double)(need.last_ns - start) / 1e6 : 0.0);
	return path != COLOC_PATH_FAILED;
}

/* ---- the best-effort side, and the policy's clock: one memory thread per GPU */

static struct {
	pthread_mutex_t lock; /* guards segs[] and n */
	struct coloc_segment *segs[MAX_SEGMENTS];
	struct coloc_tenant *selves[MAX_SEGMENTS];
	CUcontext ctx[MAX_SEGMENTS];
	int dev[MAX_SEGMENTS]; /* the segment's device: its pool is the one asked */
	int n;
} serving = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * Swaps this process's pool of device `dev` out: its GPU work (on every
 * device: the gate is the process's) waits at the gate until swap_in.  One
 * device at a time: the thread that closes the gate is the one that opens
 * it, so a second device is not swapped while the first is out.
 */
static bool latency_wants(struct coloc_segment *s);

/* The device whose pool is swapped out or being swapped, -1: none (one at a time). */
static int swap_owner = -1;

static uint64_t swap_out(struct coloc_segment *s, struct coloc_tenant *self, int dev)
{
	int64_t given;
	int none = -1;

	if (!__atomic_compare_exchange_n(&swap_owner, &none, dev, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return 0; /* this device or another is out, or going out, already */
	coloc_gpu_gate_close();
	/* The gate may have taken a while: the request may be stale now. */
	if (!latency_wants(s)) {
		coloc_gpu_gate_open();
		__atomic_store_n(&swap_owner, -1, __ATOMIC_RELEASE);
		return 0;
	}
	/* What was launched before the gate closed must finish before its memory goes. */
	REAL(cuCtxSynchronize)();
	given = coloc_pool_swap_out(dev);
	if (given < 0 || !coloc_pool_swapped(dev)) {
		coloc_gpu_gate_open();
		__atomic_store_n(&swap_owner, -1, __ATOMIC_RELEASE);
		return given < 0 ? 0 : (uint64_t)given;
	}
	__atomic_store_n(&self->mem_swapped, coloc_pool_swapped(dev), __ATOMIC_RELAXED);
	__atomic_fetch_add(&self->swaps_out, 1, __ATOMIC_RELAXED);
	coloc_log(COLOC_LOG_INFO, "handover: swapped %" PRIu64 " MiB of device %d out to host "
		  "memory; GPU work waits until it is back", coloc_pool_swapped(dev) >> 20, dev);
	return (uint64_t)given;
}

static void swap_in(struct coloc_tenant *self, int dev)
{
	uint64_t n = coloc_pool_swapped(dev);

	if (!n || coloc_pool_swap_in(dev) < 0)
		return;
	__atomic_store_n(&self->mem_swapped, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&self->swaps_in, 1, __ATOMIC_RELAXED);
	coloc_gpu_gate_open();
	__atomic_store_n(&swap_owner, -1, __ATOMIC_RELEASE);
	coloc_log(COLOC_LOG_INFO, "handover: swapped %" PRIu64 " MiB of device %d back in", n >> 20,
		  dev);
}

/* Whether a live latency tenant of `s` waits for a handover now. */
static bool latency_wants(struct coloc_segment *s)
{
	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		struct coloc_tenant *t = &s->tenants[i];

		if (__atomic_load_n(&t->pid, __ATOMIC_ACQUIRE) && t->role == COLOC_ROLE_LATENCY &&
		    __atomic_load_n(&t->mem_wanting, __ATOMIC_SEQ_CST) && coloc_tenant_alive(t))
			return true;
	}
	return false;
}

static void serve_one(struct coloc_segment *s, struct coloc_tenant *self, int dev)
{
	uint32_t req = __atomic_load_n(&self->mem_req, __ATOMIC_ACQUIRE);
	uint64_t given = 0;

	if (self->role == COLOC_ROLE_LATENCY) {
		coloc_pool_keep(dev, coloc_cfg.mem_watermark, coloc_cfg.mem_idle_ns);
		coloc_coord_hold_expire(s, coloc_cfg.mem_idle_ns, now_ns());
		return;
	}
	if (req != __atomic_load_n(&self->mem_ack, __ATOMIC_ACQUIRE)) {
		uint32_t kind = __atomic_load_n(&self->mem_req_kind, __ATOMIC_RELAXED);
		uint64_t bytes = __atomic_load_n(&self->mem_req_bytes, __ATOMIC_RELAXED);

		/*
		 * A request whose latency tenant stopped waiting (it got its memory
		 * another way, gave up, or died) is answered without giving anything:
		 * a swap costs this tenant its GPU time for nothing.
		 */
		if (!latency_wants(s))
			given = 0;
		else if (kind == COLOC_RECLAIM_SWAP)
			given = coloc_pool_trim(dev, UINT64_MAX) + swap_out(s, self, dev);
		else
			given = coloc_pool_trim(dev, bytes ? bytes : UINT64_MAX);
		coloc_coord_reclaim_ack(s, self, req, given);
		return;
	}
	coloc_coord_hold_expire(s, coloc_cfg.mem_idle_ns, now_ns());
	if (coloc_pool_swapped(dev))
		swap_in(self, dev);
}

static void *serve(void *arg)
{
	int i = (int)(intptr_t)arg;
	struct coloc_segment *s = serving.segs[i];
	struct coloc_tenant *self = serving.selves[i];

	coloc_enter(); /* what this thread calls is colocc's own */
	REAL(cuCtxSetCurrent)(serving.ctx[i]);
	for (;;) {
		uint32_t epoch = __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE);

		serve_one(s, self, serving.dev[i]);
		coloc_coord_wait(s, epoch, SERVE_TICK_NS);
	}
	return NULL;
}

void coloc_handover_serve(struct coloc_segment *s, struct coloc_tenant *self)
{
	pthread_attr_t a;
	pthread_t th;
	CUcontext ctx = NULL;
	CUdevice dev = -1;
	int i;

	if (!coloc_pool_enabled())
		return;
	pthread_mutex_lock(&serving.lock);
	for (i = 0; i < serving.n && serving.segs[i] != s; i++)
		;
	if (i < serving.n || serving.n == MAX_SEGMENTS || REAL(cuCtxGetCurrent)(&ctx) ||
	    !ctx || REAL(cuCtxGetDevice)(&dev) || dev < 0) {
		pthread_mutex_unlock(&serving.lock);
		return;
	}
	serving.segs[i] = s;
	serving.selves[i] = self;
	serving.ctx[i] = ctx;
	serving.dev[i] = dev;
	serving.n++;
	__atomic_store_n(&self->mem_pool, 1, __ATOMIC_RELEASE);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, serve, (void *)(intptr_t)i) != 0) {
		__atomic_store_n(&self->mem_pool, 0, __ATOMIC_RELEASE);
		coloc_log(COLOC_LOG_ERROR, "handover: no memory thread: GPU %s's latency tenants "
			  "cannot take this tenant's memory", s->gpu);
	}
	pthread_attr_destroy(&a);
	pthread_mutex_unlock(&serving.lock);
}

static void after_fork_child(void)
{
	pthread_mutex_init(&serving.lock, NULL);
	serving.n = 0;
	swap_owner = -1; /* the child has no pools */
}

__attribute__((constructor)) static void handover_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}
