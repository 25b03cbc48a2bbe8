/*
 * The fake driver's stream capture and graphs.
 *
 * cuStreamBeginCapture_v2 on a created stream opens a capture: kernel
 * launches, cuMemsetD*Async and cuGraphLaunch on that stream are recorded
 * into its graph instead of running (their log lines end in captured=G),
 * and cuEventRecord there marks the event as captured.  cuStreamEndCapture
 * closes it and returns the graph; cuGraphInstantiateWithFlags copies the
 * nodes into an executable graph, which cuGraphLaunch runs at once, in
 * order: memsets write memory, kernels keep the "GPU" busy as a launch
 * does (COLOC_FAKE_KERNEL_US).  Captures on the NULL, legacy and per-thread
 * streams are refused (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED).
 *
 * The rules a capture imposes on other calls are the driver's: while one
 * is open, synchronizing or querying a stream, an event or the context (the
 * "potentially unsafe" calls) fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
 * and invalidates every open capture when the calling thread is in global
 * mode and any thread has a global capture open, or the calling thread has
 * a global or thread-local one open (thread-local mode: only the latter);
 * in relaxed mode (cuThreadExchangeStreamCaptureMode) only the calls that
 * conflict in every mode fail: the context, a capturing stream, a captured
 * event.  cuStreamEndCapture of an invalidated capture fails with
 * CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
 *
 *   cuStreamBeginCapture_v2 stream=S mode=M graph=G          also _ptsz
 *   cuStreamEndCapture stream=S graph=G nodes=N              also _ptsz
 *   cuThreadExchangeStreamCaptureMode mode=M was=M
 *   cuGraphInstantiateWithFlags graph=G exec=X nodes=N
 *   cuGraphLaunch exec=X stream=S ran=NAME,memset,...        also _ptsz; captured=G instead
 *   cuGraphExecDestroy exec=X
 *   cuGraphDestroy graph=G
 */
#include <stdlib.h>
#include <string.h>

#include "fake.h"

#define MAX_CAPTURES 16

/* One recorded operation: a kernel launch or a memset. */
struct fake_node {
	const struct fake_kernel *k; /* NULL: a memset */
	uint64_t blocks;
	uint64_t dst;
	unsigned value, width;
	size_t count;
};

struct fake_nodes {
	struct fake_node *v;
	unsigned n, cap;
};

struct fake_graph {
	char tag;
	unsigned id;
	bool dead;
	struct fake_nodes nodes;
	struct fake_graph *next;
};

struct fake_exec {
	char tag;
	unsigned id;
	bool dead;
	struct fake_nodes nodes;
	struct fake_exec *next;
};

struct fake_capture {
	bool used;
	bool invalidated;
	CUstream stream;
	pthread_t owner;
	CUstreamCaptureMode mode;
	struct fake_graph *graph;
};

/* Guarded by fake.lock. */
static struct {
	struct fake_graph *graphs;
	unsigned next_graph;
	struct fake_exec *execs;
	unsigned next_exec;
	struct fake_capture captures[MAX_CAPTURES];
} g;

static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static bool nodes_add(struct fake_nodes *ns, const struct fake_node *node)
{
	if (ns->n == ns->cap) {
		unsigned cap = ns->cap ? 2 * ns->cap : 8;
		struct fake_node *v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return false;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n++] = *node;
	return true;
}

static struct fake_capture *capture_find(CUstream stream)
{
	if (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
		return NULL;
	for (unsigned i = 0; i < MAX_CAPTURES; i++)
		if (g.captures[i].used && g.captures[i].stream == stream)
			return &g.captures[i];
	return NULL;
}

struct fake_graph *fake_capture_put(struct coloc_buf *line, CUstream stream)
{
	struct fake_capture *c = capture_find(stream);

