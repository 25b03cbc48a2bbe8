/*
 * Stopping and resuming persistent (ptb) kernels of a best-effort tenant.
 *
 * Each context gets a stop record that every persistent launch of the
 * context reads (the ptb pass's __coloc_stop: a word in device memory and a
 * copy of it in mapped host memory, docs/passes.md), a ring of control
 * blocks, two streams of the highest priority for writing the word (both
 * carry it; a read back moves off one that is held up), and a
 * stream for helpers.  A launch carries park = 1: when its workers leave at
 * a stop, worker 0 stays on the application's stream, paused, and goes on
 * by itself when the stop is cleared, so that nothing after the kernel on
 * that stream starts early and the kernel ends even if no helper can run
 * (docs/runtime-design.md).  With COLOC_PARK=stream (park_links) the
 * launch instead goes with park 0 and is followed on its stream by waits
 * on a gate and relaunches, and nothing of it stays on the GPU while it is
 * stopped.
 *
 * Nothing here waits for the GPU to do colocc's own work.  Streams of one
 * context can share a hardware queue (under MPS a client has few), and
 * then the stop stream's and the helper stream's work can sit behind the
 * stopped kernel's successors on the application's stream: the stopped
 * kernel waits for the clear, the clear for the kernel (found on the H100:
 * the GPT trainer hung under MPS).  So a stop is cleared through the host
 * copy, which the CPU writes directly; the word follows through the stop
 * stream whenever it gets there; the turnaround is read back with queries
 * and a deadline, never a synchronization.
 *
 * A watcher thread per GPU sleeps on the coordinator's epoch (futex).  When
 * a latency tenant turns busy it sets the stop (host copy, then word) of
 * each context with persistent kernels in flight and measures the
 * turnaround: the time from the latency tenant's busy edge until every
 * taken virtual block is done or given up (done + redo tail - redo head ==
 * next in the control block: all workers have left or paused; blocks are
 * given up only by variants made with COLOC_RESTART=1).  When no latency
 * tenant is busy any more it clears the stop (host copy, then word) and
 * launches a helper for each kernel still in flight, to get back its
 * parallelism: the same variant
 * with the same control block and parameters and park = 0, on the helper
 * stream after an event recorded where the kernel was put on its stream
 * (so a helper never runs before the work the kernel follows).  A helper
 * of a kernel with nothing left exits at once.
 *
 * With COLOC_SHARE, the busy edge narrows instead (narrow_all): the word
 * keeps that share of every kernel's workers going, and the idle edge gives
 * back the ones that left as helpers.
 *
 * The lock of a context is held from before a launch's control block is
 * taken until its record is in the table, and by the watcher while it
 * resumes: a launch that starts after a stop is therefore in the table when
 * the resume comes.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "scheduler.h"

#define CONTROL_BYTES (4u << 20) /* control blocks of one context, used as a ring */
#define CHUNK_BYTES 4096u        /* ... cleared this much at a time, for launches on one stream */
#define CHUNKS (CONTROL_BYTES / CHUNK_BYTES)
#define OPEN_CHUNKS 8            /* streams with a chunk open at once, per context */
#define RECORDS 256              /* persistent launches a context tracks */
#define TURN_POLL_LIMIT_NS 200000000u
/* A stop logged at COLOC_LOG=info: past the latency tenant's default edge wait (sched.c). */
#define SLOW_STOP_NS 500000u
#define STOP_RECORD_BYTES 16    /* { u32 word; u32 pad; u64 host copy }, docs/passes.md */
#define HEADER_BYTES 16          /* { next, done, redo head, redo tail }, docs/passes.md */
#define STOP_STREAMS 2
#define READBACK_WAIT_NS 500000u /* before a read back tries the other stop stream */
#define GATE 1                   /* host word: streams parked on the stream wait for it to be 0 */
#define GATE_WAIT_NS 1000000u    /* longest the gate waits for the word's clear to land */
#define HOST_BYTES (64 + HEADER_BYTES * RECORDS) /* the host copy, then a header per record */
#define REDO_BYTES (4ull * COLOC_REDO_ENTRIES * RECORDS) /* a redo ring per record */
#define HOLD_SLOW_NS 3000000000ull /* a held launch not done this long is logged */

struct record {
	bool live;              /* launched; not yet seen complete */
	uint64_t off, size;     /* its control block in the ring */
	CUevent pre, done;      /* recorded before and after the launch on its stream */
	CUfunction fn;
	unsigned workers, shmem;
	struct coloc_dim3 block;
	uint64_t total;         /* its virtual blocks */
	void *packed;           /* its parameters, park = 0 */
	size_t packed_size;
	uint64_t helpers;       /* helpers launched for it */
	uint32_t tail_seen;     /* its redo ring's tail at the last stop's end */
	uint64_t seq;           /* launch order in its context */
	struct coloc_turn_ref turns; /* where its stops are counted (profile.c) */
	unsigned links;         /* relaunches behind waits on its stream (0: paused worker) */
	bool held;              /* its launching thread relaunches it (COLOC_PARK=host) */
	bool holding;           /* ... and is still at it: the record is not free */
	bool relaunching;       /* ... and is about to relaunch it: `done` is the last launch's */
	unsigned stops;         /* stops that found it started and not done */
	bool ring_left;         /* given up on with blocks perhaps in its redo ring: the
				   next launch on the record clears the ring first */
};

/*
 * COLOC_RESUME's save areas (passes/resume.c): a few per context, each lent
 * to one launch at a time (its record's), reused once that record is
 * complete and grown when a launch needs more.  Bounded, so that memory
 * does not grow with the records; a launch that finds none free gives its
 * blocks up to run again.
 */
#define SAVE_AREAS 8
struct save_area {
	CUdeviceptr ptr;
	size_t bytes;
	unsigned owner; /* the record that holds it, + 1; 0: none */
	/*
	 * Bytes at its start known to be 0 once its owner's launch is done: a
	 * saved block frees its busy word after its restore, before it counts
	 * done, so a launch that completes leaves the busy words it used 0;
	 * slot data may follow them.  0 after an allocation and for a launch
	 * given up on (coloc_ptb_abandon).
	 */
	size_t clean;
};

/* Part of the control block ring cleared on one stream, handed out to launches on it. */
struct chunk {
	bool open;
	uint64_t next, end;
	CUstream stream;
	enum coloc_stream_flavor flavor;
	pthread_t thread;   /* the per-thread default stream is each thread's own */
	uint64_t used;      /* when it last served, for replacing the oldest */
};

struct ctx_state {
	struct ctx_state *next;
	pthread_mutex_t lock;   /* everything below */
	CUcontext ctx;
	struct coloc_segment *seg;
	struct coloc_tenant *self;
	CUdeviceptr ring, stop;
	CUdeviceptr redo;       /* the records' redo rings, all zero while no block is given up;
				   0 without COLOC_RESTART */
	uint32_t *host;         /* mapped host memory: [0] the stop's host copy, [GATE] the
				   gate; from byte 64, control block headers read back; NULL:
				   none */
	CUdeviceptr host_dev;   /* the device's address of host[0] */
	unsigned links;         /* parked on the stream: relaunches per launch (park_links) */
	bool hold;              /* launching threads hold their stopped kernels (COLOC_PARK=host) */
	/*
	 * Stops go through STOP_STREAMS streams at once, read backs through one
	 * of them: a stream can share a hardware queue with a kernel of the
	 * context (a helper, say), and then its work waits for that kernel's end.
	 */
	CUstream stop_stream[STOP_STREAMS];
	bool readback_busy[STOP_STREAMS]; /* a read back there did not land in time */
	unsigned readback_on;   /* the stream read backs go through now */
	unsigned readback_moves; /* times they left a busy stream, for the log */
	CUevent word_landed[STOP_STREAMS]; /* after a stop's word, for the slow stop's log; may be NULL */
	bool word_recorded[STOP_STREAMS];  /* ... recorded after this stop's word */
	unsigned values;        /* host words holding values for stop_set (from word 4) */
	bool memop_word;        /* the stop word is written by cuStreamWriteValue32 (stop_word) */
	bool shared_queue;      /* so the stop stream waits behind this context's work */
	uint64_t ring_next;
	/*
	 * Open chunks of the ring, one per stream that launched persistent
	 * kernels lately: each was cleared by one memset on its stream, whose
	 * next persistent launches take their control blocks from it in order
	 * with no memset of their own (a memset per launch costs about a short
	 * kernel's GPU time).
	 */
	struct chunk chunk[OPEN_CHUNKS];
	uint64_t chunk_clock;
	CUevent cleared[CHUNKS]; /* recorded after each chunk's memset; NULL: never cleared */
	CUstream helper_stream;
	CUevent helpers_done;   /* recorded after the last helpers */
	bool helpers_pending;
	uint32_t stopped;       /* the stop word is set: 1, or a narrowing (a futex word) */
	/*
	 * A launch parked on the stream that was stopped more often than it has
	 * relaunches (its record's index + 1, and its seq; 0: none): it runs to
	 * its end, unstopped, beside the latency tenant (through_live).
	 */
	unsigned through;
	uint64_t through_seq;
	bool narrowed;          /* ... to COLOC_SHARE of the workers (above 1) */
	struct record rec[RECORDS];
	unsigned rec_next;
	uint64_t seq;
	struct save_area save[SAVE_AREAS];
	CUdeviceptr retired[SAVE_AREAS]; /* areas replaced by larger ones, freed unlocked */
	unsigned nretired;
};

