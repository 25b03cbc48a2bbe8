/*
 * CUDA graphs: stream capture and graph launches.
 *
 * A launch made while its stream is being captured does not run: the
 * driver records it into a graph that runs later, any number of times.
 * colocc must leave such a launch exactly as the application made it.  A
 * sliced or persistent variant would be recorded in its place (a graph
 * would replay one control block forever), a gated launch would wait for a
 * latency tenant that has nothing to do with when the graph runs, and
 * colocc's events recorded on the stream would become graph nodes that its
 * later cuEventSynchronize may not wait for.  So launch.c hands a captured
 * launch to the driver untouched.
 *
 * Capture also forbids calls elsewhere.  In global mode (the default, and
 * PyTorch's), no thread of the process may make a "potentially unsafe"
 * call (synchronize or query a stream, an event, the context) while the
 * capture is open, and the capturing thread may not in thread-local mode
 * either; such a call fails and invalidates the capture.  A synchronizing
 * call on a context with a stream in capture is illegal in every mode.
 * colocc therefore counts the captures the process opens (the hooks below),
 * and while one is open:
 *
 *   - a best-effort launch from a thread that may not synchronize goes to
 *     the driver untouched, even on a stream that is not captured (it would
 *     need colocc's depth-limit cuEventSynchronize);
 *   - the latency monitor (sched.c) does not settle: the tenant stays busy
 *     until the captures are closed.  A capture cannot begin while the
 *     monitor synchronizes: it waits for the synchronization to end;
 *   - colocc's own threads switch themselves to relaxed mode, so that their
 *     queries of colocc's own streams and events stay legal.
 *
 * A graph launch is one original unit under the gating (policy isolate at
 * kernel level): the kernels in it are neither sliced nor persistent, and a
 * best-effort tenant's graph waits, as a whole, until no latency tenant is
 * busy, then counts as one item of its depth of work in flight (the event
 * sched.c records after it).  A latency tenant's graph launch makes it busy
 * as its kernel launches do.  Launches are only ever delayed on the
 * launching thread, never queued, so a graph launch is put on its stream
 * after every launch the application made there before it.
 */
#include <pthread.h>

#include "pool.h"
#include "scheduler.h"

#define MAX_CAPTURES 64

/* One capture the process has open. */
struct capture {
	bool used;
	CUstream stream;     /* CU_STREAM_PER_THREAD for the caller's per-thread stream */
	pthread_t owner;     /* the thread that began it */
	CUstreamCaptureMode mode;
};

static struct {
	/*
	 * Guards captures[], coloc_graph_active and global.  Taken for writing to open or
	 * close a capture; held for reading by colocc's threads across their
	 * synchronizations (coloc_graph_sync_begin).
	 */
	pthread_rwlock_t lock;
	struct capture captures[MAX_CAPTURES];
	unsigned global;     /* of which in global mode */
	unsigned overflow;   /* captures open beyond captures[]: counted, not named */
} graphs = { .lock = PTHREAD_RWLOCK_INITIALIZER };

/* Captures open; read without the lock (scheduler.h). */
unsigned coloc_graph_active;

/* Captures this thread opened that forbid it to synchronize (global, thread-local). */
static __thread unsigned my_strict, my_global;

static CUstream stream_key(CUstream stream, enum coloc_stream_flavor flavor)
{
	return stream == CU_STREAM_PER_THREAD || (flavor == STREAM_PTDS && !stream) ?
		       CU_STREAM_PER_THREAD : stream;
}

/*
 * Counts a capture about to begin on `stream`; returns its slot (NULL: counted
 * in overflow).  From here to begin(), the driver's call is bracketed: not
 * into the middle of another thread's held launch on the stream (fence.c).
 */
static struct capture *capture_open(CUstream stream, enum coloc_stream_flavor flavor,
				    CUstreamCaptureMode mode)
{
	struct capture *c = NULL;

	coloc_fence_begin(stream, flavor);
	pthread_rwlock_wrlock(&graphs.lock);
	for (unsigned i = 0; i < MAX_CAPTURES && !c; i++)
		if (!graphs.captures[i].used)
			c = &graphs.captures[i];
	if (c) {
		c->used = true;
		c->stream = stream_key(stream, flavor);
		c->owner = pthread_self();
		c->mode = mode;
	} else {
		graphs.overflow++;
	}
	if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL)
		graphs.global++;
	__atomic_store_n(&coloc_graph_active, coloc_graph_active + 1, __ATOMIC_SEQ_CST);
	pthread_rwlock_unlock(&graphs.lock);
	if (mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		my_strict++;
	if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL)
		my_global++;
	return c;
}

