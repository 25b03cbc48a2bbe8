/*
 * Policy isolate, first form: kernel- and slice-level gating.
 *
 * Latency side.  Every launch sets a flag before it goes to the driver and
 * again once the driver took it and, when the tenant was idle, marks it
 * busy in its coordinator slot and wakes the monitor thread (a system call
 * only on the idle-to-busy edge).  The first store keeps the tenant busy
 * while a launch is in the driver and marks an idle one busy a launch call
 * earlier; the second is what the monitor's decision rests on: a launch
 * whose second store the monitor cleared was in the driver before the
 * monitor's wait began.  How the monitor decides that the tenant is idle
 * again is COLOC_BUSY:
 *
 *   drain   (default under policy isolate) it waits for the context to drain (cuCtxSynchronize,
 *           from its own thread: the application's streams are untouched)
 *           and marks the tenant idle once no launch came in meanwhile; with
 *           COLOC_SETTLE_LOOK_US it begins that wait only once a look finds
 *           no launch since the last look (settle says why).  A
 *           tenant that keeps launching (a CPU-bound inference request)
 *           stays busy from its first launch to its last kernel's end.
 *   kernel  it polls the streams the tenant launched on (cuStreamQuery,
 *           every 20 us) and marks it idle as soon as all are done and no
 *           launch came in meanwhile: best-effort work runs in the gaps
 *           between the latency tenant's kernels (Tally's rule); the default
 *           under policy fill, whose communication kernels' streams are not
 *           polled, so their time is a bubble to fill.  A tenant
 *           on the per-thread default stream, whose stream the monitor
 *           cannot name, or on more than 16 streams, is handled as drain.
 *
 * The monitor runs under SCHED_IDLE: cuCtxSynchronize spins (the driver's
 * default for a context with CPUs to spare), and on a tenant confined to
 * one CPU a monitor of normal priority took half of it from the launching
 * thread (launch throughput 48% on the H200).  At idle priority it runs
 * when the tenant's own threads leave the CPU, so on a crowded CPU the
 * tenant only counts as busy a little longer, never launches slower.
 *
 * Only best-effort tenants read the busy mark.  While none is in the GPU's
 * table, the monitor (COLOC_MONITOR=auto, the default) leaves a busy tenant
 * busy, marked COLOC_BUSY_UNWATCHED, and only looks for a best-effort
 * tenant every millisecond.  A latency tenant alone then pays nothing of
 * the monitor after its first launch: no looks that pull the launch flag's
 * cache line from the launching thread, no drain waits spinning in the
 * driver beside it, no idle-to-busy edges with their lock and wake-up.  A
 * best-effort tenant that joins finds the tenant busy; its first launch
 * waits until the monitor has noticed it and settled the tenant as above.
 * COLOC_MONITOR=always settles alone too, to measure what that costs and
 * for the tests that count its drains.  On an H200 the launch loop of a
 * tenant alone kept as much of its throughput either way (99.33% and
 * 99.49% of the driver's, intervals overlapping:
 * benchmarks/results/2026-12-06-h200/session22/): what auto saves is the
 * monitor's CPU time (a drain wait spins while the tenant's work runs) and
 * the edges, not launch time.
 *
 * At the idle-to-busy edge, without MPS (COLOC_EDGE_WAIT_US=auto), the
 * launch that made it waits, 0.5 ms at most, until the best-effort tenants'
 * watchers say their persistent kernels have stopped (wait_vacated): under
 * time-slicing their stop is a command of their own context and would land
 * only in its next time slice once the latency kernel had the GPU.  From
 * that wait until the launch has left the driver's call the monitor does
 * not mark the tenant idle (edge_waits): it could find nothing in flight
 * yet, and the best-effort tenants would resume in front of the launch.
 *
 * Either way COLOC_HOLD_US must also have passed since the first drain
 * after the last launch.
 * The flag is checked again before the idle mark is published, so a launch
 * racing with it leaves the tenant busy: the launch stores the flag and
 * then loads the monitor's `idling` word and the busy mark, the monitor
 * stores `idling` and then loads the flag, and one of them must see the
 * other's store; the idle mark itself is published under the lock a
 * launch that saw `idling` takes, so other processes never read an idle
 * mark that is taken back.  That needs a full barrier on
 * both sides; the launch is the hot one (issue 4's 1% of a 3 us launch is
 * 30 ns), so where Linux has membarrier the monitor pays for both
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED makes every running thread of the
 * process pass a barrier) and a launch costs plain stores and loads, no
 * locked instruction.  Without membarrier both sides fence.
 *
 * Best-effort side.  Before a kernel, or each slice of a sliced kernel,
 * goes to the GPU, the launching thread waits while any latency tenant of
 * that GPU is busy.  Nothing is reordered: launches are only delayed, on
 * the application's own thread, so stream order, events and every
 * synchronization call keep their meaning.  A latency tenant that seems
 * busy for more than 100 ms is checked for life; a dead one is reaped and
 * cannot hold the others back.
 *
 * Persistent kernels already running are stopped and resumed by
 * preempt.c's watcher, which the busy/idle edges here wake up
 * (coloc_coord_signal); sliced kernels are bounded by one slice.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef __NR_membarrier
#include <linux/membarrier.h>
#endif

#include "scheduler.h"

#define MAX_DEVICES 32
/* Between two waits for a latency context that is still receiving work. */
#define SETTLE_PAUSE_NS 1000000u
/* Between two polls of the latency tenant's streams (COLOC_BUSY=kernel). */
#define POLL_PAUSE_NS 20000u
/*
 * COLOC_SETTLE_LOOK_US's default.  On an H100, a loop of empty launches with
 * the tenant on two CPUs kept 98.81% and 99.24% of its throughput with looks
 * 20 us apart against 98.58% and 98.66% with a drain wait at once, run for
 * run, and the default matrix's core did not lose by it (p99 -17.5% and
 * -8.9% against +4.6% and -4.8%; 0.709 and 0.734 of the idle time against
 * 0.755 and 0.708): benchmarks/results/2026-12-06-h100/session19/, call 1.
 */
#define LOOK_PAUSE_US 20u
/*
 * COLOC_HOLD_US's default under policy isolate.  Beside a trainer of short
 * kernels nearly every request of a Poisson-driven server opened a busy
 * period of its own: about half came while the one before still ran, and
 * the trainer's kernels slipped into the microseconds between the two.  On
 * an H100 (benchmarks/results/2026-12-07-h100/session29/) 100 us halved the
 * busy periods (4,846-4,970 to 2,581-2,592) and took the server's p99 from
 * -3.8/+15.9/+10.7% of alone to -14.2/-11.9/-8.8%; the trainer kept 0.88-0.89
 * of what the idle time gave it alone, against 0.86-0.94 without a hold.
 * 300 us bought the p99 nothing more and left the trainer 0.78-0.80.  Policy
 * fill holds nothing: its bubbles are what it fills.
 */