static struct {
	pthread_mutex_t lock; /* the list and the watchers */
	struct ctx_state *list;
	struct coloc_segment *watched[32];
	unsigned nwatched;
	bool one_queue;       /* CUDA_DEVICE_MAX_CONNECTIONS=1: no persistent forms at all */
	int out;              /* the contexts' ptb_out together (out_add) */
	uint64_t polled_ns;   /* coloc_ptb_poll's last look */
} pre = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *watcher(void *arg);

/* Starts the watcher of a GPU's segment once; false when there is none. */
static bool watch(struct coloc_segment *seg)
{
	pthread_t th;
	pthread_attr_t a;
	bool ok = true;

	for (unsigned i = 0; i < pre.nwatched; i++)
		if (pre.watched[i] == seg)
			return true;
	if (pre.nwatched == sizeof(pre.watched) / sizeof(pre.watched[0]))
		return false;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, watcher, seg) == 0)
		pre.watched[pre.nwatched++] = seg;
	else
		ok = false;
	pthread_attr_destroy(&a);
	return ok;
}

/*
 * The stop record, clear, with its host copy when mapped host memory can be
 * had.  Without one a stop is cleared only when the word's write gets
 * through, which can wait for the stopped kernel (the comment at the top).
 */
static int stop_record_init(struct ctx_state *s)
{
	uint64_t record[2] = { 0, 0 };
	CUdeviceptr mapped = 0;
	void *host = NULL;

	if (REAL(cuMemHostAlloc)(&host, HOST_BYTES, 0x1 | 0x2 /* PORTABLE | DEVICEMAP */) ==
		    CUDA_SUCCESS &&
	    REAL(cuMemHostGetDevicePointer_v2)(&mapped, host, 0) == CUDA_SUCCESS) {
		memset(host, 0, HOST_BYTES);
		s->host = host;
		s->host_dev = mapped;
		record[1] = mapped;
	} else {
		if (host)
			REAL(cuMemFreeHost)(host);
		coloc_log(COLOC_LOG_WARN, "preemption: no mapped host memory for the stop's host "
			  "copy; a stop is cleared only when the GPU takes the write");
	}
	return REAL(cuMemcpyHtoD_v2)(s->stop, record, sizeof(record)) == CUDA_SUCCESS ? 0 : -1;
}

/*
 * How this context's stopped persistent kernels hold their streams
 * (COLOC_PARK).  A paused worker keeps the kernel on the GPU, and without
 * MPS the GPU gives it time slices beside the latency tenant for as long as
 * that stays busy: each of a probe's 40 us kernels took 1.3 ms beside one
 * paused block on the H100, 35 us beside a stream waiting in
 * cuStreamWaitValue32 (benchmarks/results/2026-11-26-h100/park/).  Parked
 * on the stream, a launch goes with park 0 and is followed on its stream
 * by `links` waits for the stop's clear, each followed by a relaunch that
 * takes what is left (the last with park 1, for a kernel stopped more
 * often than that, and let through: through_live).  The waits watch a gate
 * in mapped host memory, which the CPU opens with a store: no GPU command
 * has to get through.  In the probe a lazy kernel load in another thread
 * (call 3), and a module load followed by an allocation and a free there
 * (call 5; which of them is not known), waited for the held stream while
 * holding the others back: a gate opened by a kernel or a copy never
 * opened.  Not the default: in the suite's long-trainer cell with
 * COLOC_RESTART=1, launches used up 64 relaunches a dozen times in 12 s,
 * and relaunches cost short kernels (calls 4-7 there).
 * Returns the number of relaunches, 0 for a paused worker.
 */
static unsigned park_links(struct ctx_state *s)
{
	CUresult rc;

	if (coloc_cfg.park != COLOC_PARK_STREAM || !s->seg)
		return 0;
	if (!s->host) {
		coloc_log(COLOC_LOG_WARN, "preemption: no mapped host memory to wait on; a stopped "
			  "persistent kernel keeps a paused worker on the GPU");
		return 0;
	}
	if (coloc_share_units()) {
		coloc_log(COLOC_LOG_INFO, "preemption: COLOC_SHARE narrows persistent kernels; they "
			  "keep a paused worker rather than wait on their streams");
		return 0;
	}
	/* Asked once: a wait that is met at once, on a stream of colocc's own. */
	rc = REAL(cuStreamWaitValue32_v2)(s->helper_stream, s->host_dev + 4 * GATE, 0,
					  1 /* CU_STREAM_WAIT_VALUE_EQ */);
	if (rc != CUDA_SUCCESS) {
		coloc_log(COLOC_LOG_WARN, "preemption: the driver cannot make a stream wait on a "
			  "host word (error %d); a stopped persistent kernel keeps a paused worker "
			  "on the GPU", rc);
		return 0;
	}
	coloc_log(COLOC_LOG_INFO, "preemption: stopped persistent kernels wait on their streams, "
		  "not on the GPU (%u relaunches per launch, and one per 250 us it takes)",
		  coloc_cfg.park_links);
	return coloc_cfg.park_links;
}

static struct ctx_state *state_new(CUcontext ctx)
{
	struct ctx_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ctx = ctx;
	s->memop_word = true; /* until the driver refuses one */
	pthread_mutex_init(&s->lock, NULL);
	s->seg = coloc_sched_segment(&s->self);
	/* Priorities out of the device's range are clamped to its highest. */
	if (REAL(cuMemAlloc_v2)(&s->ring, CONTROL_BYTES) != CUDA_SUCCESS ||
	    REAL(cuMemAlloc_v2)(&s->stop, STOP_RECORD_BYTES) != CUDA_SUCCESS ||
	    /* The redo rings only where blocks are given up (COLOC_RESTART=1). */
	    (coloc_cfg.restart && (REAL(cuMemAlloc_v2)(&s->redo, REDO_BYTES) != CUDA_SUCCESS ||
				   REAL(cuMemsetD32_v2)(s->redo, 0, REDO_BYTES / 4) != CUDA_SUCCESS)) ||
	    REAL(cuStreamCreateWithPriority)(&s->stop_stream[0], 1 /* NON_BLOCKING */, -1000) !=
		    CUDA_SUCCESS ||
	    REAL(cuStreamCreateWithPriority)(&s->stop_stream[1], 1, -1000) != CUDA_SUCCESS ||
	    REAL(cuStreamCreateWithPriority)(&s->helper_stream, 1, 0) != CUDA_SUCCESS ||
	    REAL(cuEventCreate)(&s->helpers_done, 2 /* DISABLE_TIMING */) != CUDA_SUCCESS ||
	    stop_record_init(s) < 0) {
		coloc_log(COLOC_LOG_WARN, "preemption: no stop record, streams or control blocks in "
			  "this context; its kernels take other forms than persistent");
		/*
		 * Kept, so that the failure is not retried at every launch; without
		 * its control blocks no persistent launch starts here (a stop
		 * record that is missing or not cleared would fault or stop it).
		 */
		if (s->ring)
			REAL(cuMemFree_v2)(s->ring);
		s->ring = 0;
		s->seg = NULL;
		/*
		 * The redo rings may hold any value now, so they are never handed
		 * out: without control blocks nothing would use them anyway.
		 */
		if (s->redo)
			REAL(cuMemFree_v2)(s->redo);
		s->redo = 0;
	} else if ((coloc_cfg.park == COLOC_PARK_HOST ||
		    (coloc_cfg.park == COLOC_PARK_AUTO && !coloc_sched_mps())) &&
		   !coloc_share_units()) {
		/* COLOC_PARK=auto: without MPS (docs/runtime-design.md, "Holding the launching thread"). */
		s->hold = true;
		coloc_log(COLOC_LOG_INFO, "preemption: a stopped persistent kernel is held by the "
			  "thread that launched it, which relaunches it (COLOC_PARK=%s)",
			  coloc_cfg.park == COLOC_PARK_HOST ? "host" : "auto, without MPS");
	} else {
		s->links = park_links(s);
	}
	/* Only the slow stop's log reads them: without them it says less. */
	for (unsigned k = 0; s->ring && k < STOP_STREAMS; k++)
		if (REAL(cuEventCreate)(&s->word_landed[k], 2 /* DISABLE_TIMING */) != CUDA_SUCCESS)
			s->word_landed[k] = NULL;
	return s;
}

