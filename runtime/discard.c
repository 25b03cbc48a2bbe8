/*
 * The discard protocol, tenant side (include/coloc/discard.h).
 *
 * The state lives in the tenant's slot of its GPU's coordinator segment
 * (coord.h): the phase and unit, which only this process writes, and the
 * request and acknowledgement sequences, which requesters and this process
 * change under the segment's lock (coord.c, tenant.c).  So colocctl and a
 * requester see the phase, and a request posted by another process needs
 * nothing from this one but a load at its next check.
 *
 * coloc_discard_pending is called at every boundary where work could stop
 * (a framework checks at each module): it takes no lock, only loads, and it
 * notes the request it reported, which is what coloc_discard_ack then
 * acknowledges.  A request posted after that report stays outstanding and
 * is reported at the next check: a second request discards the replay too.
 *
 * The callback's thread sleeps on the segment's epoch (futex), which a
 * requester bumps.  A request that waited through OPTIMIZER or COLLECTIVE
 * becomes deliverable when this process moves back to COMPUTE; only then,
 * and only when such a request waits, does the move bump the epoch too, so
 * that the thread need not poll.
 */
#include <errno.h>

#include "coloc/discard.h"
#include "pool.h"
#include "scheduler.h"

static struct {
	pthread_mutex_t lock; /* guards the binding, fn, arg and watching */
	/* Set once, self last; read without the lock once self is seen. */
	struct coloc_segment *seg;
	struct coloc_tenant *self;
	int dev;            /* seg's device: its pool is the one trimmed at an acknowledgement */
	void (*fn)(void *arg, uint64_t bytes);
	void *arg;
	bool watching;
	uint32_t seen;      /* atomic: the request coloc_discard_pending last reported */
	uint32_t delivered; /* atomic: the last request handed to fn */
} dis = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The request outstanding and deliverable now, or 0 when there is none. */
static bool deliverable(const struct coloc_tenant *t, uint32_t *req)
{
	*req = load(&t->discard_req);
	return *req != load(&t->discard_ack) && load(&t->phase) == COLOC_PHASE_COMPUTE;
}

/* Hands a deliverable request to the callback once. */
static void deliver(void)
{
	void (*fn)(void *, uint64_t);
	void *arg;
	uint32_t req;

	if (!deliverable(dis.self, &req) || req == load(&dis.delivered))
		return;
	pthread_mutex_lock(&dis.lock);
	fn = dis.fn;
	arg = dis.arg;
	pthread_mutex_unlock(&dis.lock);
	if (!fn)
		return; /* a callback set later gets it */
	__atomic_store_n(&dis.delivered, req, __ATOMIC_RELEASE);
	fn(arg, __atomic_load_n(&dis.self->discard_bytes, __ATOMIC_RELAXED));
}

static void *watcher(void *arg)
{
	struct coloc_segment *seg = arg;

	for (;;) {
		uint32_t epoch = load(&seg->epoch);

		deliver();
		coloc_coord_wait(seg, epoch, 1000000000u);
	}
	return NULL;
}

/* Starts the callback's thread when there is a callback and a segment; under the lock. */
static void watch_locked(void)
{
	pthread_t th;
	pthread_attr_t a;

	if (dis.watching || !dis.fn || !dis.self)
		return;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	dis.watching = pthread_create(&th, &a, watcher, dis.seg) == 0;
	pthread_attr_destroy(&a);
	if (!dis.watching)
		coloc_log(COLOC_LOG_ERROR, "discard: no callback thread; requests are seen only "
			  "by coloc_discard_pending");
}

/* Wakes the callback's thread when a request became deliverable on this side. */
static void nudge(void)
{
	uint32_t req;

	if (deliverable(dis.self, &req) && req != load(&dis.delivered) &&
	    __atomic_load_n(&dis.watching, __ATOMIC_ACQUIRE))
		coloc_coord_signal(dis.seg);
}