#define HOLD_DEFAULT_US 100u
/*
 * Between two looks for a best-effort tenant while every busy device is
 * unwatched (COLOC_MONITOR=auto).  It is what the first launch of a
 * best-effort tenant that joins may wait before the monitor notices it (the
 * settle follows): once per joining tenant, which has just spent far longer
 * starting up.  A look costs the tenant alone a scan of the tenant table,
 * none of it on the lines its launches write.
 */
#define UNWATCHED_PAUSE_NS 1000000u
#define MAX_STREAMS 16
#define MAX_DEPTH 16

/*
 * The best-effort items this tenant put on one GPU lately, each marked by
 * an event: the one COLOC_BE_DEPTH items back must be done before another
 * goes.  Per GPU, so that work held back on one GPU does not hold back
 * another's.
 */
struct depth_ring {
	pthread_mutex_t lock; /* everything here; held while waiting for an event */
	CUcontext ctx[MAX_DEPTH];
	CUevent ev[MAX_DEPTH];
	uint64_t cost[MAX_DEPTH]; /* what the item counts for, ns */
	bool pending[MAX_DEPTH];
	unsigned next;
};

struct dev_state {
	int ordinal;
	CUcontext ctx;             /* the context the latency tenant launches in */
	struct coloc_segment *seg;
	struct coloc_tenant *self;
	bool launched;             /* a latency launch since the monitor cleared it */
	bool idling;               /* the monitor is deciding to mark the tenant idle */
	int edge_waits;            /* launches that waited at the busy edge (COLOC_EDGE_WAIT_US), not out of the driver's call yet */
	bool hold_fresh;           /* the monitor's: a launch was seen since drained_ns was taken */
	uint64_t drained_ns;       /* the monitor's: the first drain found after the last launch seen */
	/* COLOC_BUSY=kernel: the streams it launched on; appended under sched.lock. */
	CUstream streams[MAX_STREAMS];
	unsigned nstreams;
	bool unnamed;              /* a launch on a stream the monitor cannot query */
	struct depth_ring depth;   /* best-effort tenants */
};

static struct {
	pthread_mutex_t lock; /* guards devs[], monitor_started, and the wake-up */
	pthread_cond_t wake;
	struct dev_state *devs[MAX_DEVICES];
	int monitor_started;
	uint64_t hold_ns;
	uint64_t edge_wait_ns; /* COLOC_EDGE_WAIT_US */
	bool edge_auto;        /* ... auto (the default): EDGE_WAIT_AUTO_NS without MPS, else 0 */
	bool by_kernel;       /* COLOC_BUSY=kernel */
	unsigned depth;       /* COLOC_BE_DEPTH */
	unsigned gated_depth; /* COLOC_GATED_DEPTH: the same for kernels that only run original */
	uint64_t look_ns;     /* COLOC_SETTLE_LOOK_US */
	bool watch_alone;     /* COLOC_MONITOR=always: settle with no best-effort tenant too */
} sched = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .depth = 2,
	    .gated_depth = 4, .look_ns = LOOK_PAUSE_US * 1000u };

/*
 * The device state of a process that sees one GPU, once joined: every
 * context is on it, so launches need not ask the driver which is current
 * (cuCtxGetCurrent at each latency launch was a measurable part of its
 * added time; docs/results.md).  NULL with several GPUs.  Latency launches
 * only: a launch without a current context fails, and a mark made for it
 * is undone by the monitor's next settle.
 */
static struct dev_state *only_dev;

struct coloc_latency_hot coloc_latency_hot;

static __thread CUcontext cached_ctx;
static __thread struct dev_state *cached_dev;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&t, NULL);
}

static void *monitor(void *arg);
static void light_fence_setup(void);

/* At info: how the monitor judges the latency tenant idle again. */
static void monitor_says_how(void)
{
	if (sched.by_kernel)
		coloc_log(COLOC_LOG_INFO, "coordinator: the monitor polls the latency tenant's "
			  "streams every %u us (COLOC_BUSY=kernel)", POLL_PAUSE_NS / 1000u);
	else if (sched.look_ns)
		coloc_log(COLOC_LOG_INFO, "coordinator: the monitor looks for new launches every "
			  "%llu us and waits for the context to drain once a look finds none "
			  "(COLOC_SETTLE_LOOK_US)", (unsigned long long)(sched.look_ns / 1000u));
	else
		coloc_log(COLOC_LOG_INFO, "coordinator: the monitor waits for the context to drain "
			  "at once (COLOC_SETTLE_LOOK_US=0)");
	coloc_log(COLOC_LOG_INFO, "coordinator: the latency tenant stays busy %llu us after the "
		  "first drain that follows its last launch (COLOC_HOLD_US; default %u under policy "
		  "isolate, 0 under fill)", (unsigned long long)(sched.hold_ns / 1000u), HOLD_DEFAULT_US);
	if (sched.watch_alone)
		coloc_log(COLOC_LOG_INFO, "coordinator: the monitor does so with no best-effort "
			  "tenant on the GPU too (COLOC_MONITOR=always)");
	else
		coloc_log(COLOC_LOG_INFO, "coordinator: while no best-effort tenant shares the GPU, "
			  "the monitor leaves the latency tenant busy, unwatched, and looks for one "
			  "every %u ms (COLOC_MONITOR=auto)", UNWATCHED_PAUSE_NS / 1000000u);
}

/* The coordinator of the current context's device, joined on first use. */
static struct dev_state *dev_join(CUcontext ctx)
{
	struct dev_state *d = NULL;
	CUdevice dev;
	int count = 0;
	char bus[64], path[4200];