static struct ctx_state *state_for_current(void)
{
	struct ctx_state *s;
	CUcontext ctx = NULL;

	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx)
		return NULL;
	pthread_mutex_lock(&pre.lock);
	for (s = pre.list; s && s->ctx != ctx; s = s->next)
		;
	if (!s && (s = state_new(ctx))) {
		/* Asked here, with a context current, before the watcher needs it. */
		coloc_share_units();
		s->next = pre.list;
		__atomic_store_n(&pre.list, s, __ATOMIC_RELEASE); /* read without the lock too */
		if (s->seg && !watch(s->seg)) {
			coloc_log(COLOC_LOG_WARN, "preemption: no watcher thread; persistent kernels "
				  "run to their end");
			s->seg = NULL;
		} else if (s->seg && s->self) {
			/*
			 * Before any persistent launch of the context: a latency tenant's
			 * busy edge from now on waits for the watcher (sched.c), which
			 * handles it even if it has not begun its first round yet.
			 */
			if (!__atomic_load_n(&s->self->edge_acks, __ATOMIC_ACQUIRE)) {
				/* Not for a later context: an edge being handled is not done yet. */
				__atomic_store_n(&s->self->vacated,
						 __atomic_load_n(&s->seg->epoch, __ATOMIC_SEQ_CST),
						 __ATOMIC_RELEASE);
				__atomic_store_n(&s->self->edge_acks, 1, __ATOMIC_RELEASE);
			}
		}
	}
	pthread_mutex_unlock(&pre.lock);
	return s;
}

/*
 * The tenant's ptb_out (coord.h): what a latency tenant's busy edge looks
 * at before it waits for this tenant's watcher (sched.c, wait_vacated).
 * Changed under the context's lock; also counted process-wide, so that
 * coloc_ptb_poll costs one load while nothing is out.
 */
static void out_add(struct ctx_state *s, int n)
{
	if (s->self)
		__atomic_add_fetch(&s->self->ptb_out, (uint32_t)n, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&pre.out, n, __ATOMIC_RELAXED);
}

/* Every change of a record's `live` comes here: a live record counts in ptb_out. */
static void live_set(struct ctx_state *s, struct record *r, bool live)
{
	if (r->live == live)
		return;
	r->live = live;
	out_add(s, live ? 1 : -1);
}

/* True when the record's kernel is known complete; its slot can be reused. */
static bool record_complete(struct ctx_state *s, struct record *r)
{
	if (r->holding)
		return false;
	if (r->live && REAL(cuEventQuery)(r->done) == CUDA_SUCCESS) {
		live_set(s, r, false);
		free(r->packed);
		r->packed = NULL;
	}
	return !r->live;
}

static bool overlaps(const struct record *r, uint64_t off, uint64_t size)
{
	return r->live && off < r->off + r->size && r->off < off + size;
}

/* True when `c` was opened for launches on `stream` by this thread's view of it. */
static bool chunk_of(const struct chunk *c, CUstream stream, enum coloc_stream_flavor flavor)
{
	if (!c->open || c->stream != stream || c->flavor != flavor)
		return false;
	if (stream == CU_STREAM_PER_THREAD || (flavor == STREAM_PTDS && !stream))
		return pthread_equal(c->thread, pthread_self());
	return true;
}
/*
 * True when nothing can still touch [off, off + size) of the ring: no
 * live record overlaps it, and every chunk memset that cleared part of it
 * has run (a chunk given up unused has no record to wait for).
 */
static bool region_free(struct ctx_state *s, uint64_t off, uint64_t size)
{
	for (unsigned n = 0; n < RECORDS; n++)
		if (overlaps(&s->rec[n], off, size) && !record_complete(s, &s->rec[n]))
			return false;
	for (uint64_t c = off / CHUNK_BYTES; c * CHUNK_BYTES < off + size; c++)
		if (s->cleared[c] && REAL(cuEventQuery)(s->cleared[c]) != CUDA_SUCCESS)
			return false;
	return true;
}

/* `words` 32-bit words at `ptr` zeroed on `stream`, in its flavor's ABI. */
static CUresult zero_async(CUdeviceptr ptr, unsigned words, CUstream stream,
			   enum coloc_stream_flavor flavor)
{
	return flavor == STREAM_PTDS ? REAL(cuMemsetD32Async_ptsz)(ptr, 0, words, stream) :
				       REAL(cuMemsetD32Async)(ptr, 0, words, stream);
}

static CUresult event_record(CUevent e, CUstream stream, enum coloc_stream_flavor flavor)
{
	return flavor == STREAM_PTDS ? REAL(cuEventRecord_ptsz)(e, stream) :
				       REAL(cuEventRecord)(e, stream);
}

/*
 * A control block of `size` bytes, zeroed on `stream` before anything
 * launched after this: from the open chunk when it was cleared on the
 * same stream, else from a new chunk cleared now (blocks larger than a
 * quarter chunk get a region of their own, whose header is cleared).
 * Returns its offset in the ring, or -1 with *why.
 */
static int64_t control_take(struct ctx_state *s, uint64_t size, CUstream stream,
			    enum coloc_stream_flavor flavor, const char **why)
{
	bool chunked = size <= CHUNK_BYTES / 4;
	uint64_t len = chunked ? CHUNK_BYTES : size, off;
	struct chunk *c = NULL, *spare = &s->chunk[0];
	CUevent *cleared = NULL;

	if (chunked) {
		/* This stream's chunk; else a closed one or the one unused longest is replaced. */
		for (unsigned i = 0; i < OPEN_CHUNKS && !c; i++) {
			struct chunk *k = &s->chunk[i];

			if (chunk_of(k, stream, flavor))
				c = k;
			else if (spare->open && (!k->open || k->used < spare->used))
				spare = k;
		}
		if (c && c->next + size <= c->end) {
			off = c->next;
			c->next += size;
			c->used = ++s->chunk_clock;
			return (int64_t)off;
		}
		if (!c)
			c = spare;
	}
	off = chunked ? (s->ring_next + CHUNK_BYTES - 1) / CHUNK_BYTES * CHUNK_BYTES : s->ring_next;
	if (off + len > CONTROL_BYTES)
		off = 0;
	if (s->helpers_pending && REAL(cuEventQuery)(s->helpers_done) == CUDA_SUCCESS)
		s->helpers_pending = false;
	/*
	 * A control block still in use, or one that helpers may still touch
	 * (a helper's worker takes a last id after the kernel is done), is not
	 * handed out again: the launch runs in another form instead.
	 */
	if ((s->helpers_pending && off < s->ring_next) || !region_free(s, off, len)) {
		*why = "every control block is in use";
		return -1;
	}
	/* What is left of an open chunk there is not handed out any more. */
	for (unsigned i = 0; i < OPEN_CHUNKS; i++)
		if (s->chunk[i].open && off < s->chunk[i].end && s->chunk[i].next < off + len)
			s->chunk[i].open = false;
	if (chunked) {
		c->open = false;
		cleared = &s->cleared[off / CHUNK_BYTES];
		if (!*cleared && REAL(cuEventCreate)(cleared, 2 /* DISABLE_TIMING */) != CUDA_SUCCESS)
			*cleared = NULL;
	}
	if ((chunked && !*cleared) ||
	    zero_async(s->ring + off, chunked ? CHUNK_BYTES / 4 : HEADER_BYTES / 4, stream, flavor) !=
		    CUDA_SUCCESS ||
	    (chunked && event_record(*cleared, stream, flavor) != CUDA_SUCCESS)) {
		*why = "its control block could not be cleared";
		return -1;
	}
	s->ring_next = off + len;
	if (chunked)
		*c = (struct chunk){ .open = true, .next = off + size, .end = off + len,
				     .stream = stream, .flavor = flavor, .thread = pthread_self(),
				     .used = ++s->chunk_clock };
	return (int64_t)off;
}

/*
 * A save area of `bytes` for record r's launch, its first `busy` bytes
 * zeroed on the launch's stream, or 0.  Under the context's lock, before
 * the launch's `pre` event (helpers wait for that): cuMemAlloc does not
 * wait for the device; an area it replaces is freed by coloc_ptb_end,
 * outside the lock, since cuMemFree may.
 */
static CUdeviceptr save_take(struct ctx_state *s, const struct record *r, size_t bytes, size_t busy,
			     CUstream stream, enum coloc_stream_flavor flavor)
{
	struct save_area *a = NULL;
	CUresult rc;

	for (unsigned i = 0; i < SAVE_AREAS; i++) {
		struct save_area *c = &s->save[i];

		if (c->owner && !record_complete(s, &s->rec[c->owner - 1]))
			continue;
		if (!a || (c->bytes >= bytes && a->bytes < bytes) ||
		    (c->bytes >= bytes && c->bytes < a->bytes))
			a = c;
	}
	if (!a)
		return 0;
	if (a->bytes < bytes) {
		if (a->ptr && s->nretired == SAVE_AREAS)
			return 0;
		if (a->ptr)
			s->retired[s->nretired++] = a->ptr;
		a->ptr = 0;
		a->bytes = 0;
		a->owner = 0;
		if (REAL(cuMemAlloc_v2)(&a->ptr, bytes) != CUDA_SUCCESS) {
			a->ptr = 0;
			return 0;
		}
		a->bytes = bytes;
		a->clean = 0;
	}
	/*
	 * The busy words, cleared only where they are not known to be 0: the
	 * layout moves with the launch's workers, and slot data may lie where
	 * a launch with more workers keeps busy words.  A clear before every
	 * launch is one more operation per launch, which a trainer of many
	 * short kernels pays often (benchmarks/results/2026-11-27-h200/session12/,
	 * calls 6 and 7: too noisy to say how much).
	 */
	if (busy > a->clean) {
		rc = zero_async(a->ptr, (unsigned)(busy / 4), stream, flavor);
		if (rc != CUDA_SUCCESS)
			return 0;
	}
	a->clean = busy;
	a->owner = (unsigned)(r - s->rec) + 1;
	return a->ptr;
}