static void capture_close(struct capture *c, CUstreamCaptureMode mode)
{
	bool mine;

	pthread_rwlock_wrlock(&graphs.lock);
	mine = !c || pthread_equal(c->owner, pthread_self());
	if (c)
		c->used = false;
	else if (graphs.overflow)
		graphs.overflow--;
	if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL && graphs.global)
		graphs.global--;
	if (coloc_graph_active)
		__atomic_store_n(&coloc_graph_active, coloc_graph_active - 1, __ATOMIC_SEQ_CST);
	pthread_rwlock_unlock(&graphs.lock);
	/* Strict captures end on the thread that began them. */
	if (mine && mode != CU_STREAM_CAPTURE_MODE_RELAXED && my_strict)
		my_strict--;
	if (mine && mode == CU_STREAM_CAPTURE_MODE_GLOBAL && my_global)
		my_global--;
}

static bool stream_capturing(CUstream stream, enum coloc_stream_flavor flavor)
{
	int status = 0;
	CUresult rc = flavor == STREAM_PTDS ? REAL(cuStreamIsCapturing_ptsz)(stream, &status) :
					      REAL(cuStreamIsCapturing)(stream, &status);

	return rc != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* After cuStreamEndCapture: closes the capture of `stream` unless the driver kept it open. */
static void capture_ended(CUstream stream, enum coloc_stream_flavor flavor)
{
	CUstream key = stream_key(stream, flavor);
	struct capture *c = NULL;
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
	int status = 0;
	bool overflow;
	CUresult rc;

	if (!__atomic_load_n(&coloc_graph_active, __ATOMIC_SEQ_CST))
		return;
	rc = flavor == STREAM_PTDS ? REAL(cuStreamIsCapturing_ptsz)(stream, &status) :
				     REAL(cuStreamIsCapturing)(stream, &status);
	if (rc == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE)
		return; /* the end was refused (another thread's capture, say): still open */
	pthread_rwlock_rdlock(&graphs.lock);
	for (unsigned i = 0; i < MAX_CAPTURES && !c; i++) {
		struct capture *k = &graphs.captures[i];

		if (k->used && k->stream == key &&
		    (key != CU_STREAM_PER_THREAD || pthread_equal(k->owner, pthread_self()))) {
			c = k;
			mode = k->mode;
		}
	}
	overflow = graphs.overflow != 0;
	pthread_rwlock_unlock(&graphs.lock);
	if (c || overflow)
		capture_close(c, mode);
}

/* After the driver's call that capture_open counted. */
static CUresult begin(CUresult rc, struct capture *c, CUstreamCaptureMode mode)
{
	coloc_fence_end();
	if (rc != CUDA_SUCCESS)
		capture_close(c, mode);
	return rc;
}

/* The CUDA 10.0 entry point has no mode: its captures are global. */
CUresult hook_cuStreamBeginCapture(cuStreamBeginCapture_fn real, CUstream stream)
{
	struct capture *c = capture_open(stream, STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL);

	return begin(real(stream), c, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

CUresult hook_cuStreamBeginCapture_ptsz(cuStreamBeginCapture_ptsz_fn real, CUstream stream)
{
	struct capture *c = capture_open(stream, STREAM_PTDS, CU_STREAM_CAPTURE_MODE_GLOBAL);

	return begin(real(stream), c, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

CUresult hook_cuStreamBeginCapture_v2(cuStreamBeginCapture_v2_fn real, CUstream stream,
				      CUstreamCaptureMode mode)
{
	struct capture *c = capture_open(stream, STREAM_LEGACY, mode);

	return begin(real(stream, mode), c, mode);
}

CUresult hook_cuStreamBeginCapture_v2_ptsz(cuStreamBeginCapture_v2_ptsz_fn real, CUstream stream,
					   CUstreamCaptureMode mode)
{
	struct capture *c = capture_open(stream, STREAM_PTDS, mode);

	return begin(real(stream, mode), c, mode);
}

CUresult hook_cuStreamBeginCaptureToGraph(cuStreamBeginCaptureToGraph_fn real, CUstream stream,
					  CUgraph graph, const CUgraphNode *deps,
					  const CUgraphEdgeData *data, size_t ndeps,
					  CUstreamCaptureMode mode)
{
	struct capture *c = capture_open(stream, STREAM_LEGACY, mode);

	return begin(real(stream, graph, deps, data, ndeps, mode), c, mode);
}

CUresult hook_cuStreamBeginCaptureToGraph_ptsz(cuStreamBeginCaptureToGraph_ptsz_fn real,
					       CUstream stream, CUgraph graph,
					       const CUgraphNode *deps, const CUgraphEdgeData *data,
					       size_t ndeps, CUstreamCaptureMode mode)
{
	struct capture *c = capture_open(stream, STREAM_PTDS, mode);

	return begin(real(stream, graph, deps, data, ndeps, mode), c, mode);
}

CUresult hook_cuStreamEndCapture(cuStreamEndCapture_fn real, CUstream stream, CUgraph *graph)
{
	CUresult rc = real(stream, graph);

	capture_ended(stream, STREAM_LEGACY);
	return rc;
}

CUresult hook_cuStreamEndCapture_ptsz(cuStreamEndCapture_ptsz_fn real, CUstream stream,
				      CUgraph *graph)
{
	CUresult rc = real(stream, graph);

	capture_ended(stream, STREAM_PTDS);
	return rc;
}

bool coloc_graph_thread_restricted(void)
{
	if (!__atomic_load_n(&coloc_graph_active, __ATOMIC_SEQ_CST))
		return false;
	return my_strict || __atomic_load_n(&graphs.global, __ATOMIC_SEQ_CST) > my_global;
}

bool coloc_graph_sync_begin(void)
{
	pthread_rwlock_rdlock(&graphs.lock);
	if (!coloc_graph_active)
		return true;
	pthread_rwlock_unlock(&graphs.lock);
	return false;
}

void coloc_graph_sync_end(void)
{
	pthread_rwlock_unlock(&graphs.lock);
}

void coloc_graph_thread_relaxed(void)
{
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;

	REAL(cuThreadExchangeStreamCaptureMode)(&mode);
}

/* ---- graph launches */

static CUresult graph_launch(cuGraphLaunch_fn real, enum coloc_stream_flavor flavor,
			     CUgraphExec exec, CUstream stream)
{
	CUresult rc;

	/* Into a stream in capture: a child graph node, recorded, not run. */
	if (coloc_graph_capture_open() &&
	    (stream_capturing(stream, flavor) ||
	     (coloc_cfg.role == COLOC_ROLE_BEST_EFFORT && coloc_graph_thread_restricted())))
		return real(exec, stream);
	if (coloc_cfg.role != COLOC_ROLE_BEST_EFFORT) {
		struct coloc_mark *m = coloc_sched_latency_launch(NULL, stream, flavor);

		coloc_sched_count(TC_GRAPH_LAUNCHES, 1);
		rc = real(exec, stream);
		coloc_sched_latency_issued(m, rc == CUDA_SUCCESS);
		return rc;
	}
	coloc_gpu_gate_enter();
	coloc_sched_issue_begin(false, 0); /* a graph counts as a whole bound */
	/* After the held launches it must follow (fence.c). */
	coloc_fence_begin(stream, flavor);
	rc = real(exec, stream);
	coloc_fence_end();
	if (rc == CUDA_SUCCESS) {
		coloc_sched_issue_end(stream, flavor, 0);
		coloc_sched_count(TC_GRAPH_LAUNCHES, 1);
	}
	coloc_gpu_gate_leave();
	return rc;
}

CUresult hook_cuGraphLaunch(cuGraphLaunch_fn real, CUgraphExec exec, CUstream stream)
{
	return graph_launch(real, STREAM_LEGACY, exec, stream);
}

CUresult hook_cuGraphLaunch_ptsz(cuGraphLaunch_ptsz_fn real, CUgraphExec exec, CUstream stream)
{
	return graph_launch(COLOC_CAST(cuGraphLaunch_fn, real), STREAM_PTDS, exec, stream);
}

static void after_fork_child(void)
{
	/* The child has no capture open, and no colocc thread holds the lock. */
	pthread_rwlock_init(&graphs.lock, NULL);
	for (unsigned i = 0; i < MAX_CAPTURES; i++)
		graphs.captures[i].used = false;
	coloc_graph_active = graphs.global = graphs.overflow = 0;
	my_strict = my_global = 0;
}

__attribute__((constructor)) static void graph_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}
