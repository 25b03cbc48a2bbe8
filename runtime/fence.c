/*
 * Other threads' work behind a held launch (COLOC_PARK=host).
 *
 * A held persistent launch (launch.c, ptb_hold) does not return to its
 * thread until every block of it is done; while it is stopped nothing of it
 * is on the GPU or on its stream.  The thread that would put the next work
 * on the stream is the one waiting, so its own order holds.  Another
 * thread's work is a different matter: CUDA lets work put on the stream
 * while the launch call is in progress go before the kernel or after it,
 * never into the middle of it, and a stopped held kernel would let it into
 * the middle, between the launch and its relaunch, to see half the
 * kernel's results and leave its own to the other half.  So every hooked
 * call that puts work on a stream (launches, graph launches, copies and
 * sets, stream-ordered allocation, and the FENCE lines of hooks.def: event
 * records, stream waits, host functions, stream memory operations,
 * prefetches) first asks whether a hold is live that the work must come
 * after, and if so waits for its end: the work then goes after the whole
 * kernel, as it could have without colocc.
 *
 * Synchronizations and queries need nothing.  Made while the launch call is
 * in progress, they may return before the kernel was put on the stream; a
 * program that reads the kernel's results after one of them without
 * knowing the launch call returned reads them racily, with or without
 * colocc.  They put nothing on the stream to run in the middle.
 *
 * Which work must wait for a hold on stream S of context C (the caller's
 * current context, which errs toward waiting for work on a created stream
 * of another context): work on S; work on C's legacy default stream when S
 * is a blocking stream (created without CU_STREAM_NON_BLOCKING, or a
 * per-thread default stream), and work on a blocking stream of C when S is
 * the legacy stream (the legacy stream's implicit synchronization);
 * synchronous copies and sets, which go on the legacy stream (or the
 * caller's per-thread stream).
 *
 * The check and the driver's call must be one step against a hold's
 * registration, or a call that passed the check could reach the driver
 * after the held kernel's first launch: each driver call that puts work on
 * an application's stream is bracketed (coloc_fence_begin/_end, only there,
 * after anything that may block, such as the gating of best-effort
 * launches), the bracket counts itself in `inflight` before it looks for
 * holds, and a thread registering a hold waits, after it is published, until
 * no bracket is open (Dekker's pattern: one of the two sees the other).  Two
 * threads holding launches on one stream would each wait for the other: the
 * second waits for the first's end before it registers.  A thread never
 * waits for its own hold (its relaunches are bracketed too).
 *
 * Latency tenants hold nothing and skip all of it; in a best-effort tenant
 * with no hold live a bracket is two atomic additions and a load.
 */
#include <pthread.h>

#include "coloc.h"
#include "scheduler.h"

#define CU_STREAM_NON_BLOCKING_FLAG 0x1

/* A stream as the caller names it, resolved. */
struct stream_id {
	CUcontext ctx;
	enum { ID_LEGACY, ID_PTDS, ID_CREATED } kind;
	CUstream handle;   /* ID_CREATED */
	pthread_t thread;  /* ID_PTDS: whose */
	bool blocking;     /* synchronizes with the legacy stream */
};

#define MAX_HOLDS 64

static struct {
	pthread_mutex_t lock;
	pthread_cond_t ended;
	pthread_cond_t quiet; /* `inflight` reached 0 while a registration waited */
	struct hold_entry {
		bool used;
		struct stream_id id; /* id.thread: the holding thread */
	} holds[MAX_HOLDS];
} fence = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
	    { { 0 } } };

int coloc_holds_live;
/* Brackets open (between their check and the end of their driver call), and registrations waiting. */
static int inflight, inflight_waiters;

static void resolve(struct stream_id *id, CUstream s, enum coloc_stream_flavor flavor)
{
	if (REAL(cuCtxGetCurrent)(&id->ctx) != CUDA_SUCCESS)
		id->ctx = NULL;
	id->handle = NULL;
	id->thread = pthread_self();
	id->blocking = true;
	if (s == CU_STREAM_LEGACY || (!s && flavor != STREAM_PTDS)) {
		id->kind = ID_LEGACY;
	} else if (s == CU_STREAM_PER_THREAD || !s) {
		id->kind = ID_PTDS;
	} else {
		unsigned flags = 0;

		id->kind = ID_CREATED;
		id->handle = s;
		/* A stream whose flags cannot be read counts as blocking: waiting is the safe side. */
		if (REAL(cuStreamGetFlags)(s, &flags) == CUDA_SUCCESS)
			id->blocking = !(flags & CU_STREAM_NON_BLOCKING_FLAG);
	}
}

static bool same_stream(const struct stream_id *a, const struct stream_id *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case ID_CREATED:
		return a->handle == b->handle;
	case ID_PTDS:
		return a->ctx == b->ctx && pthread_equal(a->thread, b->thread);
	default:
		return a->ctx == b->ctx;
	}
}