int coloc_ptb_begin(struct coloc_ptb_slot *slot, CUstream stream, enum coloc_stream_flavor flavor,
		    size_t control_bytes, const char **why)
{
	struct ctx_state *s = state_for_current();
	uint64_t size = (control_bytes + 15) & ~(uint64_t)15;
	struct record *r = NULL;
	int64_t off;

	if (!s || !s->ring) {
		*why = "no device memory for its control block";
		return -1;
	}
	if (size > CONTROL_BYTES / 4) {
		*why = "its control block would be larger than colocc keeps";
		return -1;
	}
	pthread_mutex_lock(&s->lock);
	for (unsigned n = 0; n < RECORDS && !r; n++) {
		struct record *c = &s->rec[(s->rec_next + n) % RECORDS];

		if (record_complete(s, c) && (c->pre || (REAL(cuEventCreate)(&c->pre, 2) == CUDA_SUCCESS &&
						      REAL(cuEventCreate)(&c->done, 2) == CUDA_SUCCESS)))
			r = c;
	}
	if (!r) {
		pthread_mutex_unlock(&s->lock);
		*why = "every control block is in use";
		return -1;
	}
	off = control_take(s, size, stream, flavor, why);
	/*
	 * The last launch on the record was given up on with blocks left: its
	 * ring may hold entries no kernel took back, where this launch's
	 * blocks would look for theirs (a leader could wait in __coloc_push
	 * for a slot that never frees).  Cleared before the event its helpers
	 * wait for, as the control block is.
	 */
	if (off >= 0 && r->ring_left && s->redo) {
		if (zero_async(s->redo + (uint64_t)(r - s->rec) * 4u * COLOC_REDO_ENTRIES,
			       COLOC_REDO_ENTRIES, stream, flavor) != CUDA_SUCCESS) {
			*why = "the redo ring left by a launch given up on could not be cleared";
			off = -1;
		} else {
			r->ring_left = false;
			coloc_log(COLOC_LOG_INFO, "preemption: control record %u: cleared the redo "
				  "ring a launch given up on left", (unsigned)(r - s->rec));
		}
	}
	slot->save = off >= 0 && slot->save_bytes
			     ? save_take(s, r, slot->save_bytes, slot->save_busy, stream, flavor)
			     : 0;
	if (off >= 0 && event_record(r->pre, stream, flavor) != CUDA_SUCCESS) {
		*why = "its control block could not be cleared";
		off = -1;
	}
	if (off < 0) {
		pthread_mutex_unlock(&s->lock);
		return -1;
	}
	r->off = (uint64_t)off;
	r->size = size;
	slot->state = s;
	slot->record = (int)(r - s->rec);
	slot->control = s->ring + (uint64_t)off;
	slot->stop = s->stop;
	/*
	 * A record's ring is empty again when its kernel completes (a block
	 * given up is taken back before it is done), so the next launch on
	 * the record finds it zeroed.
	 */
	slot->redo = s->redo ? s->redo + (uint64_t)(r - s->rec) * 4u * COLOC_REDO_ENTRIES : 0;
	slot->hold = s->seg && s->hold;
	slot->park = s->seg && !slot->hold ? 1 : 0; /* without a watcher, nobody would resume it */
	slot->links = s->seg ? s->links : 0;
	out_add(s, 1); /* until coloc_ptb_end, which hands it to the record if live */
	return 0;
}

/*
 * What a held launch that runs for seconds looks like while it runs: its
 * header, and how many of its redo ring's entries and save area's busy
 * words are set, read on a stream of their own beside it (a copy engine
 * reads device memory while a kernel runs).
 */
static void hold_slow_state(const struct coloc_ptb_slot *slot)
{
	/* The helper stream: a held launch has no helper. */
	const struct ctx_state *s = slot->state;
	CUstream st = s->helper_stream;
	uint32_t hdr[4] = { 0 }, *ring = calloc(COLOC_REDO_ENTRIES, 4), *busy = NULL;
	unsigned entries = 0, busy_set = 0;

	if (slot->save && slot->save_busy)
		busy = calloc(slot->save_busy, 1);
	if (!ring ||
	    REAL(cuMemcpyDtoHAsync_v2)(hdr, slot->control, sizeof(hdr), st) != CUDA_SUCCESS ||
	    (slot->redo && REAL(cuMemcpyDtoHAsync_v2)(ring, slot->redo, 4 * COLOC_REDO_ENTRIES,
						      st) != CUDA_SUCCESS) ||
	    (busy && REAL(cuMemcpyDtoHAsync_v2)(busy, slot->save, slot->save_busy, st) !=
			     CUDA_SUCCESS) ||
	    REAL(cuStreamSynchronize)(st) != CUDA_SUCCESS)
		goto out;
	for (unsigned i = 0; i < COLOC_REDO_ENTRIES; i++)
		entries += ring[i] != 0;
	for (size_t i = 0; busy && i < slot->save_busy / 4; i++)
		busy_set += busy[i] != 0;
	coloc_log(COLOC_LOG_WARN, "preemption: ... while it runs: next %u, done %u, redo ring "
		  "%u..%u, %u ring entries set, %u busy words set", hdr[0], hdr[1], hdr[2], hdr[3],
		  entries, busy_set);
out:
	free(ring);
	free(busy);
}

CUresult coloc_ptb_hold_done(const struct coloc_ptb_slot *slot, uint32_t hdr[4])
{
	struct ctx_state *s = slot->state;
	CUevent done = s->rec[slot->record].done;
	uint64_t since = now_ns();
	CUresult rc;

	/*
	 * A launch that takes seconds is worth a word in the log (at most one
	 * a launch): with the header it started from, it says what ran long.
	 */
	while ((rc = REAL(cuEventQuery)(done)) == CUDA_ERROR_NOT_READY &&
	       now_ns() - since < HOLD_SLOW_NS)
		sched_yield(); /* as the driver's default wait spins */
	if (rc == CUDA_ERROR_NOT_READY) {
		coloc_log(COLOC_LOG_WARN, "preemption: a held persistent launch is not done after "
			  "%.0f s (record %u, %llu blocks; header before it: next %u, done %u, redo "
			  "ring %u..%u)", HOLD_SLOW_NS / 1e9, slot->record,
			  (unsigned long long)s->rec[slot->record].total, hdr[0], hdr[1], hdr[2], hdr[3]);
		hold_slow_state(slot);
		rc = REAL(cuEventSynchronize)(done);
	}

	/* After the launch's end: the header as it left it (the legacy stream waits for it). */
	if (rc == CUDA_SUCCESS)
		rc = REAL(cuMemcpyDtoH_v2)(hdr, slot->control, 4 * sizeof(uint32_t));
	if (rc != CUDA_SUCCESS)
		return rc;
	/*
	 * Blocks left: it was stopped (or, with COLOC_FRESH, a chunk ended).  A
	 * relaunch before the watcher clears a stop would only leave at once:
	 * wait for the clear.
	 */
	if (hdr[1] < s->rec[slot->record].total) {
		uint32_t stopped;

		/*
		 * Woken by resume_all: polled with a 20 us sleep, which the
		 * kernel's timer slack made about 70 us, every resume came that
		 * much late (2,536 stops in one 8 s cell).  The timeout only
		 * bounds what a lost wake could cost.
		 */
		while ((stopped = __atomic_load_n(&s->stopped, __ATOMIC_ACQUIRE)))
			syscall(SYS_futex, &s->stopped, FUTEX_WAIT_PRIVATE, stopped,
				&(struct timespec){ 0, 1000000 }, NULL, 0);
	}
	return CUDA_SUCCESS;
}

void coloc_ptb_hold_relaunch(const struct coloc_ptb_slot *slot)
{
	struct ctx_state *s = slot->state;

	/* The relaunch follows, outside the lock, its event after it (stop_all, landings). */
	pthread_mutex_lock(&s->lock);
	s->rec[slot->record].relaunching = true;
	pthread_mutex_unlock(&s->lock);
}

void coloc_ptb_hold_again(const struct coloc_ptb_slot *slot, CUstream stream,
			  enum coloc_stream_flavor flavor)
{
	struct ctx_state *s = slot->state;
	struct record *r = &s->rec[slot->record];

	pthread_mutex_lock(&s->lock);
	if (event_record(r->done, stream, flavor) == CUDA_SUCCESS)
		live_set(s, r, true);
	r->relaunching = false;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Without the lock: the caller's record is not free while it calls (between
 * coloc_ptb_begin and coloc_ptb_end it holds the lock; a held launch's
 * record is `holding` until coloc_ptb_hold_end), and ring_left is read only
 * by coloc_ptb_begin, under the lock, of a free record.
 */