	if (REAL(cuCtxGetDevice)(&dev) != CUDA_SUCCESS || dev < 0 || dev >= MAX_DEVICES)
		return NULL;
	pthread_mutex_lock(&sched.lock);
	d = sched.devs[dev];
	if (!d && (d = calloc(1, sizeof(*d)))) {
		pthread_mutex_init(&d->depth.lock, NULL);
		d->ordinal = dev;
		d->ctx = ctx;
		if (REAL(cuDeviceGetPCIBusId)(bus, sizeof(bus), dev) != CUDA_SUCCESS)
			snprintf(bus, sizeof(bus), "device%d", dev);
		for (char *p = bus; *p; p++)
			if (*p == '/')
				*p = '_';
		d->seg = coloc_coord_open(bus, path, sizeof(path));
		if (d->seg)
			d->self = coloc_coord_join(d->seg, coloc_cfg.role);
		if (d->self)
			coloc_log(COLOC_LOG_INFO, "coordinator: joined %s as a %s tenant", path,
				  coloc_cfg.role == COLOC_ROLE_LATENCY ? "latency" : "best-effort");
		else
			coloc_log(COLOC_LOG_WARN, "coordinator: GPU %d runs without coordination", dev);
		sched.devs[dev] = d;
		if (REAL(cuDeviceGetCount)(&count) == CUDA_SUCCESS && count == 1)
			__atomic_store_n(&only_dev, d, __ATOMIC_RELEASE);
	}
	if (d && d->self && coloc_cfg.role == COLOC_ROLE_LATENCY && !sched.monitor_started) {
		pthread_t th;
		pthread_attr_t a;

		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		light_fence_setup();
		if (pthread_create(&th, &a, monitor, NULL) == 0) {
			sched.monitor_started = 1;
			monitor_says_how();
		} else
			coloc_log(COLOC_LOG_ERROR, "coordinator: no monitor thread: this latency "
				  "tenant will look busy from its first launch on");
		pthread_attr_destroy(&a);
	}
	if (d && d == only_dev && d->self && coloc_cfg.role == COLOC_ROLE_LATENCY &&
	    sched.monitor_started && coloc_cfg.policy == COLOC_POLICY_ISOLATE && !sched.by_kernel &&
	    !coloc_latency_hot.self) {
		coloc_latency_hot.mark = (struct coloc_mark *)d;
		coloc_latency_hot.launched = &d->launched;
		coloc_latency_hot.idling = &d->idling;
		__atomic_store_n(&coloc_latency_hot.self, d->self, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sched.lock);
	return d;
}

static struct dev_state *current_dev(void)
{
	CUcontext ctx = NULL;

	if (coloc_cfg.policy == COLOC_POLICY_NONE)
		return NULL;
	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx)
		return NULL;
	if (ctx != cached_ctx || !cached_dev) {
		cached_dev = dev_join(ctx);
		cached_ctx = ctx;
	}
	return cached_dev;
}

#define SHARE_UNDER_MPS 717 /* 0.7 of the SMs, in 1/1024: docs/results.md */

/* 1: MPS, 0: not, -1: not asked yet; asked of the first device seen, once. */
static int mps_state = -1;

bool coloc_sched_mps(void)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	CUdevice dev;
	int mps = 0;

	if (__atomic_load_n(&mps_state, __ATOMIC_ACQUIRE) >= 0)
		return __atomic_load_n(&mps_state, __ATOMIC_RELAXED) == 1;
	if (REAL(cuCtxGetDevice)(&dev) != CUDA_SUCCESS)
		return false;
	pthread_mutex_lock(&once);
	if (mps_state < 0) {
		if (REAL(cuDeviceGetAttribute)(&mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, dev) !=
		    CUDA_SUCCESS)
			mps = 0;
		__atomic_store_n(&mps_state, mps == 1 ? 1 : 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&once);
	return __atomic_load_n(&mps_state, __ATOMIC_RELAXED) == 1;
}