/* Whether work on `op` must follow the held launch on `held`. */
static bool must_follow(const struct stream_id *held, const struct stream_id *op)
{
	if (same_stream(held, op))
		return true;
	if (held->ctx != op->ctx)
		return false;
	return (held->kind == ID_LEGACY && op->blocking) || (op->kind == ID_LEGACY && held->blocking);
}

/* Whether a live hold of another thread is one that work on `op` must follow. */
static bool must_wait(const struct stream_id *op)
{
	for (int i = 0; i < MAX_HOLDS; i++)
		if (fence.holds[i].used && !pthread_equal(fence.holds[i].id.thread, op->thread) &&
		    must_follow(&fence.holds[i].id, op))
			return true;
	return false;
}

int coloc_hold_register(CUstream stream, enum coloc_stream_flavor flavor)
{
	struct stream_id id;
	int slot = -1;

	resolve(&id, stream, flavor);
	pthread_mutex_lock(&fence.lock);
	/* Another thread's hold this one's launch must follow: after its end. */
	while (must_wait(&id))
		pthread_cond_wait(&fence.ended, &fence.lock);
	for (int i = 0; i < MAX_HOLDS && slot < 0; i++)
		if (!fence.holds[i].used)
			slot = i;
	if (slot >= 0) {
		fence.holds[slot].used = true;
		fence.holds[slot].id = id;
		__atomic_add_fetch(&coloc_holds_live, 1, __ATOMIC_SEQ_CST);
		/* Brackets that passed their check before the hold was published: done first. */
		inflight_waiters++;
		while (__atomic_load_n(&inflight, __ATOMIC_SEQ_CST))
			pthread_cond_wait(&fence.quiet, &fence.lock);
		inflight_waiters--;
	}
	pthread_mutex_unlock(&fence.lock);
	if (slot < 0) {
		static int logged;

		if (!__atomic_exchange_n(&logged, 1, __ATOMIC_RELAXED))
			coloc_log(COLOC_LOG_ERROR, "preemption: more than %d launches held at once; "
				  "other threads' work on the stream of one more may start before "
				  "its blocks are done", MAX_HOLDS);
	}
	return slot;
}

void coloc_hold_unregister(int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&fence.lock);
	fence.holds[slot].used = false;
	__atomic_sub_fetch(&coloc_holds_live, 1, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&fence.ended);
	pthread_mutex_unlock(&fence.lock);
}

void coloc_fence_begin_slow(CUstream stream, enum coloc_stream_flavor flavor)
{
	struct stream_id op;
	bool waited = false;

	for (;;) {
		__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&coloc_holds_live, __ATOMIC_SEQ_CST))
			return;
		resolve(&op, stream, flavor);
		pthread_mutex_lock(&fence.lock);
		if (!must_wait(&op)) {
			pthread_mutex_unlock(&fence.lock);
			return;
		}
		/* Out of the count while it waits: the hold's owner may be registering another. */
		if (!__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST) && inflight_waiters)
			pthread_cond_broadcast(&fence.quiet);
		if (!waited)
			coloc_stat_add(STAT_HOLD_FENCE_WAITS, 1);
		waited = true;
		while (must_wait(&op))
			pthread_cond_wait(&fence.ended, &fence.lock);
		pthread_mutex_unlock(&fence.lock);
	}
}

void coloc_fence_end_slow(void)
{
	if (!__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&inflight_waiters, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&fence.lock);
		pthread_cond_broadcast(&fence.quiet);
		pthread_mutex_unlock(&fence.lock);
	}
}

/* The FENCE lines of hooks.def: the call waits for holds it must follow, then goes on. */
#define HOOK(sym, api, since, flavor, params, args)
#define DRIVER(sym, params)
#define FENCE(sym, api, since, flavor, params, args, stream)     \
	CUresult hook_##sym(sym##_fn real, COLOC_UNPAREN params) \
	{                                                        \
		CUresult rc;                                     \
                                                                 \
		coloc_fence_begin(stream, flavor);               \
		rc = real args;                                  \
		coloc_fence_end();                               \
		return rc;                                       \
	}
#include "hooks.def"
#undef HOOK
#undef DRIVER
#undef FENCE

static void after_fork_child(void)
{
	/* The child has only the forking thread, which held nothing in a hook. */
	pthread_mutex_init(&fence.lock, NULL);
	pthread_cond_init(&fence.ended, NULL);
	pthread_cond_init(&fence.quiet, NULL);
	inflight = inflight_waiters = 0;
	for (int i = 0; i < MAX_HOLDS; i++)
		fence.holds[i].used = false;
	coloc_holds_live = 0;
}

__attribute__((constructor)) static void fence_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}