void coloc_ptb_abandon(const struct coloc_ptb_slot *slot)
{
	struct ctx_state *s = slot->state;

	s->rec[slot->record].ring_left = true;
	/* Its save area's busy words may be claimed still: cleared at the area's next use. */
	for (unsigned i = 0; i < SAVE_AREAS; i++)
		if (s->save[i].owner == (unsigned)slot->record + 1)
			s->save[i].clean = 0;
}

void coloc_ptb_hold_end(const struct coloc_ptb_slot *slot)
{
	struct ctx_state *s = slot->state;

	pthread_mutex_lock(&s->lock);
	s->rec[slot->record].holding = false;
	s->rec[slot->record].relaunching = false;
	pthread_mutex_unlock(&s->lock);
}

CUresult coloc_ptb_wait(const struct coloc_ptb_slot *slot, CUstream stream,
			enum coloc_stream_flavor flavor)
{
	const struct ctx_state *s = slot->state;

	CUdeviceptr gate = s->host_dev + 4 * GATE;

	return flavor == STREAM_PTDS ? REAL(cuStreamWaitValue32_v2_ptsz)(stream, gate, 0, 1 /* EQ */) :
				       REAL(cuStreamWaitValue32_v2)(stream, gate, 0, 1);
}

bool coloc_ptb_holds(void)
{
	struct ctx_state *s;

	if (coloc_cfg.park != COLOC_PARK_HOST && coloc_cfg.park != COLOC_PARK_AUTO)
		return false;
	s = state_for_current();
	return s && s->seg && s->ring && s->hold;
}

bool coloc_ptb_parks_on_stream(void)
{
	struct ctx_state *s;

	/* Asked at every best-effort launch under time-slicing: no lock by default. */
	if (coloc_cfg.park == COLOC_PARK_WORKER)
		return false;
	s = state_for_current();
	return s && s->seg && s->ring && (s->links || s->hold);
}

void coloc_ptb_end(struct coloc_ptb_slot *slot, bool launched, CUstream stream,
		   enum coloc_stream_flavor flavor, CUfunction fn, unsigned workers,
		   struct coloc_dim3 block, unsigned shmem, uint64_t total, const void *packed,
		   size_t packed_size, size_t park_offset, size_t base_offset)
{
	struct ctx_state *s = slot->state;
	struct record *r = &s->rec[slot->record];

	if (launched && (slot->hold || slot->park)) {
		bool tracked;

		/* Held: no helper, the launching thread relaunches it (coloc_ptb_hold_done). */
		r->packed = slot->hold ? NULL : malloc(packed_size);
		if (r->packed)
			memcpy(r->packed, packed, packed_size);
		if (r->packed && park_offset + 4 <= packed_size)
			memset((char *)r->packed + park_offset, 0, 4);
		/* Helpers run one after another on one stream: one bank of slots serves them all. */
		if (r->packed && base_offset + 4 <= packed_size) {
			uint32_t base = workers;

			memcpy((char *)r->packed + base_offset, &base, 4);
		}
		r->packed_size = r->packed ? packed_size : 0;
		r->fn = fn;
		r->workers = workers;
		r->block = block;
		r->shmem = shmem;
		r->total = total;
		r->helpers = 0;
		r->tail_seen = 0;
		r->seq = ++s->seq;
		r->turns = slot->turns;
		r->links = slot->links;
		r->stops = 0;
		r->held = r->holding = slot->hold;
		tracked = (slot->hold || r->packed) && event_record(r->done, stream, flavor) == CUDA_SUCCESS;
		if (tracked)
			live_set(s, r, true);
		else
			/* Cannot happen short of a broken context; the kernel may then stay parked. */
			coloc_log(COLOC_LOG_ERROR, "preemption: a persistent launch is not tracked; "
				  "if it is stopped, its stream waits for nothing");
		s->rec_next = (unsigned)(slot->record + 1) % RECORDS;
	}
	out_add(s, -1);
	{
		CUdeviceptr retired[SAVE_AREAS];
		unsigned n = s->nretired;

		memcpy(retired, s->retired, n * sizeof(retired[0]));
		s->nretired = 0;
		pthread_mutex_unlock(&s->lock);
		/* Each was lent to a launch whose record is complete. */
		for (unsigned i = 0; i < n; i++)
			REAL(cuMemFree_v2)(retired[i]);
	}
}

/*
 * A record is otherwise looked at only by the context's next persistent
 * launch or stop: without this, ptb_out would stay up after a tenant's
 * last persistent kernel completed, and every busy edge of the latency
 * tenant would wait for its watcher (a wake of a thread of another
 * process; on an H100 beside the short GPT trainer, which ran 17 of its
 * 731,408 launches persistent, 25-28 us at the median, 223-313 us at p99).
 */
#define POLL_NS 100000u

void coloc_ptb_poll(void)
{
	uint64_t now;
	CUcontext ctx = NULL;

	if (!__atomic_load_n(&pre.out, __ATOMIC_RELAXED))
		return;
	now = now_ns();
	if (now - __atomic_load_n(&pre.polled_ns, __ATOMIC_RELAXED) < POLL_NS)
		return;
	__atomic_store_n(&pre.polled_ns, now, __ATOMIC_RELAXED);
	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx)
		return;
	/* States are never freed and only pushed at the head: the walk is safe. */
	for (struct ctx_state *s = __atomic_load_n(&pre.list, __ATOMIC_ACQUIRE); s; s = s->next) {
		if (s->ctx != ctx || pthread_mutex_trylock(&s->lock))
			continue;
		for (unsigned n = 0; n < RECORDS; n++)
			record_complete(s, &s->rec[n]);
		pthread_mutex_unlock(&s->lock);
	}
}

bool coloc_ptb_narrowable(void)
{
	/* Made here at the context's first persistent launch, as coloc_ptb_begin would. */
	struct ctx_state *s = state_for_current();

	return s && s->seg && s->ring && !__atomic_load_n(&s->shared_queue, __ATOMIC_RELAXED);
}

bool coloc_ptb_usable(void)
{
	CUcontext ctx = NULL;
	bool usable = true;

	if (pre.one_queue) {
		static int said;

		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			coloc_log(COLOC_LOG_WARN, "preemption: CUDA_DEVICE_MAX_CONNECTIONS=1 puts every "
				  "stream of a context in one hardware queue with colocc's: no kernel "
				  "runs persistent");
		return false;
	}
	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx)
		return true;
	/* At every launch: no lock (states are never freed and only pushed at the head). */
	for (struct ctx_state *s = __atomic_load_n(&pre.list, __ATOMIC_ACQUIRE); s; s = s->next)
		if (s->ctx == ctx)
			usable = !__atomic_load_n(&s->shared_queue, __ATOMIC_RELAXED);
	return usable;
}

/* ---- the watcher */

/*
 * Sets (1) or clears (0) the stop: the host copy at once, the word through
 * the stop streams.  The word is copied from a pinned word of the host
 * buffer that holds `value` for good (words 4 to 15 of its first 64 bytes,
 * one per value written: 0, 1 and a narrowing): a copy engine does it,
 * where a memset may run as a kernel, which needs room on an SM that a
 * persistent kernel's workers can fill.  (Rare slow stops were blamed on
 * the memset first; they came from stop streams sharing a hardware queue
 * with the kernel: config.c, more_connections.)
 */
#define VALUE_FIRST 4
#define VALUE_END 16
static CUresult stop_word(struct ctx_state *s, uint32_t value, CUstream stream)
{
	/*
	 * Written by the GPU's front end as the stream comes to it, with no
	 * copy engine: copies of the word from host memory landed up to 2.5 ms
	 * (a median 0.93 ms in slow stops) after they were queued, beside a
	 * running kernel of the same context without MPS (H200,
	 * benchmarks/results/2026-11-27-h200/stop-word/), and the kernel ran
	 * on until they did.
	 */
	if (s->memop_word && !coloc_cfg.stop_copy) {
		CUresult rc = REAL(cuStreamWriteValue32_v2)(stream, s->stop, value, 0);

		if (rc == CUDA_SUCCESS)
			return rc;
		s->memop_word = false;
		coloc_log(COLOC_LOG_WARN, "preemption: the driver cannot write the stop word by a "
			  "stream memory operation (error %d): it is copied from host memory, which "
			  "can land a millisecond or more late", rc);
	}
	if (s->host)
		for (unsigned i = VALUE_FIRST; i < VALUE_END; i++) {
			/* A word once given a value keeps it: a copy from it may still be queued. */
			if (i == s->values + VALUE_FIRST) {
				s->host[i] = value;
				s->values++;
			}
			if (s->host[i] == value)
				return REAL(cuMemcpyHtoDAsync_v2)(s->stop, &s->host[i], 4, stream);
		}
	return REAL(cuMemsetD32Async)(s->stop, value, 1, stream);
}