/* This process's slot on the GPU of the first call that finds one (header: errors). */
static int discard_bind(void)
{
	struct coloc_segment *seg;
	struct coloc_tenant *self;
	CUdevice dev = -1;

	if (coloc_cfg.disabled || coloc_cfg.role != COLOC_ROLE_BEST_EFFORT)
		return -EPERM;
	if (__atomic_load_n(&dis.self, __ATOMIC_ACQUIRE))
		return 0;
	seg = coloc_sched_segment(&self);
	if (!seg || !self)
		return -ENODEV;
	if (REAL(cuCtxGetDevice)(&dev) != CUDA_SUCCESS)
		dev = -1; /* then every device's pool */
	pthread_mutex_lock(&dis.lock);
	if (!dis.self) {
		dis.seg = seg;
		dis.dev = dev;
		dis.seen = dis.delivered = self->discard_ack;
		__atomic_store_n(&dis.self, self, __ATOMIC_RELEASE);
		watch_locked();
	}
	pthread_mutex_unlock(&dis.lock);
	return 0;
}

static void set_phase(enum coloc_phase phase)
{
	__atomic_store_n(&dis.self->phase, (uint32_t)phase, __ATOMIC_SEQ_CST);
	if (phase == COLOC_PHASE_COMPUTE)
		nudge();
}

COLOC_EXPORT int coloc_unit_begin(uint64_t unit)
{
	int rc = discard_bind();

	if (rc)
		return rc;
	if (load(&dis.self->phase) != COLOC_PHASE_NONE)
		return -EPROTO;
	__atomic_store_n(&dis.self->unit, unit, __ATOMIC_RELAXED);
	__atomic_store_n(&dis.self->marks, 1, __ATOMIC_RELAXED);
	set_phase(COLOC_PHASE_COMPUTE);
	return 0;
}

COLOC_EXPORT int coloc_unit_phase(enum coloc_phase phase)
{
	int rc = discard_bind();

	if (rc)
		return rc;
	if (phase != COLOC_PHASE_COMPUTE && phase != COLOC_PHASE_OPTIMIZER &&
	    phase != COLOC_PHASE_COLLECTIVE)
		return -EINVAL;
	if (load(&dis.self->phase) == COLOC_PHASE_NONE)
		return -EPROTO;
	set_phase(phase);
	return 0;
}

COLOC_EXPORT int coloc_unit_end(void)
{
	int rc = discard_bind();

	if (rc)
		return rc;
	if (load(&dis.self->phase) == COLOC_PHASE_NONE)
		return -EPROTO;
	set_phase(COLOC_PHASE_NONE);
	return 0;
}

COLOC_EXPORT int coloc_discard_pending(uint64_t *bytes)
{
	int rc = discard_bind();
	uint32_t req;

	if (bytes)
		*bytes = 0;
	if (rc)
		return rc;
	if (!deliverable(dis.self, &req))
		return 0;
	__atomic_store_n(&dis.seen, req, __ATOMIC_RELEASE);
	if (bytes)
		*bytes = __atomic_load_n(&dis.self->discard_bytes, __ATOMIC_RELAXED);
	return 1;
}

COLOC_EXPORT int coloc_discard_ack(uint64_t freed_bytes)
{
	int rc = discard_bind();

	if (rc)
		return rc;
	/*
	 * What the tenant freed sits in its pools as cached pages: they go back
	 * to the driver before the requester hears of it, so that its next
	 * charge finds the room.
	 */
	if (coloc_pool_enabled())
		coloc_pool_trim(dis.dev, UINT64_MAX);
	return coloc_coord_discard_ack(dis.seg, dis.self, load(&dis.seen), freed_bytes);
}

COLOC_EXPORT int coloc_discard_callback(void (*fn)(void *arg, uint64_t bytes), void *arg)
{
	int rc = discard_bind();

	if (rc)
		return rc;
	pthread_mutex_lock(&dis.lock);
	dis.fn = fn;
	dis.arg = arg;
	watch_locked();
	pthread_mutex_unlock(&dis.lock);
	nudge(); /* a request already deliverable is reported at once */
	return 0;
}

static void after_fork_child(void)
{
	/* The child is a new tenant (sched.c): no slot yet, no callback thread. */
	pthread_mutex_init(&dis.lock, NULL);
	dis.seg = NULL;
	dis.self = NULL;
	dis.fn = NULL;
	dis.arg = NULL;
	dis.watching = false;
}

__attribute__((constructor)) static void discard_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}