	if (!c)
		return NULL;
	coloc_buf_printf(line, " captured=%u", c->graph->id);
	return c->graph;
}

void fake_capture_kernel(struct fake_graph *graph, const struct fake_kernel *k, uint64_t blocks)
{
	struct fake_node node = { .k = k, .blocks = blocks };

	nodes_add(&graph->nodes, &node);
}

void fake_capture_memset(struct fake_graph *graph, uint64_t dst, unsigned value, unsigned width,
			 size_t count)
{
	struct fake_node node = { .dst = dst, .value = value, .width = width, .count = count };

	nodes_add(&graph->nodes, &node);
}

/* Whether a potentially unsafe call of this thread is prohibited by capture `c`. */
static bool unsafe_here(const struct fake_capture *c)
{
	bool mine = pthread_equal(c->owner, pthread_self());

	switch (thread_mode) {
	case CU_STREAM_CAPTURE_MODE_GLOBAL:
		return (mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
		       (!mine && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
	case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
		return mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
	default:
		return false;
	}
}

CUresult fake_capture_forbids(CUstream stream, bool ctx, bool captured_event)
{
	bool conflict = false, open = false;

	for (unsigned i = 0; i < MAX_CAPTURES; i++) {
		const struct fake_capture *c = &g.captures[i];

		if (!c->used)
			continue;
		open = true;
		if (ctx || (stream && c->stream == stream) || unsafe_here(c))
			conflict = true;
	}
	if (captured_event)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (!open || !conflict)
		return CUDA_SUCCESS;
	for (unsigned i = 0; i < MAX_CAPTURES; i++)
		if (g.captures[i].used)
			g.captures[i].invalidated = true;
	return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

CUresult fake_capture_status(CUstream stream, int *status)
{
	struct fake_capture *c = capture_find(stream);

	*status = !c ? CU_STREAM_CAPTURE_STATUS_NONE :
		  c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED :
				   CU_STREAM_CAPTURE_STATUS_ACTIVE;
	return CUDA_SUCCESS;
}

static struct fake_graph *graph_find(CUgraph handle)
{
	for (struct fake_graph *gr = g.graphs; gr; gr = gr->next)
		if (!gr->dead && (void *)&gr->tag == (void *)handle)
			return gr;
	return NULL;
}

static struct fake_exec *exec_find(CUgraphExec handle)
{
	for (struct fake_exec *x = g.execs; x; x = x->next)
		if (!x->dead && (void *)&x->tag == (void *)handle)
			return x;
	return NULL;
}

static CUresult begin_capture(const char *name, CUstream stream, CUstreamCaptureMode mode)
{
	struct coloc_buf line;
	struct fake_capture *c = NULL;
	struct fake_graph *gr;
	CUresult rc, found;

	fake_begin(&line, name);
	found = fake_put_stream(&line, stream);
	coloc_buf_printf(&line, " mode=%d", mode);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
		return fake_end(&line, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED ||
	    capture_find(stream))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (unsigned i = 0; i < MAX_CAPTURES && !c; i++)
		if (!g.captures[i].used)
			c = &g.captures[i];
	if (!c || !(gr = calloc(1, sizeof(*gr))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	gr->id = ++g.next_graph;
	gr->next = g.graphs;
	g.graphs = gr;
	*c = (struct fake_capture){ .used = true, .stream = stream, .owner = pthread_self(),
				    .mode = mode, .graph = gr };
	coloc_buf_printf(&line, " graph=%u", gr->id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode)
{
	return begin_capture(__func__, stream, mode);
}

CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, CUstreamCaptureMode mode)
{
	return begin_capture(__func__, stream, mode);
}

static CUresult end_capture(const char *name, CUstream stream, CUgraph *graph)
{
	struct coloc_buf line;
	struct fake_capture *c;
	CUresult rc, found;

	fake_begin(&line, name);
	found = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!graph)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(c = capture_find(stream)))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->owner, pthread_self()))
		return fake_end(&line, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
	c->used = false;
	coloc_buf_printf(&line, " graph=%u nodes=%u", c->graph->id, c->graph->nodes.n);
	if (c->invalidated) {
		c->graph->dead = true;
		*graph = NULL;
		return fake_end(&line, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	}
	*graph = (CUgraph)(void *)&c->graph->tag;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph)
{
	return end_capture(__func__, stream, graph);
}

CUresult cuStreamEndCapture_ptsz(CUstream stream, CUgraph *graph)
{
	return end_capture(__func__, stream, graph);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	struct coloc_buf line;
	CUstreamCaptureMode was = thread_mode;

	fake_begin(&line, __func__);
	if (!mode || *mode < CU_STREAM_CAPTURE_MODE_GLOBAL || *mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	coloc_buf_printf(&line, " mode=%d was=%d", *mode, was);
	thread_mode = *mode;
	*mode = was;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
	struct coloc_buf line;
	struct fake_graph *gr;
	struct fake_exec *x;
	CUresult rc;

	(void)flags;
	fake_begin(&line, __func__);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!(gr = graph_find(graph))) {
		coloc_buf_puts(&line, " graph=?");
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	}
	coloc_buf_printf(&line, " graph=%u", gr->id);
	if (!exec)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(x = calloc(1, sizeof(*x))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	for (unsigned i = 0; i < gr->nodes.n; i++) {
		if (!nodes_add(&x->nodes, &gr->nodes.v[i])) {
			free(x->nodes.v);
			free(x);
			return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
		}
	}
	x->id = ++g.next_exec;
	x->next = g.execs;
	g.execs = x;
	*exec = (CUgraphExec)(void *)&x->tag;
	coloc_buf_printf(&line, " exec=%u nodes=%u", x->id, x->nodes.n);
	return fake_end(&line, CUDA_SUCCESS);
}

/* Runs the nodes in order, now, as a stream would; logs what ran. */
static CUresult exec_run(struct coloc_buf *line, const struct fake_exec *x)
{
	coloc_buf_puts(line, " ran=");
	for (unsigned i = 0; i < x->nodes.n; i++) {
		const struct fake_node *node = &x->nodes.v[i];

		if (i)
			coloc_buf_putc(line, ',');
		if (node->k) {
			coloc_buf_puts(line, node->k->name);
			fake_kernel_ran(node->blocks, node->blocks,
					!strncmp(node->k->name, "__coloc_", 8));
			continue;
		}
		unsigned char *p = fake_dev_range(node->dst, node->count * node->width);

		coloc_buf_puts(line, "memset");
		if (!p)
			return CUDA_ERROR_LAUNCH_FAILED;
		for (size_t j = 0; j < node->count; j++) {
			if (node->width == 1)
				p[j] = (unsigned char)node->value;
			else
				memcpy(p + j * 4, &(uint32_t){ node->value }, 4);
		}
	}
	return CUDA_SUCCESS;
}

static CUresult graph_launch(const char *name, CUgraphExec exec, CUstream stream)
{
	struct coloc_buf line;
	struct fake_exec *x;
	struct fake_graph *into;
	CUresult rc, found;

	fake_begin(&line, name);
	x = exec_find(exec);
	if (x)
		coloc_buf_printf(&line, " exec=%u", x->id);
	else
		coloc_buf_puts(&line, " exec=?");
	found = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!x)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	/* Into a capture: its nodes are recorded there (a child graph, flattened). */
	if ((into = fake_capture_put(&line, stream))) {
		for (unsigned i = 0; i < x->nodes.n; i++)
			nodes_add(&into->nodes, &x->nodes.v[i]);
		return fake_end(&line, CUDA_SUCCESS);
	}
	return fake_end(&line, exec_run(&line, x));
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream)
{
	return graph_launch(__func__, exec, stream);
}

CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream)
{
	return graph_launch(__func__, exec, stream);
}

CUresult cuGraphExecDestroy(CUgraphExec exec)
{
	struct coloc_buf line;
	struct fake_exec *x;

	fake_begin(&line, __func__);
	if (!(x = exec_find(exec))) {
		coloc_buf_puts(&line, " exec=?");
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	}
	coloc_buf_printf(&line, " exec=%u", x->id);
	/* Kept, dead, so the stale handle is never a newer one's. */
	x->dead = true;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuGraphDestroy(CUgraph graph)
{
	struct coloc_buf line;
	struct fake_graph *gr;

	fake_begin(&line, __func__);
	if (!(gr = graph_find(graph))) {
		coloc_buf_puts(&line, " graph=?");
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	}
	coloc_buf_printf(&line, " graph=%u", gr->id);
	gr->dead = true;
	return fake_end(&line, CUDA_SUCCESS);
}