/*
 * Opens the gate that streams parked on the stream wait for (host word
 * GATE), once the word's clear has landed: a relaunch behind the gate that
 * still read the stop would leave at once, one relaunch lost per stop.
 * The clear is behind nothing on a stop stream but an earlier read back;
 * one that does not land within GATE_WAIT_NS (a stream held up) does not
 * keep the gate shut: the relaunches then may leave, and the last one's
 * paused worker reads the host copy.
 */
static void gate_open(struct ctx_state *s)
{
	uint64_t deadline = now_ns() + GATE_WAIT_NS;
	bool landed = false;

	while (!landed) {
		for (unsigned k = 0; k < STOP_STREAMS && !landed; k++)
			landed = REAL(cuStreamQuery)(s->stop_stream[k]) == CUDA_SUCCESS;
		if (landed || now_ns() > deadline)
			break;
		nanosleep(&(struct timespec){ 0, 10000 }, NULL);
	}
	if (!landed)
		coloc_log(COLOC_LOG_DEBUG, "preemption: the stop word's clear did not land in %u us; "
			  "the streams parked on the gate go on", GATE_WAIT_NS / 1000u);
	__atomic_store_n(&s->host[GATE], 0, __ATOMIC_SEQ_CST);
}

/* On every stop stream: the first to get through sets the word. */
static CUresult stop_set(struct ctx_state *s, uint32_t value)
{
	CUresult rc = CUDA_ERROR_NOT_READY;

	if (s->host && value)
		__atomic_store_n(&s->host[GATE], 1, __ATOMIC_SEQ_CST);
	if (s->host)
		__atomic_store_n(&s->host[0], value, __ATOMIC_SEQ_CST);
	for (unsigned k = 0; k < STOP_STREAMS; k++) {
		s->word_recorded[k] = false;
		if (stop_word(s, value, s->stop_stream[k]) == CUDA_SUCCESS) {
			rc = CUDA_SUCCESS;
			s->word_recorded[k] = value == 1 && s->word_landed[k] &&
					      REAL(cuEventRecord)(s->word_landed[k],
								  s->stop_stream[k]) == CUDA_SUCCESS;
		}
	}
	return rc;
}

/* A stop's time for each launch that was running at it, for the profiler. */
struct stop_times {
	uint64_t ns[RECORDS];      /* 0: not timed */
	struct coloc_turn_ref ref[RECORDS];
	bool running[RECORDS];     /* seen with blocks taken and not done at the first read */
	bool was_live[RECORDS];    /* in flight when the stop began, for the slow stop's log */
	uint32_t first[RECORDS][2]; /* taken and done at the first read, for the same */
	unsigned reads;
	/* When the word's write and each launch's end were first seen done (0: not): landings. */
	uint64_t word_ns, gone_ns[RECORDS];
	bool ended;                /* every launch in flight at the stop has ended */
};

/*
 * While a read back is awaited: notes when the stop word's write and the
 * kernels in flight at the stop are first seen done, for the slow stop's
 * log (which then tells a word that landed late from a read back that did),
 * and whether every one of those kernels has ended, which ends the stop
 * (COLOC_STOP_BY_END).
 */
static void landings(struct ctx_state *s, struct stop_times *t)
{
	bool any = false;

	if (!t)
		return;
	if (!t->word_ns)
		for (unsigned k = 0; k < STOP_STREAMS; k++)
			if (s->word_recorded[k] &&
			    REAL(cuEventQuery)(s->word_landed[k]) == CUDA_SUCCESS) {
				t->word_ns = now_ns();
				break;
			}
	t->ended = true;
	for (unsigned n = 0; n < RECORDS; n++) {
		if (!t->was_live[n])
			continue;
		any = true;
		/*
		 * A held launch about to be relaunched: its event is the last
		 * launch's, done, while the relaunch may be on the GPU already
		 * (its event is recorded under the lock this stop holds).
		 */
		if (s->rec[n].relaunching)
			t->ended = false;
		else if (!t->gone_ns[n] && REAL(cuEventQuery)(s->rec[n].done) == CUDA_SUCCESS)
			t->gone_ns[n] = now_ns();
		else if (!t->gone_ns[n])
			t->ended = false;
	}
	/* Nothing to go by (a record still held but no longer live): the read back says. */
	t->ended &= any && coloc_cfg.stop_by_end;
}

/*
 * Reads the control block headers of the live records into the host
 * buffer (never waiting past `deadline`); false when they did not land.
 * A read back that does not land within READBACK_WAIT_NS is left queued
 * and asked again on the other stop stream; a stream with one queued gets
 * no more until it has taken it.  (One landing late may overwrite a later
 * one's numbers with older ones: the counters only grow, so a stop looks
 * unfinished a little longer, never finished too soon.)  Also false, the
 * read back left queued, once landings() finds every kernel of the stop
 * ended.
 */
static bool headers_read(struct ctx_state *s, uint64_t deadline, struct stop_times *t)
{
	if (!s->host)
		return false;
	for (;;) {
		for (unsigned i = 0; i < STOP_STREAMS; i++) {
			unsigned k = (s->readback_on + i) % STOP_STREAMS;
			uint64_t wait;
			CUresult rc;

			if (s->readback_busy[k]) {
				if (REAL(cuStreamQuery)(s->stop_stream[k]) != CUDA_SUCCESS) {
					/* Both streams may be held up: the kernels' end still ends the stop. */
					landings(s, t);
					if (t && t->ended)
						return false;
					continue;
				}
				s->readback_busy[k] = false;
			}
			if (k != s->readback_on)
				s->readback_moves++;
			s->readback_on = k;
			/* The word too (host word 2), as the GPU has it, for the slow stop's log. */
			if (REAL(cuMemcpyDtoHAsync_v2)(&s->host[2], s->stop, 4, s->stop_stream[k]) !=
			    CUDA_SUCCESS)
				return false;
			for (unsigned n = 0; n < RECORDS; n++)
				if (s->rec[n].live &&
				    REAL(cuMemcpyDtoHAsync_v2)(&s->host[16 + 4 * n],
							       s->ring + s->rec[n].off, HEADER_BYTES,
							       s->stop_stream[k]) != CUDA_SUCCESS)
					return false;
			wait = now_ns() + READBACK_WAIT_NS;
			if (wait > deadline)
				wait = deadline;
			while ((rc = REAL(cuStreamQuery)(s->stop_stream[k])) == CUDA_ERROR_NOT_READY &&
			       now_ns() < wait) {
				landings(s, t);
				/*
				 * Every kernel of the stop has ended: nothing of it is
				 * on the GPU, whatever the read back would say.  It is
				 * left queued (a copy engine can be slow to come to a
				 * context's copies while the GPU serves another).
				 */
				if (t && t->ended) {
					s->readback_busy[k] = true;
					return false;
				}
			}
			if (rc != CUDA_ERROR_NOT_READY)
				return rc == CUDA_SUCCESS;
			s->readback_busy[k] = true;
		}
		if (now_ns() >= deadline)
			return false;
	}
}

static bool readbacks_stuck(const struct ctx_state *s)
{
	for (unsigned k = 0; k < STOP_STREAMS; k++)
		if (!s->readback_busy[k])
			return false;
	return true;
}

/*
 * A stop that took longer than SLOW_STOP_NS, at info: where its time went (the
 * watcher waking, the context's lock, the stop word) and what was in
 * flight, with each kernel's virtual blocks taken and done of its total.
 */
static void log_slow_stop(struct ctx_state *s, uint64_t edge_ns, uint64_t woke_ns,
			  uint64_t locked_ns, uint64_t word_ns, uint64_t end_ns, bool read,
			  const struct stop_times *t)
{
	char what[768];
	size_t n = 0;

	what[0] = '\0';
	for (unsigned i = 0; i < RECORDS && n < sizeof(what) - 64; i++) {
		struct record *r = &s->rec[i];
		const uint32_t *hdr = &s->host[16 + 4 * i];
		const char *name = NULL;

		/* Also those that finished during the stop: the slow one may be among them. */
		if (!r->live && !(t && t->was_live[i]))
			continue;
		if (REAL(cuFuncGetName)(&name, r->fn) != CUDA_SUCCESS || !name)
			name = "?";
		n += (size_t)snprintf(what + n, sizeof(what) - n,
				      " %.40s %u/%u/%u/%llu/%llu (first read %u/%u)%s",
				      name, hdr[0], hdr[1], hdr[3] - hdr[2],
				      (unsigned long long)r->total, (unsigned long long)r->helpers,
				      t ? t->first[i][0] : 0, t ? t->first[i][1] : 0,
				      record_complete(s, r) ? " complete" : "");
		if (t && t->gone_ns[i] && n < sizeof(what) - 32)
			n += (size_t)snprintf(what + n, sizeof(what) - n, " (ended by %.3f ms)",
					      (t->gone_ns[i] - edge_ns) / 1e6);
	}
	char landed[48] = "";

	if (t && t->word_ns)
		snprintf(landed, sizeof(landed), ", landed by %.3f ms", (t->word_ns - edge_ns) / 1e6);
	coloc_log(COLOC_LOG_INFO, "preemption: slow stop: %.3f ms after the latency tenant's edge "
		  "(watcher awake at %.3f, lock at %.3f, stop word at %.3f ms%s%s; read back moved "
		  "to the other stop stream %u times; the word read back %#x); in flight "
		  "(taken/done/given up/blocks/helpers so far):%s",
		  (end_ns - edge_ns) / 1e6, (woke_ns - edge_ns) / 1e6, (locked_ns - edge_ns) / 1e6,
		  (word_ns - edge_ns) / 1e6, landed,
		  read ? "" : t && t->ended ? ", its kernels ended before the read back" :
					     ", not read back",
		  s->readback_moves, s->host[2], what[0] ? what : " nothing");
}