unsigned coloc_share_units(void)
{
	static int said;
	bool mps;

	if (!coloc_cfg.share_auto)
		return __atomic_load_n(&coloc_cfg.share_units, __ATOMIC_RELAXED);
	coloc_sched_mps();
	if (__atomic_load_n(&mps_state, __ATOMIC_ACQUIRE) < 0)
		return 0; /* no context current to ask yet */
	mps = __atomic_load_n(&mps_state, __ATOMIC_RELAXED) == 1;
	if (mps && coloc_cfg.role == COLOC_ROLE_BEST_EFFORT &&
	    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		coloc_log(COLOC_LOG_INFO, "MPS: persistent kernels keep 0.7 of the SMs while a "
			  "latency tenant is busy (COLOC_SHARE=auto; 0 stops them instead)");
	return mps ? SHARE_UNDER_MPS : 0u;
}

void coloc_sched_count(enum coloc_tenant_counter c, uint64_t n)
{
	struct dev_state *d = current_dev();

	if (d && d->self)
		__atomic_fetch_add(&d->self->counters[c], n, __ATOMIC_RELAXED);
}

void coloc_sched_kernel_seen(const char *why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct dev_state *d = current_dev();
	struct coloc_tenant *t = d ? d->self : NULL;
	char text[COLOC_REASON_LEN];
	uint32_t i, n;

	if (!t)
		return;
	__atomic_fetch_add(&t->counters[TC_KERNELS_SEEN], 1, __ATOMIC_RELAXED);
	if (!why)
		return;
	__atomic_fetch_add(&t->counters[TC_KERNELS_ORIGINAL], 1, __ATOMIC_RELAXED);
	/* Cut, it says so. */
	if (snprintf(text, sizeof(text), "%s", why) >= (int)sizeof(text))
		memcpy(text + sizeof(text) - 4, "...", 4);
	/* Only this process writes its slot; its threads take turns. */
	pthread_mutex_lock(&lock);
	n = __atomic_load_n(&t->nreasons, __ATOMIC_RELAXED);
	for (i = 0; i < n && strcmp(t->reasons[i].text, text) != 0; i++)
		;
	if (i == n && n < COLOC_REASONS) {
		memcpy(t->reasons[n].text, text, sizeof(text));
		__atomic_store_n(&t->nreasons, n + 1, __ATOMIC_RELEASE);
	}
	if (i < COLOC_REASONS)
		__atomic_fetch_add(&t->reasons[i].count, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&t->reasons_other, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
}

/* ---- policy fill: which kernels are communication */

#define COMM_SLOTS 4096

/* Open addressing: handle | 1 when it is a communication kernel; a slot is written once. */
static uintptr_t comm_cache[COMM_SLOTS];

bool coloc_sched_name_is_comm(const char *name)
{
	/* NCCL's device kernels, as PyTorch and NCCL's own tests launch them. */
	return name && (strncmp(name, "ncclKernel", 10) == 0 || strncmp(name, "ncclDevKernel", 13) == 0 ||
			strstr(name, "ncclKernel_") || strstr(name, "ncclDevKernel_"));
}

/* Whether `fn` is a communication kernel; the answer is kept per handle. */
static bool is_comm(CUfunction fn)
{
	uintptr_t h = (uintptr_t)fn, v;
	size_t start = (size_t)((h >> 4) * 0x9E3779B97F4A7C15ull >> 52) % COMM_SLOTS, i = start;
	const char *name = NULL;
	bool comm;

	for (size_t n = 0; n < 8; n++, i = (i + 1) % COMM_SLOTS) {
		v = __atomic_load_n(&comm_cache[i], __ATOMIC_ACQUIRE);
		if ((v & ~(uintptr_t)1) == h)
			return v & 1;
		if (!v)
			break;
	}
	/* A CUkernel passed as a CUfunction (the CUDA runtime does) has a name too. */
	if (REAL(cuFuncGetName)(&name, fn) != CUDA_SUCCESS &&
	    REAL(cuKernelGetName)(&name, (CUkernel)fn) != CUDA_SUCCESS)
		name = NULL;
	comm = coloc_sched_name_is_comm(name);
	if (h & 1)
		return comm; /* not a pointer colocc can tag: asked every time */
	for (size_t n = 0, k = start; n < 8; n++, k = (k + 1) % COMM_SLOTS) {
		uintptr_t none = 0;

		if (__atomic_compare_exchange_n(&comm_cache[k], &none, h | comm, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			break;
	}
	return comm;
}

/* Remembers a stream the latency tenant launched on, for COLOC_BUSY=kernel. */
static void note_stream(struct dev_state *d, CUstream stream, enum coloc_stream_flavor flavor)
{
	unsigned n = __atomic_load_n(&d->nstreams, __ATOMIC_ACQUIRE);

	/* The per-thread default stream names the caller's own: not the monitor's to query. */
	if (flavor == STREAM_PTDS && (!stream || stream == CU_STREAM_PER_THREAD)) {
		__atomic_store_n(&d->unnamed, true, __ATOMIC_RELAXED);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (d->streams[i] == stream)
			return;
	pthread_mutex_lock(&sched.lock);
	n = d->nstreams;
	for (unsigned i = 0; i < n; i++)
		if (d->streams[i] == stream)
			goto out;
	if (n == MAX_STREAMS) {
		__atomic_store_n(&d->unnamed, true, __ATOMIC_RELAXED);
	} else {
		d->streams[n] = stream;
		__atomic_store_n(&d->nstreams, n + 1, __ATOMIC_RELEASE);
	}
out:
	pthread_mutex_unlock(&sched.lock);
}

_Static_assert(COLOC_THREAD_LANES == COLOC_LANES, "a thread's lane indexes both");

/* The monitor's side of the idle mark's handshake (see the top of this file). */
static void heavy_fence(void)
{
#ifdef __NR_membarrier
	if (__atomic_load_n(&coloc_latency_hot.light_fence, __ATOMIC_RELAXED)) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
			return;
		/*
		 * Never seen; launches that still skip their fence are covered
		 * only from the next mark on: say so once and stop skipping.
		 */
		__atomic_store_n(&coloc_latency_hot.light_fence, false, __ATOMIC_SEQ_CST);
		coloc_log(COLOC_LOG_WARN, "coordinator: membarrier failed after registration: "
			  "launches fence again");
	}
#endif
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Once, before the monitor starts: lets launches use a compiler barrier only. */
static void light_fence_setup(void)
{
#ifdef __NR_membarrier
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds >= 0 && (cmds & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
		__atomic_store_n(&coloc_latency_hot.light_fence, true, __ATOMIC_SEQ_CST);
		return;
	}
#endif
	coloc_log(COLOC_LOG_INFO, "coordinator: no membarrier (private expedited): every latency "
		  "launch fences");
}

/*
 * COLOC_EDGE_WAIT_US: before the first launch of a busy period, until every
 * best-effort tenant of the GPU whose watcher acknowledges edges has
 * stopped its persistent kernels for `epoch` (coord.h, vacated), at most
 * the configured time.  Without MPS the GPU time-slices between contexts:
 * a latency kernel that starts while a best-effort kernel still runs shares
 * the GPU with it slice by slice, and the best-effort tenant's stop, a
 * command of its own context, lands only in its next slice.  A tenant
 * with no persistent launch out (coord.h, ptb_out) is not waited for: its
 * watcher would stop nothing, and the wait would only be the wake of a
 * thread of another process (on an H100 beside the short GPT trainer,
 * 25-28 us at the median and 223-313 us at p99, at nearly every request).
 */
/* One edge's wait, in the tenant's samples for colocctl. */
static void edge_sample(struct dev_state *d, uint64_t start)
{
	uint64_t us = (now_ns() - start) / 1000u;
	uint64_t i = __atomic_fetch_add(&d->self->edge_count, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&d->self->edge_us[i % COLOC_EDGE_SAMPLES],
			 (uint32_t)(us < UINT32_MAX ? us : UINT32_MAX), __ATOMIC_RELAXED);
}

static void wait_vacated(struct dev_state *d, uint32_t epoch, uint64_t wait_ns)
{
	uint64_t start = now_ns(), deadline = start + wait_ns;
	struct coloc_segment *seg = d->seg;
	bool any = false;

	for (;;) {
		bool pending = false;

		for (int i = 0; i < COLOC_MAX_TENANTS && !pending; i++) {
			struct coloc_tenant *t = &seg->tenants[i];

			if (__atomic_load_n(&t->pid, __ATOMIC_ACQUIRE) &&
			    t->role == COLOC_ROLE_BEST_EFFORT &&
			    __atomic_load_n(&t->edge_acks, __ATOMIC_ACQUIRE) &&
			    __atomic_load_n(&t->ptb_out, __ATOMIC_SEQ_CST) &&
			    (int32_t)(__atomic_load_n(&t->vacated, __ATOMIC_ACQUIRE) - epoch) < 0)
				pending = true;
		}
		if (!pending) {
			/* Timed only when a tenant took part: the others cost no wait. */
			if (any)
				edge_sample(d, start);
			return;
		}
		any = true;
		if (now_ns() > deadline) {
			static uint64_t last_reap_ns;
			uint64_t now = now_ns();

			__atomic_fetch_add(&d->self->counters[TC_EDGE_TIMEOUTS], 1, __ATOMIC_RELAXED);
			edge_sample(d, start);
			/*
			 * A tenant that died does not answer: reaped, it is not
			 * waited for again.  At most once a second, on this
			 * launch path, for one that lives but answers late.
			 */
			if (now - __atomic_load_n(&last_reap_ns, __ATOMIC_RELAXED) > 1000000000u) {
				__atomic_store_n(&last_reap_ns, now, __ATOMIC_RELAXED);
				coloc_coord_reap(seg);
			}
			return;
		}
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

/*
 * COLOC_EDGE_WAIT_US=auto: how long without MPS.  On an H200 beside the long
 * GPT trainer, with 0.5 ms the latency tenant's p99 was +0.5% to +29.8% over
 * alone in four runs (mean +9.2%), against +29.1% to +44.0% in three runs
 * without the wait; 2 ms was no better.  Under MPS the wait made it worse,
 * +27.8% against +19.4% (benchmarks/results/2026-11-27-h200/edge-wait/,
 * edge-default/).
 */
#define EDGE_WAIT_AUTO_NS 500000u

/* The wait at a busy edge: the configured one, or auto's for this device. */
static uint64_t edge_wait_ns(void)
{
	if (!sched.edge_auto)
		return sched.edge_wait_ns;
	return coloc_sched_mps() ? 0 : EDGE_WAIT_AUTO_NS;
}

/*
 * mark_busy's way when the tenant was idle: wakes the monitor and the
 * best-effort watchers; `before` (the launch has not reached the driver
 * yet): then waits for them as COLOC_EDGE_WAIT_US says.
 */
static __attribute__((noinline)) void mark_busy_from_idle(struct dev_state *d, bool before)
{
	uint64_t wait_ns = before ? edge_wait_ns() : 0;
	uint32_t epoch = 0;
	bool edge = false;

	pthread_mutex_lock(&sched.lock);
	if (!__atomic_load_n(&d->self->busy, __ATOMIC_SEQ_CST)) {
		d->self->busy_since_ns = now_ns();
		__atomic_store_n(&d->self->busy, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&d->self->counters[TC_BUSY_PERIODS], 1, __ATOMIC_RELAXED);
		epoch = coloc_coord_signal(d->seg); /* best-effort watchers stop their kernels */
		edge = wait_ns != 0;
		/*
		 * Nothing of this launch is in the driver while it waits: the
		 * monitor must not find the context drained and mark the tenant
		 * idle meanwhile (settle), or the best-effort tenants resume and
		 * the launch opens a second busy period after the call.
		 */
		if (edge)
			__atomic_add_fetch(&d->edge_waits, 1, __ATOMIC_SEQ_CST);
		pthread_cond_signal(&sched.wake);
	}
	pthread_mutex_unlock(&sched.lock);
	if (edge) {
		wait_vacated(d, epoch, wait_ns);
		/* Busy again for a monitor that cleared the flag meanwhile. */
		__atomic_store_n(&d->launched, true, __ATOMIC_SEQ_CST);
		/*
		 * edge_waits stays up until the launch has left the driver's
		 * call (coloc_sched_latency_edge_release): a monitor that cleared
		 * the flag just now would find nothing in flight and mark the
		 * tenant idle, the best-effort tenants would resume in front of
		 * the launch, and the launch open a second busy period (fake
		 * driver: coord.test, pedge).
		 */
		coloc_tls.edge_held = d;
	}
}

void coloc_sched_latency_edge_release(void)
{
	struct dev_state *d = coloc_tls.edge_held;

	if (!d)
		return;
	coloc_tls.edge_held = NULL;
	__atomic_sub_fetch(&d->edge_waits, 1, __ATOMIC_SEQ_CST);
}

/*
 * After a launch reached the driver: a monitor that cleared the flag
 * before this store waited for the launch; one that cleared it after sees
 * it, or has marked the tenant idle and this load sees that (the file's
 * top).  Release: the driver's own writes of the launch come before it.
 */
static inline void mark_busy(struct dev_state *d)
{
	__atomic_store_n(&d->launched, true, __ATOMIC_RELEASE);
	if (__atomic_load_n(&coloc_latency_hot.light_fence, __ATOMIC_RELAXED))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* `idling` first: cleared only after the idle mark is published (settle). */
	if (__atomic_load_n(&d->idling, __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&d->self->busy, __ATOMIC_RELAXED))
		mark_busy_from_idle(d, false);
}

struct coloc_mark *coloc_sched_latency_launch(CUfunction fn, CUstream stream,
					       enum coloc_stream_flavor flavor)
{
	struct dev_state *d = __atomic_load_n(&only_dev, __ATOMIC_ACQUIRE);
	int lane = fn ? coloc_thread_lane() : -1;

	if (fn) /* a graph (no fn) is counted as one by the caller */
		coloc_stat_original_launch(lane);
	if (!d && !(d = current_dev()))
		return NULL;
	if (!d->self)
		return NULL;
	if (coloc_cfg.policy == COLOC_POLICY_FILL && fn && is_comm(fn))
		return NULL; /* the GPU is not busy with computation: best-effort work may fill it */
	if (sched.by_kernel)
		note_stream(d, stream, flavor);
	/* In this thread's lane (coord.h). */
	if (fn && lane >= 0)
		coloc_lane_add(&d->self->launch_lanes[lane]);
	else if (fn)
		__atomic_fetch_add(&d->self->counters[TC_LAUNCH_ORIGINAL], 1, __ATOMIC_RELAXED);
	/* Before the call (busy while in the driver; see the file's top): no fence. */
	__atomic_store_n(&d->launched, true, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&d->self->busy, __ATOMIC_RELAXED))
		mark_busy_from_idle(d, true);
	return (struct coloc_mark *)d;
}

void coloc_sched_latency_from_idle(struct coloc_mark *m)
{
	mark_busy_from_idle((struct dev_state *)m, true);
}

void coloc_sched_latency_from_idle_after(struct coloc_mark *m)
{
	mark_busy_from_idle((struct dev_state *)m, false);
}

/* The same launch, after the driver's call (see mark_busy). */
void coloc_sched_latency_issued(struct coloc_mark *m, bool in_driver)
{
	if (m && in_driver)
		mark_busy((struct dev_state *)m);
	coloc_sched_latency_edge_release();
}

/*
 * COLOC_BUSY=kernel: true when every stream the tenant launched on is done.
 * A stream that went away (destroyed) answers with an error: done.
 */
static bool streams_done(struct dev_state *d)
{
	unsigned n = __atomic_load_n(&d->nstreams, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (REAL(cuStreamQuery)(d->streams[i]) == CUDA_ERROR_NOT_READY)
			return false;
	return true;
}

/* Waits for a busy device's work to drain; marks it idle when nothing new came. */
static void settle(struct dev_state *d)
{
	bool idle, fresh;
	bool poll = sched.by_kernel && !__atomic_load_n(&d->unnamed, __ATOMIC_RELAXED);

	/*
	 * While the application captures a graph, synchronizing its context or
	 * querying its streams would invalidate the capture: the tenant stays
	 * busy until the capture is closed (graph.c).
	 */
	if (!coloc_graph_sync_begin()) {
		sleep_ns(poll ? POLL_PAUSE_NS : SETTLE_PAUSE_NS);
		return;
	}
	/*
	 * A launch that stores the flag from here on is seen below; one whose
	 * second store came before was in the driver already and is waited for.
	 * With COLOC_SETTLE_LOOK_US, while launches keep coming (the flag was
	 * set since the last look): no drain wait yet, only another look after
	 * that pause.  A drain wait spins in the driver beside the launching thread
	 * (cuCtxSynchronize), the suspect for why, on an H100, a loop of empty
	 * launches kept 98.7-99.0% of its throughput with the tenant on two
	 * CPUs and 99.6% on one, where the monitor at idle priority seldom runs
	 * (benchmarks/results/2026-12-06-h100/session18/, call 2); with looks
	 * 20 us apart, 98.8% and 99.2% (LOOK_PAUSE_US).
	 * A busy period longer than the pause ends when it did: the wait starts
	 * later and returns at the same drain.
	 */
	fresh = __atomic_exchange_n(&d->launched, false, __ATOMIC_SEQ_CST);
	if (fresh)
		d->hold_fresh = true;
	if (fresh && sched.look_ns && !poll) {
		coloc_graph_sync_end();
		sleep_ns(sched.look_ns);
		return;
	}
	if (REAL(cuCtxSetCurrent)(d->ctx) != CUDA_SUCCESS) {
		coloc_graph_sync_end();
		sleep_ns(50000); /* the context went away: the tenant is idle once the hold ends */
	} else if (poll) {
		bool done = streams_done(d);

		coloc_graph_sync_end();
		if (!done) {
			sleep_ns(POLL_PAUSE_NS);
			return;
		}
	} else {
		REAL(cuCtxSynchronize)();
		coloc_graph_sync_end();
	}
	/*
	 * COLOC_HOLD_US counts from when the tenant last had nothing in flight:
	 * the first drain found after the last launch the flag showed (a later
	 * round's drain returns at once and must not move it).  A server's next
	 * request comes a few microseconds after the last one's end; a hold
	 * longer than that keeps best-effort work from slipping in between.  The
	 * flag, not a clock read at each launch: the launch stays as cheap as
	 * without a hold.
	 */
	if (sched.hold_ns && d->hold_fresh) {
		d->drained_ns = now_ns();
		d->hold_fresh = false;
	}
	if (sched.hold_ns && now_ns() < d->drained_ns + sched.hold_ns) {
		sleep_ns(d->drained_ns + sched.hold_ns - now_ns());
		return;
	}
	if (__atomic_load_n(&d->edge_waits, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&d->launched, __ATOMIC_ACQUIRE)) {
		/*
		 * Launches keep coming (or one waits at the busy edge for the
		 * best-effort tenants): look again later rather than at once.  A
		 * context synchronization takes the driver's locks the launching
		 * thread needs; back to back they cost every launch microseconds.
		 */
		sleep_ns(poll ? POLL_PAUSE_NS : SETTLE_PAUSE_NS);
		return;
	}
	/*
	 * The handshake runs on a word of this process, so that the idle mark
	 * other processes read is published only once it is decided: a monitor
	 * at idle priority can be kept off the CPU for long between two stores.
	 * A launch that stored the flag after the exchange is seen below, or
	 * it sees `idling` and takes the lock (mark_busy): before us, and we
	 * see its flag; after us, and it sees the idle mark and undoes it.
	 */
	__atomic_store_n(&d->idling, true, __ATOMIC_SEQ_CST);
	heavy_fence();
	pthread_mutex_lock(&sched.lock);
	idle = !__atomic_load_n(&d->edge_waits, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&d->launched, __ATOMIC_ACQUIRE);
	if (idle)
		__atomic_store_n(&d->self->busy, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&d->idling, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sched.lock);
	if (idle)
		coloc_coord_signal(d->seg); /* best-effort watchers resume */
}

/* The monitor at idle priority (see the top of this file); false if refused. */
static bool monitor_idle_priority(void)
{
#ifdef SCHED_IDLE
	struct sched_param p = { .sched_priority = 0 };

	return pthread_setschedparam(pthread_self(), SCHED_IDLE, &p) == 0;
#else
	return false;
#endif
}

/*
 * Whether the busy mark of the tenant in `d` is read by anyone: a
 * best-effort tenant is in the GPU's table (a dead one not reaped yet
 * counts: the tenant is then settled, as without COLOC_MONITOR=auto).
 */
static bool watched(struct dev_state *d)
{
	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		const struct coloc_tenant *t = &d->seg->tenants[i];

		if (__atomic_load_n(&t->pid, __ATOMIC_ACQUIRE) && t->role == COLOC_ROLE_BEST_EFFORT)
			return true;
	}
	return false;
}

/*
 * COLOC_MONITOR=auto: true when busy device `d` is left unsettled this
 * round, no best-effort tenant watching; its mark then says so, and says
 * busy again once one watches.  Compare-exchanges, so that the mark of a
 * tenant leaving (coloc_coord_leave) stays idle; tried only when the mark
 * is to change, so that a parked tenant's launches keep the line of its
 * mark shared.
 */
static bool unwatched(struct dev_state *d)
{
	uint32_t *busy = &d->self->busy;
	bool alone = !sched.watch_alone && !watched(d);
	uint32_t from = alone ? 1 : COLOC_BUSY_UNWATCHED, to = alone ? COLOC_BUSY_UNWATCHED : 1;

	if (__atomic_load_n(busy, __ATOMIC_RELAXED) == from)
		__atomic_compare_exchange_n(busy, &from, to, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED);
	return alone;
}

static void *monitor(void *arg)
{
	(void)arg;
	coloc_enter(); /* its driver calls are colocc's own */
	pthread_setname_np(pthread_self(), "coloc-monitor");
	if (!monitor_idle_priority())
		coloc_log(COLOC_LOG_INFO, "coordinator: the monitor thread runs at normal priority "
			  "(SCHED_IDLE refused): on a tenant with one CPU it competes with launches");
	coloc_graph_thread_relaxed();
	for (;;) {
		struct dev_state *busy[MAX_DEVICES];
		int n = 0;
		bool settled = false;

		pthread_mutex_lock(&sched.lock);
		for (;;) {
			n = 0;
			for (int i = 0; i < MAX_DEVICES; i++)
				if (sched.devs[i] && sched.devs[i]->self &&
				    __atomic_load_n(&sched.devs[i]->self->busy, __ATOMIC_SEQ_CST))
					busy[n++] = sched.devs[i];
			if (n)
				break;
			pthread_cond_wait(&sched.wake, &sched.lock);
		}
		pthread_mutex_unlock(&sched.lock);
		/*
		 * An unwatched device is passed over at once, so that it does not
		 * hold back another's settle; settles pause by themselves.
		 */
		for (int i = 0; i < n; i++)
			if (!unwatched(busy[i])) {
				settle(busy[i]);
				settled = true;
			}
		if (!settled)
			sleep_ns(UNWATCHED_PAUSE_NS);
	}
	return NULL;
}

bool coloc_sched_latency_busy(struct coloc_segment *s, uint64_t *since_ns)
{
	bool busy = false;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		const struct coloc_tenant *t = &s->tenants[i];

		if (__atomic_load_n(&t->pid, __ATOMIC_ACQUIRE) && t->role == COLOC_ROLE_LATENCY &&
		    __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE)) {
			if (!since_ns)
				return true;
			if (!busy || t->busy_since_ns < *since_ns)
				*since_ns = t->busy_since_ns;
			busy = true;
		}
	}
	return busy;
}

static bool latency_busy(struct coloc_segment *s)
{
	return coloc_sched_latency_busy(s, NULL);
}

struct coloc_segment *coloc_sched_segment(struct coloc_tenant **self)
{
	struct dev_state *d = current_dev();

	*self = d ? d->self : NULL;
	return d ? d->seg : NULL;
}

/*
 * Returns once no latency tenant of this GPU has work in flight; at once
 * for a persistent kernel under COLOC_SHARE, which the stop word narrows.
 */
static void sched_gate(bool persistent)
{
	struct dev_state *d = current_dev();
	uint64_t start, checked;

	if (!d || !d->seg || !latency_busy(d->seg))
		return;
	if (persistent && coloc_share_units() && coloc_ptb_narrowable())
		return;
	start = checked = now_ns();
	/*
	 * On the coordinator's epoch, which the latency tenant's idle mark bumps
	 * (settle): polled with a 20 us sleep, which the kernel's timer slack
	 * made about 70 us, every launch let through came that much late.  The
	 * millisecond bounds what a lost wake could cost.
	 */
	for (;;) {
		uint32_t epoch = __atomic_load_n(&d->seg->epoch, __ATOMIC_SEQ_CST);
		uint64_t now;

		if (!latency_busy(d->seg))
			break;
		if ((now = now_ns()) - checked > 100000000u) {
			coloc_coord_reap(d->seg);
			checked = now;
		}
		coloc_coord_wait(d->seg, epoch, 1000000u);
	}
	if (d->self) {
		__atomic_fetch_add(&d->self->counters[TC_GATED_NS], now_ns() - start, __ATOMIC_RELAXED);
		__atomic_fetch_add(&d->self->counters[TC_GATED_LAUNCHES], 1, __ATOMIC_RELAXED);
	}
}

/* ---- the depth of best-effort work in flight */

/* What an item counts for in the depth: its measured time, at most a bound. */
static uint64_t item_cost(uint64_t cost_ns)
{
	return cost_ns && cost_ns < coloc_cfg.turnaround_ns ? cost_ns : coloc_cfg.turnaround_ns;
}

/*
 * Waits until the items this process put on this GPU lately leave room for
 * one that costs `cost_ns` (scheduler.h), the oldest first: an item stays
 * counted until the wait for room finds it done.  Waited for under the
 * GPU's lock: its other threads would wait for the same room; other GPUs'
 * threads go on.
 */
static void depth_wait(struct dev_state *d, uint64_t cost_ns, bool gated)
{
	struct depth_ring *r = &d->depth;
	unsigned depth = gated ? sched.gated_depth : sched.depth;
	uint64_t budget = (uint64_t)depth * coloc_cfg.turnaround_ns, cost = item_cost(cost_ns);

	pthread_mutex_lock(&r->lock);
	for (;;) {
		unsigned n = 0, oldest = MAX_DEPTH;
		uint64_t sum = 0;

		/* From the slot the next item takes (the oldest) to the last one taken. */
		for (unsigned k = 0; k < MAX_DEPTH; k++) {
			unsigned slot = (r->next + k) % MAX_DEPTH;

			if (!r->pending[slot])
				continue;
			if (oldest == MAX_DEPTH)
				oldest = slot;
			n++;
			sum += r->cost[slot];
		}
		/* The next item's slot must be free; it is the oldest when taken. */
		if (!r->pending[r->next % MAX_DEPTH] &&
		    (n < depth || (n < MAX_DEPTH - 1 && sum + cost <= budget)))
			break;
		{
			CUcontext cur = NULL;

			REAL(cuCtxGetCurrent)(&cur);
			if (r->ctx[oldest] == cur)
				REAL(cuEventSynchronize)(r->ev[oldest]);
			r->pending[oldest] = false;
		}
	}
	pthread_mutex_unlock(&r->lock);
}

void coloc_sched_issue_begin(bool persistent, uint64_t cost_ns)
{
	struct dev_state *d = sched.depth ? current_dev() : NULL;

	if (!persistent)
		coloc_ptb_poll();
	if (d)
		depth_wait(d, cost_ns, false);
	sched_gate(persistent);
}

void coloc_sched_issue_begin_gated(uint64_t cost_ns)
{
	struct dev_state *d = sched.depth ? current_dev() : NULL;

	coloc_ptb_poll();
	if (d)
		depth_wait(d, cost_ns, true);
	sched_gate(false);
}

bool coloc_sched_issue_try(uint64_t cost_ns)
{
	struct dev_state *d = current_dev();

	coloc_ptb_poll();
	if (d && sched.depth)
		depth_wait(d, cost_ns, false);
	return !d || !d->seg || !latency_busy(d->seg);
}

void coloc_sched_issue_end(CUstream stream, enum coloc_stream_flavor flavor, uint64_t cost_ns)
{
	struct dev_state *d = sched.depth ? current_dev() : NULL;
	struct depth_ring *r;
	CUcontext cur = NULL;
	unsigned slot;
	CUresult rc;

	if (!d || REAL(cuCtxGetCurrent)(&cur) != CUDA_SUCCESS || !cur)
		return;
	r = &d->depth;
	pthread_mutex_lock(&r->lock);
	slot = r->next++ % MAX_DEPTH;
	/*
	 * Threads that passed depth_wait together each take a slot here: one
	 * may come round to an item still pending.  It is waited for rather
	 * than forgotten, so that no unfinished item drops out of the count.
	 */
	if (r->pending[slot] && r->ctx[slot] == cur)
		REAL(cuEventSynchronize)(r->ev[slot]);
	r->pending[slot] = false;
	if (r->ctx[slot] != cur || !r->ev[slot]) {
		/* Another context of this GPU (rare): its event goes, one of this one's comes. */
		if (r->ev[slot])
			REAL(cuEventDestroy_v2)(r->ev[slot]);
		if (REAL(cuEventCreate)(&r->ev[slot], 2 /* CU_EVENT_DISABLE_TIMING */) != CUDA_SUCCESS)
			r->ev[slot] = NULL;
		r->ctx[slot] = cur;
	}
	rc = !r->ev[slot] ? CUDA_ERROR_INVALID_HANDLE :
	     flavor == STREAM_PTDS ? REAL(cuEventRecord_ptsz)(r->ev[slot], stream) :
				     REAL(cuEventRecord)(r->ev[slot], stream);
	r->pending[slot] = rc == CUDA_SUCCESS;
	r->cost[slot] = item_cost(cost_ns);
	pthread_mutex_unlock(&r->lock);
}

static void before_fork(void)
{
	pthread_mutex_lock(&sched.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&sched.lock);
}

static void after_fork_child(void)
{
	pthread_mutex_unlock(&sched.lock);
	/* The child is a new tenant: it joins again on its first launch. */
	for (int i = 0; i < MAX_DEVICES; i++)
		sched.devs[i] = NULL;
	sched.monitor_started = 0;
	coloc_latency_hot.light_fence = false; /* the child registers its own when its monitor starts */
	cached_ctx = NULL;
	cached_dev = NULL;
	only_dev = NULL;
	coloc_latency_hot.self = NULL;
}

/* A setting in microseconds, 0 to `max`, into *ns when set; a bad one turns colocc off. */
static void setting_us(const char *name, const char *value, unsigned long long max, uint64_t *ns)
{
	char *end;
	unsigned long long us;

	if (!value || !*value)
		return;
	us = strtoull(value, &end, 10);
	if (*end || value[0] == '-' || us > max) {
		coloc_log(COLOC_LOG_ERROR, "%s='%s' is not a whole number of microseconds from 0 to "
			  "%llu; colocc is off", name, value, max);
		coloc_cfg.disabled = true;
	} else {
		*ns = us * 1000u;
	}
}

__attribute__((constructor)) static void sched_init(void)
{
	const char *hold = getenv("COLOC_HOLD_US"), *depth = getenv("COLOC_BE_DEPTH");
	const char *gated = getenv("COLOC_GATED_DEPTH"), *look = getenv("COLOC_SETTLE_LOOK_US");
	const char *busy = getenv("COLOC_BUSY"), *edge = getenv("COLOC_EDGE_WAIT_US");
	const char *policy = getenv("COLOC_POLICY"), *watch = getenv("COLOC_MONITOR");

	if (busy && *busy && strcmp(busy, "drain") != 0) {
		if (strcmp(busy, "kernel") == 0) {
			sched.by_kernel = true;
		} else {
			coloc_log(COLOC_LOG_ERROR, "COLOC_BUSY='%s' is neither 'drain' nor 'kernel'; "
				  "colocc is off", busy);
			coloc_cfg.disabled = true;
		}
	} else if ((!busy || !*busy) && policy && strcmp(policy, "fill") == 0) {
		/*
		 * Policy fill: the context drained would include the NCCL kernels
		 * that follow the compute, and the bubbles they leave would stay
		 * busy; the streams of the compute kernels are what counts (the
		 * communication kernels' are not noted).  Read here, not from
		 * coloc_cfg: constructors of other files run in no set order.
		 */
		sched.by_kernel = true;
		coloc_log(COLOC_LOG_INFO, "policy fill: the latency tenant is busy while the streams "
			  "of its compute kernels have work (COLOC_BUSY=kernel; COLOC_BUSY=drain waits "
			  "for the whole context, communication included)");
	}
	sched.hold_ns = policy && strcmp(policy, "fill") == 0 ? 0 : HOLD_DEFAULT_US * 1000u;
	setting_us("COLOC_HOLD_US", hold, 10000000, &sched.hold_ns);
	sched.edge_auto = !edge || !*edge || strcmp(edge, "auto") == 0;
	if (!sched.edge_auto) {
		char *end;
		unsigned long long us = strtoull(edge, &end, 10);

		if (*end || edge[0] == '-' || us > 100000) {
			coloc_log(COLOC_LOG_ERROR, "COLOC_EDGE_WAIT_US='%s' is not auto or a whole "
				  "number of microseconds from 0 to 100000; colocc is off", edge);
			coloc_cfg.disabled = true;
		}
		sched.edge_wait_ns = us * 1000u;
	}
	if (depth && *depth) {
		unsigned long d = strtoul(depth, NULL, 10);

		sched.depth = d < MAX_DEPTH ? (unsigned)d : MAX_DEPTH - 1;
	}
	setting_us("COLOC_SETTLE_LOOK_US", look, 1000, &sched.look_ns);
	if (watch && *watch && strcmp(watch, "auto") != 0) {
		if (strcmp(watch, "always") == 0) {
			sched.watch_alone = true;
		} else {
			coloc_log(COLOC_LOG_ERROR, "COLOC_MONITOR='%s' is neither 'auto' nor 'always'; "
				  "colocc is off", watch);
			coloc_cfg.disabled = true;
		}
	}
	if (gated && *gated) {
		char *end;
		unsigned long d = strtoul(gated, &end, 10);

		if (*end || gated[0] == '-' || d < 1 || d >= MAX_DEPTH) {
			coloc_log(COLOC_LOG_ERROR, "COLOC_GATED_DEPTH='%s' is not a whole number from 1 "
				  "to %d; colocc is off", gated, MAX_DEPTH - 1);
			coloc_cfg.disabled = true;
		} else {
			sched.gated_depth = (unsigned)d;
		}
	}
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

__attribute__((destructor)) static void sched_fini(void)
{
	for (int i = 0; i < MAX_DEVICES; i++)
		if (sched.devs[i] && sched.devs[i]->self)
			coloc_coord_leave(sched.devs[i]->seg, sched.devs[i]->self);
}