/*
 * Takes the context's lock and writes `value` to its stop word (a stop or a
 * narrowing); *locked: when the lock was taken.  False, with the lock
 * released, when nothing is to be done: the context is gone, its streams
 * share a hardware queue with the stop stream, or the word was not written.
 */
static bool word_begin(struct ctx_state *s, uint32_t value, uint64_t *locked)
{
	pthread_mutex_lock(&s->lock);
	*locked = now_ns();
	if (REAL(cuCtxSetCurrent)(s->ctx) != CUDA_SUCCESS) {
		/* The context is gone (the process is ending): nothing of it runs any more. */
		s->seg = NULL;
		pthread_mutex_unlock(&s->lock);
		coloc_log(COLOC_LOG_DEBUG, "preemption: context gone; its watcher stops");
		return false;
	}
	if (s->shared_queue) {
		/*
		 * Its stops land late and its helpers cannot run: a persistent
		 * kernel still in flight runs to its end rather than on one worker.
		 */
		pthread_mutex_unlock(&s->lock);
		return false;
	}
	/*
	 * Stopped before the word is written: a held launch's thread that finds
	 * its kernel ended (coloc_ptb_hold_done) must not see the flag still
	 * clear, or it relaunches into the stop and its launch leaves at once
	 * (seen in CI's coord.test, the watcher descheduled between the two).
	 */
	__atomic_store_n(&s->stopped, 1, __ATOMIC_RELEASE);
	if (stop_set(s, value) != CUDA_SUCCESS) { /* a stop needs the word set too */
		__atomic_store_n(&s->stopped, 0, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->lock);
		coloc_log(COLOC_LOG_WARN, "preemption: the stop word could not be written");
		return false;
	}
	return true;
}

/*
 * Notes when each running launch left: a launch the first read back found
 * with blocks taken and neither done nor given up is timed from the stop
 * word to the read back that found it gone (or complete); one already off
 * the GPU at the first read, but started and not finished, counts that
 * read's time.  Launches not started yet, or finished, say nothing.
 */
static void stop_time(struct stop_times *t, unsigned n, const struct record *r, uint64_t taken,
		      uint64_t done, bool left, uint64_t since_word)
{
	if (!r->turns.entry || t->ns[n])
		return;
	if (t->reads == 1) {
		t->running[n] = left;
		if (!left && (!taken || done >= r->total))
			return;
	} else if (!t->running[n] || left) {
		return;
	}
	if (!left) {
		t->ns[n] = since_word ? since_word : 1;
		t->ref[n] = r->turns;
	}
}

static void resume_all(struct ctx_state *s);

/*
 * Whether the launch let through (stop_all) is still running; the
 * context's lock is taken.  Under time-slicing, the paused worker of a
 * launch out of relaunches keeps the context holding time slices beside the
 * latency tenant for as long as the stop lasts: on the H100 that made every
 * request of a graphed ResNet-50 3.5 times slower, it never went idle, and
 * the stop never ended (benchmarks/results/2026-11-26-h100/park/).  So such
 * a launch runs to its end, as the driver alone would run it, and the
 * context is stopped again at the first busy edge after.
 */
static bool through_live(struct ctx_state *s)
{
	bool live;

	if (!__atomic_load_n(&s->through, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&s->lock);
	live = s->through && s->rec[s->through - 1].seq == s->through_seq &&
	       !record_complete(s, &s->rec[s->through - 1]);
	if (!live)
		s->through = 0;
	pthread_mutex_unlock(&s->lock);
	return live;
}

static void stop_all(struct ctx_state *s, uint64_t edge_ns)
{
	uint64_t woke = now_ns(), deadline = woke + TURN_POLL_LIMIT_NS, locked, word, end;
	uint64_t given_up = 0;
	unsigned moves;
	bool any = false, left, read = true, ended;
	struct stop_times *times = calloc(1, sizeof(*times));

	if (!word_begin(s, 1, &locked)) {
		free(times);
		return;
	}
	s->readback_moves = 0;
	for (unsigned n = 0; times && n < RECORDS; n++)
		times->was_live[n] = s->rec[n].live;
	word = now_ns();
	/*
	 * The turnaround: until every taken block of every kernel in flight is
	 * done.  A kernel that completed meanwhile has left too.
	 */
	do {
		left = false;
		for (unsigned n = 0; n < RECORDS; n++)
			any |= !record_complete(s, &s->rec[n]);
		if (!any || !(read = headers_read(s, deadline, times)))
			break;
		if (times)
			times->reads++;
		for (unsigned n = 0; n < RECORDS; n++) {
			const uint32_t *hdr = &s->host[16 + 4 * n];
			struct record *r = &s->rec[n];
			uint64_t taken = hdr[0] < r->total ? hdr[0] : r->total;
			bool running;

			if (times && times->reads == 1) {
				times->first[n][0] = hdr[0];
				times->first[n][1] = hdr[1];
			}
			/*
			 * A launch parked on the stream stopped more often than it
			 * has relaunches: its last one's paused worker stays on the GPU
			 * while this stop lasts (park_links).
			 */
			if (times && times->reads == 1 && r->live && r->links && hdr[0] &&
			    (uint64_t)hdr[1] + (uint32_t)(hdr[3] - hdr[2]) < r->total &&
			    ++r->stops > r->links && !s->through) {
				s->through = n + 1;
				s->through_seq = r->seq;
			}

			/*
			 * Leaders that found the grid done still add to next; blocks
			 * given up (redo tail - head) are off the GPU as well.
			 */
			running = r->live && (uint64_t)hdr[1] + (uint32_t)(hdr[3] - hdr[2]) < taken &&
				  !record_complete(s, r);
			left |= running;
			if (times && (r->live || times->running[n]))
				stop_time(times, n, r, taken, hdr[1], running, now_ns() - word);
		}
	} while (left && now_ns() < deadline);
	/* Still running at the poll limit: at least that long. */
	for (unsigned n = 0; times && read && left && n < RECORDS; n++)
		if (times->running[n] && !times->ns[n] && s->rec[n].turns.entry) {
			times->ns[n] = now_ns() - word;
			times->ref[n] = s->rec[n].turns;
		}
	/* Blocks given up since the last stop: each one moved its ring's tail. */
	for (unsigned n = 0; read && any && n < RECORDS; n++) {
		struct record *r = &s->rec[n];
		uint32_t tail = s->host[16 + 4 * n + 3];

		if (r->live && tail != r->tail_seen) {
			given_up += (uint32_t)(tail - r->tail_seen);
			r->tail_seen = tail;
		}
	}
	/*
	 * The stop stream's read back waited past the deadline behind a
	 * stopped kernel: the context's streams share a hardware queue with it.
	 * Helpers would wait there too, and the stop itself lands late; the
	 * context's later launches take other forms (coloc_ptb_usable).
	 */
	ended = !read && times && times->ended; /* landings: only with COLOC_STOP_BY_END */
	/* Ended: the stop's time for each launch is when it was seen ending. */
	for (unsigned n = 0; ended && n < RECORDS; n++)
		if (times->gone_ns[n] > word && s->rec[n].turns.entry) {
			times->ns[n] = times->gone_ns[n] - word;
			times->ref[n] = s->rec[n].turns;
		}
	if (any && !read && !ended && readbacks_stuck(s) && !s->shared_queue) {
		__atomic_store_n(&s->shared_queue, true, __ATOMIC_RELAXED);
		coloc_log(COLOC_LOG_WARN, "preemption: colocc's stop stream waits behind this "
			  "context's own work (its streams share a hardware queue, as under MPS or with "
			  "CUDA_DEVICE_MAX_CONNECTIONS=1): its kernels no longer run persistent; a "
			  "stopped one goes on with one worker");
	}
	/* The end of the stop, before logging it: the log's time is not the stop's. */
	end = now_ns();
	moves = s->readback_moves;
	if (any && s->host && end > edge_ns + SLOW_STOP_NS && coloc_log_on(COLOC_LOG_INFO))
		log_slow_stop(s, edge_ns, woke, locked, word, end, read, times);
	pthread_mutex_unlock(&s->lock);
	/* After the context's lock: the profiler's is taken by launches that hold none. */
	for (unsigned n = 0; times && (read || ended) && n < RECORDS; n++)
		if (times->ns[n])
			coloc_profile_stopped(times->ref[n], times->ns[n]);
	free(times);
	if (any && s->self) {
		uint64_t us = end > edge_ns ? (end - edge_ns) / 1000u : 0;
		uint64_t i;

		__atomic_fetch_add(&s->self->counters[TC_PREEMPTIONS], 1, __ATOMIC_RELAXED);
		if (given_up)
			__atomic_fetch_add(&s->self->counters[TC_GIVEN_UP], given_up, __ATOMIC_RELAXED);
		if (!read && !ended) {
			coloc_log(COLOC_LOG_DEBUG, "preemption: stopped; turnaround not measured (the "
				  "stop stream is held up)");
			return;
		}
		i = __atomic_fetch_add(&s->self->turn_count, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&s->self->turn_us[i % COLOC_TURN_SAMPLES],
				 (uint32_t)(us < UINT32_MAX ? us : UINT32_MAX), __ATOMIC_RELAXED);
		coloc_log(COLOC_LOG_DEBUG, "preemption: stopped after %llu us%s; read back moved to "
			  "the other stop stream %u times", (unsigned long long)us,
			  left ? " (still running at the poll limit)" : "", moves);
	}
	if (through_live(s)) {
		coloc_stat_add(STAT_PARK_EXHAUSTED, 1);
		coloc_log(COLOC_LOG_INFO, "preemption: a persistent launch was stopped more often "
			  "than its %u relaunches: it runs to its end beside the latency tenant",
			  s->rec[s->through - 1].links);
		resume_all(s);
	}
}

/*
 * COLOC_SHARE: instead of stopping them, narrows the context's persistent
 * kernels to their share of workers (the word 1 + share, docs/passes.md).
 * The others finish their block and leave, giving their SMs to the latency
 * tenant (beside it under MPS); the kernels go on, and so do new launches
 * (sched.c lets them through), narrowed from their start.  Nothing waits
 * for the leaving workers: there is no turnaround to measure.
 */
static void narrow_all(struct ctx_state *s)
{
	bool any = false;

	uint64_t locked;

	if (!word_begin(s, 1 + coloc_share_units(), &locked))
		return;
	s->narrowed = true;
	for (unsigned n = 0; n < RECORDS; n++)
		any |= !record_complete(s, &s->rec[n]);
	pthread_mutex_unlock(&s->lock);
	if (any && s->self)
		__atomic_fetch_add(&s->self->counters[TC_NARROWINGS], 1, __ATOMIC_RELAXED);
}

/* The workers of `workers` a narrowing keeps: those w with w * 1024 < share * workers. */
static unsigned narrow_kept(unsigned workers)
{
	return (unsigned)(((uint64_t)coloc_share_units() * workers + 1023) / 1024);
}

static void resume_all(struct ctx_state *s)
{
	struct record *live[RECORDS];
	unsigned helpers = 0, n = 0;
	uint64_t t0 = now_ns(), locked;
	bool narrowed;

	pthread_mutex_lock(&s->lock);
	locked = now_ns();
	if (REAL(cuCtxSetCurrent)(s->ctx) != CUDA_SUCCESS ||
	    (stop_set(s, 0) != CUDA_SUCCESS && !s->host)) {
		pthread_mutex_unlock(&s->lock);
		coloc_log(COLOC_LOG_ERROR, "preemption: the stop could not be cleared; "
			  "stopped kernels stay paused");
		return;
	}
	/* After a narrowing, helpers give back the workers that left; after a stop, all of them. */
	narrowed = s->narrowed;
	s->narrowed = false;
	__atomic_store_n(&s->stopped, 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->stopped, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
	/*
	 * Helpers only for kernels that have started (the event before them
	 * on their stream is complete): one that has not will see the cleared
	 * stop word when it starts, or, stopped again first, get its helper at
	 * a later resume.  A helper waiting on the helper stream for a kernel
	 * that has not started would hold back every helper queued behind it,
	 * including the one that kernel's start waits for (found on the GPU:
	 * be_burn hung under time-slicing).  Helpers go in launch order.
	 */
	for (unsigned i = 0; i < RECORDS; i++) {
		unsigned j = n++;

		if (s->rec[i].held || record_complete(s, &s->rec[i]) ||
		    REAL(cuEventQuery)(s->rec[i].pre) != CUDA_SUCCESS) {
			n--;
			continue;
		}
		for (; j > 0 && live[j - 1]->seq > s->rec[i].seq; j--)
			live[j] = live[j - 1];
		live[j] = &s->rec[i];
	}
	for (unsigned i = 0; i < n; i++) {
		struct record *r = live[i];
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, r->packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
				  &r->packed_size, CU_LAUNCH_PARAM_END };
		unsigned workers = narrowed ? r->workers - narrow_kept(r->workers) : r->workers;

		if (!workers)
			continue;
		if (REAL(cuStreamWaitEvent)(s->helper_stream, r->pre, 0) != CUDA_SUCCESS ||
		    REAL(cuLaunchKernel)(r->fn, workers, 1, 1, r->block.x, r->block.y, r->block.z,
					 r->shmem, s->helper_stream, NULL, extra) != CUDA_SUCCESS) {
			coloc_log(COLOC_LOG_ERROR, "preemption: a helper could not be launched; "
				  "a stopped kernel stays parked");
			continue;
		}
		r->helpers++;
		helpers++;
	}
	if (helpers && REAL(cuEventRecord)(s->helpers_done, s->helper_stream) == CUDA_SUCCESS)
		s->helpers_pending = true;
	if (s->links)
		gate_open(s);
	pthread_mutex_unlock(&s->lock);
	/* A resume that holds the watcher up delays the next stop: said, with its parts. */
	if (now_ns() > t0 + 500000u)
		coloc_log(COLOC_LOG_INFO, "preemption: slow resume: %.3f ms (lock at %.3f ms), %u "
			  "helpers for %u kernels started", (now_ns() - t0) / 1e6, (locked - t0) / 1e6,
			  helpers, n);
	if (helpers && s->self)
		__atomic_fetch_add(&s->self->counters[TC_HELPERS], helpers, __ATOMIC_RELAXED);
}

static void *watcher(void *arg)
{
	struct coloc_segment *seg = arg;

	coloc_enter(); /* its driver calls are colocc's own */
	coloc_graph_thread_relaxed(); /* legal while the application captures a graph */
	uint64_t idle_since = 0; /* when no latency tenant was busy any more; 0: one is */
	/* This process's slot in the segment, kept once seen: it answers edges even with no context left. */
	struct coloc_tenant *me = NULL;

	for (;;) {
		uint32_t epoch = __atomic_load_n(&seg->epoch, __ATOMIC_SEQ_CST);
		uint64_t since = 0, now = now_ns(), idle_wait = 1000000000u;
		bool busy = coloc_sched_latency_busy(seg, &since);
		struct ctx_state *list;

		if (busy)
			idle_since = 0;
		else if (!idle_since)
			idle_since = now;

		pthread_mutex_lock(&pre.lock);
		list = pre.list;
		pthread_mutex_unlock(&pre.lock);
		/* States are never freed and only pushed at the head: the walk is safe. */
		for (struct ctx_state *s = list; s; s = s->next) {
			if (s->seg != seg)
				continue;
			if (s->self)
				me = s->self;
			if (busy && !s->stopped && coloc_share_units())
				narrow_all(s);
			else if (busy && !s->stopped && !through_live(s))
				stop_all(s, since);
			else if (!busy && s->stopped && s->narrowed &&
				 now < idle_since + coloc_cfg.share_hold_ns)
				/*
				 * A narrowed kernel widens once the latency tenant has
				 * been idle COLOC_SHARE_HOLD_US: the gaps within its
				 * requests would otherwise each cost it a narrowing,
				 * and the workers that widened into them a block's time.
				 */
				idle_wait = idle_since + coloc_cfg.share_hold_ns - now;
			else if (!busy && s->stopped)
				resume_all(s);
		}
		/*
		 * The edge of `epoch` is handled: every persistent kernel stopped
		 * and off the GPU.  A latency tenant with COLOC_EDGE_WAIT_US waits
		 * for this before its first launch (sched.c, wait_vacated).
		 */
		if (me && busy)
			__atomic_store_n(&me->vacated, epoch, __ATOMIC_RELEASE);
		/*
		 * While a latency tenant is busy, look every 100 ms whether it
		 * still lives: a dead one is reaped, which bumps the epoch.
		 */
		if (busy && epoch == __atomic_load_n(&seg->epoch, __ATOMIC_SEQ_CST)) {
			coloc_coord_wait(seg, epoch, 100000000u);
			if (epoch == __atomic_load_n(&seg->epoch, __ATOMIC_SEQ_CST))
				coloc_coord_reap(seg);
		} else if (!busy) {
			coloc_coord_wait(seg, epoch, idle_wait);
		}
	}
	return NULL;
}

static void after_fork_child(void)
{
	/* The child's contexts are not the parent's, and it has no watchers. */
	pre.list = NULL;
	pre.nwatched = 0;
	pthread_mutex_init(&pre.lock, NULL);
}

__attribute__((constructor)) static void preempt_init(void)
{
	const char *c = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

	/* One hardware queue per context: every stream shares it with colocc's. */
	pre.one_queue = c && strtol(c, NULL, 10) == 1;
	pthread_atfork(NULL, NULL, after_fork_child);
}
