/*
 * The fake driver's streams, events, functions and launches.  Kernels are
 * not executed, with one exception: a persistent-thread-block variant
 * (`__coloc_ptb_K`, whose last parameters are grid_x, grid_y, grid_z, park,
 * slot_base, batch, a pointer to the control block {u32 next; u32 done; u32
 * redo head; u32 redo tail}, a pointer to the stop record {u32 word; u32
 * pad; u64 host}, a pointer to the redo ring and, made with --ptb-resume, a
 * pointer to a save area, docs/passes.md) takes virtual
 * blocks off `next`, counting each in `done`, until the word is set or the
 * grid is done.  Blocks in the redo ring come first; with park 2 (a drain)
 * only those.  Its one-block-a-worker variant (`__coloc_fresh_K`, the same
 * parameters) takes at most a block a worker, none from the ring, and its
 * ring holds twice slot_base entries.  Register-capped copies of either
 * (`__coloc_cap<N>_ptb_K`, `__coloc_cap<N>_fresh_K`) run as their variant.  A word above 1 narrows instead of stopping, to a share
 * of the SMs the fake does not have: a launch with a parker goes on as if
 * not stopped (its parker always does), a helper (park 0) runs nothing, as
 * if all its workers sat on the SMs given up.
 *
 * With COLOC_FAKE_PTB_STOP_AFTER=N, a launch with park = 1, or with park 0
 * and slot_base 0 (a launch on the application's stream parked on the
 * stream, COLOC_PARK; helpers have slot_base above 0), or a fresh one, runs N blocks during
 * its launch call and stays resident: at the fake's later calls it
 * finishes its blocks once COLOC_FAKE_RESIDENT_US passed since its launch,
 * unless it is stopped first.  Then its workers leave; with park = 1 worker
 * 0 stays, paused, until the stop is cleared, the word or its host copy (the
 * u32 at host, when host is not 0; then it goes on, and ends at once when
 * helpers took every block), or `done` reaches the grid's size (helpers run
 * at once).  cuStreamWaitValue32 holds its stream until the word (device or
 * mapped host memory) meets the condition; a persistent launch behind such a
 * wait is queued and starts when the wait is met, running what is left
 * unless stopped.  Events recorded on a stream after any of these, and
 * synchronization with its stream or context, wait until they are gone, as
 * on a GPU.  What they do between calls is logged as "gpu" lines:
 *
 *   gpu resident=R fn=NAME finished ran=N   ran its other N blocks and ended
 *   gpu resident=R fn=NAME parked           stopped: worker 0 pauses
 *   gpu resident=R fn=NAME parked, gave up block B   ... with a redo ring: the
 *                                                    block it held is put there
 *   gpu resident=R fn=NAME left             stopped without a parker: its workers left
 *   gpu resident=R fn=NAME left, gave up block B     ... and gave that block up
 *   gpu resident=R fn=NAME resumed          the stop was cleared: worker 0 goes on
 *   gpu resident=R fn=NAME unparked         every block is done while paused: it ended
 *   gpu resident=R fn=NAME started, finished ran=N   queued behind a wait: ran the rest
 *   gpu resident=R fn=NAME started, left at once     ... found the stop set, no parker
 *   gpu resident=R fn=NAME started, parked           ... found the stop set: worker 0 pauses
 *   gpu resident=R wait met                 a cuStreamWaitValue32's condition held
 *   gpu resident=R fn=NAME timeout          a synchronization gave up on it (20 s)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake.h"

/* Dynamic shared memory: above 48 KiB a kernel must opt in. */
#define LIMIT_DYNAMIC_SHMEM (48 * 1024)
#define PTB_FORM "ptb_"
#define FRESH_FORM "fresh_"

/*
 * A variant's form and kernel: the name after __coloc_, and after the cap of
 * a register-capped copy (__coloc_cap<N>_ptb_K, passes/regcap.h); NULL for
 * other names.
 */
static const char *variant_form(const char *name)
{
	if (strncmp(name, "__coloc_", 8) != 0)
		return NULL;
	name += 8;
	if (strncmp(name, "cap", 3) == 0 && name[3] >= '1' && name[3] <= '9') {
		name += 3;
		while (*name >= '0' && *name <= '9')
			name++;
		if (*name++ != '_')
			return NULL;
	}
	return name;
}

/* How a launch takes blocks: ring first, then the counter; only the counter; only the ring. */
enum take_mode { TAKE_LOOP, TAKE_FRESH, TAKE_DRAIN };

/* ---- streams and events: everything has already happened */

static CUresult stream_create(const char *name, CUstream *stream, unsigned flags, int priority,
			      bool has_priority)
{
	struct fake_stream *s;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	coloc_buf_printf(&line, " flags=%u", flags);
	if (has_priority)
		coloc_buf_printf(&line, " priority=%d", priority);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!stream)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(s = calloc(1, sizeof(*s))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	s->id = ++fake.next_stream;
	s->flags = flags;
	if (has_priority && priority < 0 && !fake.stuck_given && getenv("COLOC_FAKE_STUCK_STREAM") &&
	    strcmp(getenv("COLOC_FAKE_STUCK_STREAM"), "1") == 0) {
		s->stuck = true;
		fake.stuck_given = true;
	}
	s->next = fake.streams;
	fake.streams = s;
	*stream = (CUstream)(void *)&s->tag;
	coloc_buf_printf(&line, " stream=%u", s->id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	return stream_create(__func__, stream, flags, 0, false);
}

CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority)
{
	const char *fail = getenv("COLOC_FAKE_PRIORITY_STREAM_FAIL");
	struct coloc_buf line;

	if (fail && strcmp(fail, "1") == 0) {
		fake_begin(&line, __func__);
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	}
	return stream_create(__func__, stream, flags, priority, true);
}

/* A stream colocc or the program made, by handle; NULL for the default streams. */
static struct fake_stream *find_stream(CUstream stream)
{
	struct fake_stream *s = fake.streams;

	while (s && (void *)&s->tag != (void *)stream)
		s = s->next;
	return s;
}

CUresult cuStreamGetFlags(CUstream stream, unsigned int *flags)
{
	struct fake_stream *s;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!flags)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	s = find_stream(stream);
	/* The default streams: 0 (they are not non-blocking). */
	*flags = s ? s->flags : 0;
	coloc_buf_printf(&line, " flags=%u", *flags);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuStreamDestroy_v2(CUstream stream)
{
	struct fake_stream *s;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	s = find_stream(stream);
	if (!s) /* NULL or a special handle */
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	/* Kept, dead, so the stale handle is never a newer stream's. */
	s->dead = true;
	return fake_end(&line, CUDA_SUCCESS);
}

static bool stream_stuck(CUstream stream)
{
	struct fake_stream *s = find_stream(stream);

	return s && (s->stuck || fake_now_ns() < s->copy_until_ns);
}

/*
 * COLOC_FAKE_COPY_US=N: a stream's copy lands N us after it was queued, and
 * until then a query of the stream says not ready (a copy engine slow to
 * come to the context), whatever else runs.  The copy's bytes move at once.
 */
void fake_stream_copied(CUstream stream)
{
	const char *us = getenv("COLOC_FAKE_COPY_US");
	struct fake_stream *s = find_stream(stream);

	if (s && us && *us)
		s->copy_until_ns = fake_now_ns() + strtoull(us, NULL, 10) * 1000u;
}

/* Synchronize and query: log the stream, nothing is ever pending. */
/* Logs a call on `stream`; `query`: CUDA_ERROR_NOT_READY while the GPU is busy. */
static CUresult stream_call(const char *name, CUstream stream, bool query)
{
	const char *shared = getenv("COLOC_FAKE_SHARED_QUEUE");
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, name);
	found = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS)
		rc = fake_capture_forbids(stream, false, false);
	/* fake_begin holds the lock. */
	if (rc == CUDA_SUCCESS && query &&
	    (fake_now_ns() < fake.busy_until_ns || fake_held() || fake_resident_on(stream) ||
	     (shared && strcmp(shared, "1") == 0 && fake_resident_any()) ||
	     (stream_stuck(stream) &&
	      (fake_resident_any() || fake_now_ns() < find_stream(stream)->copy_until_ns))))
		rc = CUDA_ERROR_NOT_READY;
	return fake_end(&line, rc);
}

static CUresult stream_wait(const char *name, CUstream stream)
{
	return stream_call(name, stream, false);
}

CUresult cuStreamSynchronize(CUstream stream)
{
	return fake_wait_resident(false, stream, 0, fake_wait_idle(stream_wait(__func__, stream)));
}

CUresult cuStreamSynchronize_ptsz(CUstream stream)
{
	return fake_wait_resident(false, stream, 0, fake_wait_idle(stream_wait(__func__, stream)));
}

CUresult cuStreamQuery(CUstream stream)
{
	return stream_call(__func__, stream, true);
}

CUresult cuStreamQuery_ptsz(CUstream stream)
{
	return stream_call(__func__, stream, true);
}

/* Captured between cuStreamBeginCapture and cuStreamEndCapture, or always with COLOC_FAKE_CAPTURING=1. */
static CUresult stream_capturing(const char *name, CUstream stream, int *status)
{
	const char *env = getenv("COLOC_FAKE_CAPTURING");
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, name);
	found = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS && !status)
		rc = CUDA_ERROR_INVALID_VALUE;
	if (rc == CUDA_SUCCESS) {
		fake_capture_status(stream, status);
		if (env && strcmp(env, "1") == 0)
			*status = 1;
		coloc_buf_printf(&line, " capturing=%d", *status);
	}
	return fake_end(&line, rc);
}

CUresult cuStreamIsCapturing(CUstream stream, int *status)
{
	return stream_capturing(__func__, stream, status);
}

CUresult cuStreamIsCapturing_ptsz(CUstream stream, int *status)
{
	return stream_capturing(__func__, stream, status);
}

/* Logs an event's id (or ?) after whatever key the caller wrote. */
static CUresult put_event_value(struct coloc_buf *line, CUevent e, struct fake_event **out)
{
	struct fake_event *ev;

	for (ev = fake.events; ev; ev = ev->next) {
		if (!ev->dead && (void *)&ev->tag == (void *)e) {
			coloc_buf_printf(line, "%u", ev->id);
			if (out)
				*out = ev;
			return CUDA_SUCCESS;
		}
	}
	coloc_buf_putc(line, '?');
	return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult put_event(struct coloc_buf *line, CUevent e, struct fake_event **out)
{
	coloc_buf_puts(line, " event=");
	return put_event_value(line, e, out);
}

static CUresult stream_wait_event(const char *name, CUstream stream, CUevent event, unsigned flags)
{
	struct coloc_buf line;
	CUresult rc, stream_rc, event_rc;

	fake_begin(&line, name);
	stream_rc = fake_put_stream(&line, stream);
	event_rc = put_event(&line, event, NULL);
	coloc_buf_printf(&line, " flags=%u", flags);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS && (rc = stream_rc) == CUDA_SUCCESS)
		rc = event_rc;
	return fake_end(&line, rc);
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
	return stream_wait_event(__func__, stream, event, flags);
}

CUresult cuStreamWaitEvent_ptsz(CUstream stream, CUevent event, unsigned int flags)
{
	return stream_wait_event(__func__, stream, event, flags);
}

CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
	struct fake_event *e;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " flags=%u", flags);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!event)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(e = calloc(1, sizeof(*e))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	e->id = ++fake.next_event;
	e->next = fake.events;
	fake.events = e;
	*event = (CUevent)(void *)&e->tag;
	coloc_buf_printf(&line, " event=%u", e->id);
	return fake_end(&line, CUDA_SUCCESS);
}

static CUresult event_record(const char *name, CUevent event, CUstream stream)
{
	struct coloc_buf line;
	struct fake_event *e = NULL;
	CUresult rc, stream_rc, event_rc;

	fake_begin(&line, name);
	event_rc = put_event(&line, event, &e);
	stream_rc = fake_put_stream(&line, stream);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS && (rc = event_rc) == CUDA_SUCCESS)
		rc = stream_rc;
	if (rc == CUDA_SUCCESS && fake_capture_put(&line, stream)) {
		e->captured = true;
	} else if (rc == CUDA_SUCCESS) {
		/* An idle GPU reaches the event now: elapsed times do not count idle time before. */
		e->captured = false;
		e->done_ns = fake_gpu_now();
		e->after_resident = fake_resident_on(stream);
		e->recorded = true;
	}
	return fake_end(&line, rc);
}

CUresult cuEventRecord(CUevent event, CUstream stream)
{
	return event_record(__func__, event, stream);
}

CUresult cuEventRecord_ptsz(CUevent event, CUstream stream)
{
	return event_record(__func__, event, stream);
}

CUresult cuEventSynchronize(CUevent event)
{
	struct coloc_buf line;
	struct fake_event *e = NULL;
	uint64_t until = 0;
	unsigned id = 0;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_event(&line, event, &e);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS)
		rc = fake_capture_forbids(NULL, false, e->captured);
	if (rc == CUDA_SUCCESS) {
		until = e->done_ns;
		id = e->after_resident;
	}
	rc = fake_sleep_until(until, fake_end(&line, rc));
	return id ? fake_wait_resident(false, NULL, id, rc) : rc;
}

CUresult cuEventQuery(CUevent event)
{
	struct coloc_buf line;
	struct fake_event *e = NULL;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_event(&line, event, &e);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS)
		rc = fake_capture_forbids(NULL, false, e->captured);
	if (rc == CUDA_SUCCESS && (fake_now_ns() < e->done_ns || fake_resident_live(e->after_resident)))
		rc = CUDA_ERROR_NOT_READY;
	return fake_end(&line, rc);
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	struct coloc_buf line;
	struct fake_event *a = NULL, *b = NULL;
	CUresult rc, found_a, found_b;
	uint64_t now = fake_now_ns();

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " start=");
	found_a = put_event_value(&line, start, &a);
	coloc_buf_puts(&line, " end=");
	found_b = put_event_value(&line, end, &b);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found_a) != CUDA_SUCCESS ||
	    (rc = found_b) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!ms)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!a->recorded || !b->recorded)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (now < a->done_ns || now < b->done_ns || fake_resident_live(a->after_resident) ||
	    fake_resident_live(b->after_resident))
		return fake_end(&line, CUDA_ERROR_NOT_READY);
	*ms = (float)((double)b->done_ns - (double)a->done_ns) / 1e6f;
	coloc_buf_printf(&line, " us=%lld", ((long long)b->done_ns - (long long)a->done_ns) / 1000);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuEventDestroy_v2(CUevent event)
{
	struct fake_event *e = NULL;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_event(&line, event, &e);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	e->dead = true;
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- functions */

CUresult fake_attr_set(struct fake_kernel *k, int attrib, int value)
{
	/* Attributes below 8 (threads, registers, sizes, versions) are read-only. */
	if (attrib < CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
	    attrib >= CU_FUNC_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
	    (value < 0 || value > FAKE_LIMIT_SHMEM_OPTIN))
		return CUDA_ERROR_INVALID_VALUE;
	k->attrs[attrib] = value;
	return CUDA_SUCCESS;
}

CUresult fake_attr_get(const struct fake_kernel *k, int attrib, int *value)
{
	if (attrib < 0 || attrib >= CU_FUNC_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	if (attrib == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
		*value = 1024;
	else if (attrib == CU_FUNC_ATTRIBUTE_NUM_REGS)
		*value = 32;
	else
		*value = k->attrs[attrib];
	return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attrib, int value)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " attrib=%d value=%d", attrib, value);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, fake_attr_set(k, attrib, value));
}

CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction fn)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " attrib=%d", attrib);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!value)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if ((rc = fake_attr_get(k, attrib, value)) == CUDA_SUCCESS)
		coloc_buf_printf(&line, " value=%d", *value);
	return fake_end(&line, rc);
}

CUresult cuFuncSetCacheConfig(CUfunction fn, CUfunc_cache config)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " config=%d", config);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	k->cache_config = config;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuFuncGetName(const char **name, CUfunction fn)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!name)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*name = k->name;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuFuncGetParamInfo(CUfunction fn, size_t index, size_t *offset, size_t *size)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " index=%zu", index);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (index >= k->nparams)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (offset)
		*offset = k->params[index].offset;
	if (size)
		*size = k->params[index].size;
	coloc_buf_printf(&line, " offset=%u size=%u", k->params[index].offset,
			 k->params[index].size);
	return fake_end(&line, CUDA_SUCCESS);
}

/*
 * Blocks an SM: 2,048 threads in whole warps, at most 32 blocks, at least 1;
 * with a cubin's register count, also 64K registers, given to warps in units
 * of 256.
 */
static int fake_blocks_per_sm(unsigned threads, unsigned registers)
{
	unsigned warps = (threads + 31) / 32;
	int n = 2048 / (int)(warps * 32);

	if (registers) {
		unsigned per_warp = (registers * 32 + 255) / 256 * 256;
		int by_regs = (int)(65536 / (per_warp * warps));

		if (by_regs < n)
			n = by_regs;
	}
	return n > 32 ? 32 : n < 1 ? 1 : n;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction fn, int block_size,
						     size_t dynamic_shmem)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " block=%d shmem=%zu", block_size, dynamic_shmem);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!blocks || block_size <= 0 || block_size > 1024)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*blocks = fake_blocks_per_sm((unsigned)block_size, k->registers);
	coloc_buf_printf(&line, " blocks=%d", *blocks);
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- launches */

struct launch {
	const void *fn;
	unsigned grid[3], block[3], shmem;
	CUstream stream;
	bool ex; /* cuLaunchKernelEx: log the attributes */
	const CUlaunchAttribute *attrs;
	unsigned nattrs;
	void **params;
	void **extra;
};

static uint64_t le_load(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void le_store32(unsigned char *p, uint32_t v)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* The packed buffer of `extra`: BUFFER_POINTER and BUFFER_SIZE, then END. */
static CUresult extra_buffer(void **extra, const unsigned char **buf, size_t *size)
{
	bool have_size = false;
	size_t i;

	*buf = NULL;
	for (i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
			*buf = extra[i + 1];
		} else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) {
			memcpy(size, extra[i + 1], sizeof(*size));
			have_size = true;
		} else {
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	return *buf && have_size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Where each parameter's bytes are: kernelParams[i], or the layout's offset in extra's buffer. */
static CUresult param_values(const struct launch *l, const struct fake_kernel *k,
			     const unsigned char **values)
{
	const unsigned char *buf;
	size_t size = 0;
	unsigned i;
	CUresult rc;

	if (l->params && l->extra)
		return CUDA_ERROR_INVALID_VALUE;
	if (l->extra) {
		if ((rc = extra_buffer(l->extra, &buf, &size)) != CUDA_SUCCESS)
			return rc;
		if (size < k->param_bytes)
			return CUDA_ERROR_INVALID_VALUE;
		for (i = 0; i < k->nparams; i++)
			values[i] = buf + k->params[i].offset;
		return CUDA_SUCCESS;
	}
	for (i = 0; i < k->nparams; i++)
		if (!l->params || !(values[i] = l->params[i]))
			return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static void put_value(struct coloc_buf *line, const unsigned char *p, uint32_t size)
{
	uint32_t i;

	if (size == 8) {
		fake_put_dptr(line, le_load(p, 8));
	} else if (size == 1 || size == 2 || size == 4) {
		coloc_buf_printf(line, "0x%llx", (unsigned long long)le_load(p, size));
	} else {
		coloc_buf_puts(line, "b:");
		for (i = 0; i < size; i++)
			coloc_buf_printf(line, "%02x", p[i]);
	}
}

/* ---- persistent kernels that outlive their launch call */

#define MAX_RESIDENT 64
#define RESIDENT_WAIT_NS 20000000000ull

struct resident {
	bool live, parked;
	bool parks;        /* it has a parker (park 1); without one its workers leave at a stop */
	bool waiter;       /* a cuStreamWaitValue32 not yet met, not a kernel */
	bool queued;       /* a launch behind a waiter on its stream: not started yet */
	unsigned after;    /* what it is behind on its stream, or 0 */
	uint64_t addr;     /* a waiter's word */
	uint32_t value, flags;
	unsigned id;
	char name[160];
	CUstream stream;
	uint64_t ctl, stop, total, finish_ns;
	uint64_t redo;     /* its redo ring, or 0 */
	uint32_t cap;      /* the ring's entries: twice its workers or slot_base, the larger */
	uint64_t stop_seen_ns; /* COLOC_FAKE_LEAVE_US: when it first saw its stop */
	bool block_held;       /* ... and its control block counts a block not yet done */
	enum take_mode mode;
	uint64_t left;         /* blocks it may still take (a fresh launch: its workers') */
};

static struct resident resident[MAX_RESIDENT];
static unsigned resident_ids;

static void resident_log(const struct resident *r, const char *what)
{
	struct coloc_buf line;

	coloc_buf_init(&line);
	if (r->waiter)
		coloc_buf_printf(&line, "gpu resident=%u wait %s\n", r->id, what);
	else
		coloc_buf_printf(&line, "gpu resident=%u fn=%s %s\n", r->id, r->name, what);
	fake_log_write(&line);
	coloc_buf_release(&line);
}

/*
 * Whether the stop record at `stop` stops a launch, `parks` when it has a
 * parker: its word; for a paused worker 0, `parker`, its host copy too when
 * it has one.
 */
static bool ptb_stopped(uint64_t stop, bool parker, bool parks)
{
	const unsigned char *word = fake_dev_range(stop, 4), *record = fake_dev_range(stop, 16), *host;
	uint64_t w;

	if (!word || (w = le_load(word, 4)) == 0)
		return false;
	if (w > 1)
		return !parks;
	if (!parker || !record || !le_load(record + 8, 8))
		return true;
	host = fake_host_range(le_load(record + 8, 8), 4);
	return !host || le_load(host, 4) != 0; /* a bad pointer faults: nothing more runs */
}

/* Takes a block given up back from the redo ring (head, then its entry cleared). */
static bool ring_pop(unsigned char *ctl, uint64_t redo, uint32_t cap)
{
	uint32_t head = (uint32_t)le_load(ctl + 8, 4), tail = (uint32_t)le_load(ctl + 12, 4);
	unsigned char *entry;

	if (!redo || !cap || head >= tail || !(entry = fake_dev_range(redo + 4ull * (head % cap), 4)))
		return false;
	le_store32(entry, 0);
	le_store32(ctl + 8, head + 1);
	return true;
}

/*
 * Runs virtual blocks while not stopped, those given up first; returns how
 * many.  A fresh launch (ptb.c's one-block-a-worker variant) takes none from
 * the ring; a drain (park 2) only those.
 */
static uint64_t ptb_blocks(unsigned char *ctl, uint64_t stop, bool parks, uint64_t total,
			   uint64_t limit, uint64_t redo, uint32_t cap, enum take_mode mode)
{
	uint64_t ran = 0;

	while (!ptb_stopped(stop, false, parks) && ran < limit) {
		if (mode == TAKE_FRESH || !ring_pop(ctl, redo, cap)) {
			if (mode == TAKE_DRAIN || le_load(ctl, 4) >= total)
				break;
			le_store32(ctl, (uint32_t)le_load(ctl, 4) + 1);
		}
		le_store32(ctl + 4, (uint32_t)le_load(ctl + 4, 4) + 1);
		ran++;
	}
	return ran;
}

/*
 * A stopped kernel with a redo ring gives up the block it holds (here the
 * next one: the fake runs blocks whole): taken, put in the ring (tail, then
 * entry = id + 1), not done.
 */
static bool give_up(unsigned char *ctl, struct resident *r)
{
	uint32_t next = (uint32_t)le_load(ctl, 4), tail = (uint32_t)le_load(ctl + 12, 4);
	unsigned char *entry;

	if (!r->redo || !r->cap || next >= r->total ||
	    !(entry = fake_dev_range(r->redo + 4ull * (tail % r->cap), 4)))
		return false;
	le_store32(ctl, next + 1);
	le_store32(ctl + 12, tail + 1);
	le_store32(entry, next + 1);
	return true;
}

/* The word a cuStreamWaitValue32 watches: device memory or mapped host memory. */
static const unsigned char *wait_word(uint64_t addr)
{
	const unsigned char *p = fake_dev_range(addr, 4);

	return p ? p : fake_host_range(addr, 4);
}

/* Whether a wait's condition holds (flags: GEQ 0, EQ 1, AND 2, NOR 3). */
static bool wait_met(uint64_t addr, uint32_t value, uint32_t flags)
{
	const unsigned char *p = wait_word(addr);
	uint32_t w;

	if (!p)
		return true; /* its memory was freed under it: a GPU would fault, nothing more waits */
	w = (uint32_t)le_load(p, 4);
	switch (flags) {
	case 0: return (int32_t)(w - value) >= 0;
	case 1: return w == value;
	case 2: return (w & value) != 0;
	default: return ~(w | value) != 0;
	}
}

/* A launch behind a wait starts: it runs what is left unless stopped. */
static void resident_start(struct resident *r, unsigned char *ctl)
{
	char what[64];

	r->queued = false;
	if (!ptb_stopped(r->stop, false, r->parks) || le_load(ctl, 4) >= r->total) {
		snprintf(what, sizeof(what), "started, finished ran=%llu",
			 (unsigned long long)ptb_blocks(ctl, r->stop, r->parks, r->total, r->left,
							r->redo, r->cap, r->mode));
		r->live = false;
	} else if (!r->parks) {
		snprintf(what, sizeof(what), "started, left at once");
		r->live = false;
	} else {
		snprintf(what, sizeof(what), "started, parked");
		r->parked = true;
	}
	resident_log(r, what);
}

/*
 * COLOC_FAKE_LEAVE_US: a stopped kernel without a parker leaves that long
 * after it saw the stop, one block of it still running meanwhile (its
 * control block counts one block done less than taken, as a watcher reading
 * it back would see on a GPU).
 */
static bool leave_later(struct resident *r, unsigned char *ctl)
{
	const char *env = getenv("COLOC_FAKE_LEAVE_US");
	uint64_t now = fake_now_ns();
	uint32_t done = (uint32_t)le_load(ctl + 4, 4);

	if (!env || !*env)
		return false;
	if (!r->stop_seen_ns) {
		r->stop_seen_ns = now;
		r->block_held = done > 0;
		if (r->block_held)
			le_store32(ctl + 4, done - 1);
	}
	if (now < r->stop_seen_ns + strtoull(env, NULL, 10) * 1000u)
		return true;
	if (r->block_held)
		le_store32(ctl + 4, (uint32_t)le_load(ctl + 4, 4) + 1);
	r->block_held = false;
	return false;
}

void fake_progress(void)
{
	for (unsigned i = 0; i < MAX_RESIDENT; i++) {
		struct resident *r = &resident[i];
		unsigned char *ctl;
		bool stopped;
		char what[64];

		if (!r->live || (r->after && fake_resident_live(r->after)))
			continue;
		if (r->waiter) {
			if (wait_met(r->addr, r->value, r->flags)) {
				r->live = false;
				resident_log(r, "met");
			}
			continue;
		}
		ctl = fake_dev_range(r->ctl, 16);
		if (!ctl || !fake_dev_range(r->stop, 4)) { /* its memory was freed under it */
			r->live = false;
			continue;
		}
		if (r->queued) {
			resident_start(r, ctl);
			continue;
		}
		stopped = ptb_stopped(r->stop, r->parked, r->parks);
		if (!r->parks && stopped && leave_later(r, ctl))
			continue;
		if (!r->parks && stopped) { /* no parker: its workers leave */
			uint32_t next = (uint32_t)le_load(ctl, 4);

			r->live = false;
			if (give_up(ctl, r)) {
				snprintf(what, sizeof(what), "left, gave up block %u", next);
				resident_log(r, what);
			} else {
				resident_log(r, "left");
			}
			continue;
		}
		if (r->parked && le_load(ctl + 4, 4) >= r->total) {
			r->live = false;
			resident_log(r, "unparked");
			continue;
		}
		if (!r->parked && stopped) {
			uint32_t next = (uint32_t)le_load(ctl, 4);

			r->parked = true;
			if (give_up(ctl, r)) {
				snprintf(what, sizeof(what), "parked, gave up block %u", next);
				resident_log(r, what);
			} else {
				resident_log(r, "parked");
			}
		} else if (r->parked && !stopped) {
			r->parked = false;
			resident_log(r, "resumed");
		}
		/* Its time is up, or helpers took every block: it ends. */
		if (!r->parked && (fake_now_ns() >= r->finish_ns || le_load(ctl, 4) >= r->total)) {
			snprintf(what, sizeof(what), "finished ran=%llu",
				 (unsigned long long)ptb_blocks(ctl, r->stop, r->parks, r->total,
								r->left, r->redo, r->cap, r->mode));
			r->live = false;
			resident_log(r, what);
		}
	}
}

unsigned fake_resident_on(CUstream stream)
{
	unsigned id = 0;

	for (unsigned i = 0; i < MAX_RESIDENT; i++)
		if (resident[i].live && resident[i].stream == stream && resident[i].id > id)
			id = resident[i].id;
	return id;
}

bool fake_resident_any(void)
{
	for (unsigned i = 0; i < MAX_RESIDENT; i++)
		if (resident[i].live)
			return true;
	return false;
}

bool fake_resident_live(unsigned id)
{
	for (unsigned i = 0; id && i < MAX_RESIDENT; i++)
		if (resident[i].live && resident[i].id == id)
			return true;
	return false;
}

CUresult fake_wait_resident(bool all, CUstream stream, unsigned id, CUresult rc)
{
	uint64_t deadline = fake_now_ns() + RESIDENT_WAIT_NS;

	for (;;) {
		struct resident *waiting = NULL;

		pthread_mutex_lock(&fake.lock);
		fake_progress();
		for (unsigned i = 0; i < MAX_RESIDENT && !waiting; i++) {
			struct resident *r = &resident[i];

			if (r->live && (id ? r->id == id : all || r->stream == stream))
				waiting = r;
		}
		if (waiting && fake_now_ns() > deadline) {
			resident_log(waiting, "timeout");
			pthread_mutex_unlock(&fake.lock);
			return rc == CUDA_SUCCESS ? CUDA_ERROR_LAUNCH_TIMEOUT : rc;
		}
		pthread_mutex_unlock(&fake.lock);
		if (!waiting)
			return rc;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

/* A free entry for a persistent launch (parameters as ptb_run reads them), or NULL. */
static struct resident *resident_new(const char *name, CUstream stream,
				     const unsigned char **values, unsigned n, uint64_t total,
				     uint64_t ring)
{
	struct resident *r = NULL;

	for (unsigned i = 0; i < MAX_RESIDENT && !r; i++)
		if (!resident[i].live)
			r = &resident[i];
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->live = true;
	r->id = ++resident_ids;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->stream = stream;
	r->ctl = le_load(values[n - 3], 8);
	r->stop = le_load(values[n - 2], 8);
	r->redo = le_load(values[n - 1], 8);
	r->cap = (uint32_t)(2 * ring);
	r->total = total;
	r->left = UINT64_MAX;
	return r;
}

/*
 * The log line of a stream memory operation on a 32-bit word, up to its
 * flags: the stream, then the word (@B+OFF, host for mapped host memory).
 */
static CUresult word_call_begin(struct coloc_buf *line, const char *name, CUstream stream,
				uint64_t addr, uint32_t value, unsigned flags)
{
	CUresult stream_rc;

	fake_begin(line, name);
	stream_rc = fake_put_stream(line, stream);
	coloc_buf_puts(line, " addr=");
	if (fake_dev_range(addr, 4))
		fake_put_dptr(line, addr);
	else
		coloc_buf_puts(line, fake_host_range(addr, 4) ? "host" : "?");
	coloc_buf_printf(line, " value=0x%x flags=%u", value, flags);
	return stream_rc;
}

/* Whether live entry `id` is a kernel running on the GPU (not a wait, nor queued). */
static bool resident_holds(unsigned id)
{
	for (unsigned i = 0; i < MAX_RESIDENT; i++)
		if (resident[i].live && resident[i].id == id)
			return !resident[i].waiter && !resident[i].queued;
	return false;
}

static unsigned long long wait_calls;

static CUresult stream_wait_value(const char *name, CUstream stream, CUdeviceptr addr,
				  cuuint32_t value, unsigned flags)
{
	struct coloc_buf line;
	struct resident *r = NULL;
	CUresult rc, stream_rc;
	unsigned before;

	stream_rc = word_call_begin(&line, name, stream, addr, value, flags);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = stream_rc) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!wait_word(addr) || flags > 3)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	/*
	 * COLOC_FAKE_WAIT_VALUE_FAIL=N: every call after the first N refused,
	 * as by a driver that stops taking stream waits (a lost context).
	 */
	if (getenv("COLOC_FAKE_WAIT_VALUE_FAIL") &&
	    ++wait_calls > strtoull(getenv("COLOC_FAKE_WAIT_VALUE_FAIL"), NULL, 10))
		return fake_end(&line, CUDA_ERROR_NOT_SUPPORTED);
	fake_progress();
	before = fake_resident_on(stream);
	if (!before && wait_met(addr, value, flags)) {
		coloc_buf_puts(&line, " met");
		return fake_end(&line, CUDA_SUCCESS);
	}
	for (unsigned i = 0; i < MAX_RESIDENT && !r; i++)
		if (!resident[i].live)
			r = &resident[i];
	if (!r)
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	memset(r, 0, sizeof(*r));
	r->live = r->waiter = true;
	r->id = ++resident_ids;
	r->stream = stream;
	r->after = before;
	r->addr = addr;
	r->value = value;
	r->flags = flags;
	coloc_buf_printf(&line, " waiting=%u", r->id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
				unsigned int flags)
{
	return stream_wait_value(__func__, stream, addr, value, flags);
}

CUresult cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
				     unsigned int flags)
{
	return stream_wait_value(__func__, stream, addr, value, flags);
}

/*
 * cuStreamWriteValue32: the word is written at once, as the fake's copies
 * are.  COLOC_FAKE_WRITE_VALUE_FAIL=1: refused, as by a driver or device
 * without stream memory operations.
 */
static CUresult stream_write_value(const char *name, CUstream stream, CUdeviceptr addr,
				   cuuint32_t value, unsigned int flags)
{
	const char *fail = getenv("COLOC_FAKE_WRITE_VALUE_FAIL"), *delay;
	struct coloc_buf line;
	unsigned char *p;
	CUresult rc, stream_rc;

	/*
	 * COLOC_FAKE_WRITE_VALUE_US=N: the call waits N us, unlocked, before
	 * it writes, as a thread descheduled on its way to the write.
	 */
	if ((delay = getenv("COLOC_FAKE_WRITE_VALUE_US")) && *delay)
		fake_sleep_until(fake_now_ns() + strtoull(delay, NULL, 10) * 1000u, CUDA_SUCCESS);
	stream_rc = word_call_begin(&line, name, stream, addr, value, flags);
	if (!(p = fake_dev_range(addr, 4)))
		p = fake_host_range(addr, 4);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = stream_rc) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (fail && strcmp(fail, "1") == 0)
		return fake_end(&line, CUDA_ERROR_NOT_SUPPORTED);
	if (!p || flags > 1) /* DEFAULT, NO_MEMORY_BARRIER */
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	le_store32(p, value);
	return fake_end(&line, CUDA_SUCCESS);
}

/* The ABI before CUDA 11.7: the same call. */
CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
	return stream_write_value(__func__, stream, addr, value, flags);
}

CUresult cuStreamWriteValue32_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
				   unsigned int flags)
{
	return stream_write_value(__func__, stream, addr, value, flags);
}

CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
				 unsigned int flags)
{
	return stream_write_value(__func__, stream, addr, value, flags);
}

CUresult cuStreamWriteValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
				      unsigned int flags)
{
	return stream_write_value(__func__, stream, addr, value, flags);
}

/*
 * The one kernel the fake runs: a ptb variant takes virtual blocks off the
 * control block's counter (parameters: ..., grid_x, grid_y, grid_z, park,
 * slot_base, batch, control, stop, redo), as described at the top: one
 * block at a time whatever the batch, which changes how blocks are taken on
 * a GPU, not how many.  Blocks given up (redo ring not empty) are taken
 * first.
 */
static CUresult ptb_run(struct coloc_buf *line, const struct fake_kernel *k,
			const unsigned char **values, CUstream stream, unsigned workers, bool *stays,
			uint64_t *blocks)
{
	const char *stop_env = getenv("COLOC_FAKE_PTB_STOP_AFTER"), *us = getenv("COLOC_FAKE_RESIDENT_US");
	const char *no_helpers = getenv("COLOC_FAKE_NO_HELPERS");
	unsigned n = k->nparams, i;
	uint64_t total = 1, ran, stop_after = UINT64_MAX, park, base, stop, ring;
	unsigned before;
	unsigned char *ctl;
	struct resident *r = NULL;

	uint64_t redo;

	/*
	 * Variants made with --ptb-resume take a save area last (an 8-byte
	 * parameter after redo): the others are read as before it.  The fake
	 * gives no block up, so the area is only checked to be device memory.
	 */
	const char *form = variant_form(k->name);
	bool fresh = form && strncmp(form, FRESH_FORM, strlen(FRESH_FORM)) == 0;
	bool ptb = form && strncmp(form, PTB_FORM, strlen(PTB_FORM)) == 0;
	enum take_mode mode;

	if ((fresh || ptb) && n >= 10 &&
	    k->params[n - 1].size == 8 && k->params[n - 2].size == 8 &&
	    k->params[n - 3].size == 8 && k->params[n - 4].size == 8 && k->params[n - 5].size == 4) {
		uint64_t save = le_load(values[n - 1], 8);

		if (save && !fake_dev_range(save, 4))
			return CUDA_ERROR_LAUNCH_FAILED;
		n--;
	}
	if ((!fresh && !ptb) || n < 9 ||
	    k->params[n - 1].size != 8 || k->params[n - 2].size != 8 || k->params[n - 3].size != 8 ||
	    k->params[n - 4].size != 4 || k->params[n - 5].size != 4 || k->params[n - 6].size != 4)
		return CUDA_SUCCESS;
	for (i = n - 9; i < n - 6; i++) {
		if (k->params[i].size != 4)
			return CUDA_SUCCESS;
		total *= le_load(values[i], 4);
	}
	park = le_load(values[n - 6], 4);
	base = le_load(values[n - 5], 4);
	/*
	 * The ring's capacity, as the variant computes it (ptb.c): a helper's is
	 * its launch's; a fresh launch's is twice slot_base, whatever its grid.
	 * A fresh launch takes at most a block a worker and none from the ring;
	 * a looping one with park 2 only drains the ring.
	 */
	ring = fresh || workers <= base ? base : workers;
	mode = fresh ? TAKE_FRESH : park == 2 ? TAKE_DRAIN : TAKE_LOOP;
	/* Helpers are the launches with their own bank of slots (slot_base above 0). */
	if (!park && base && !fresh && no_helpers && strcmp(no_helpers, "1") == 0)
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	/* On a GPU, a control pointer outside device memory faults the launch. */
	stop = le_load(values[n - 2], 8);
	redo = le_load(values[n - 1], 8);
	if (!(ctl = fake_dev_range(le_load(values[n - 3], 8), 16)) || !fake_dev_range(stop, 4) ||
	    (redo && !fake_dev_range(redo, 4)))
		return CUDA_ERROR_LAUNCH_FAILED;
	before = fake_resident_on(stream);
	if (before && !resident_holds(before)) {
		/* Behind a wait on its stream: it starts when the wait is met (fake_progress). */
		if (!(r = resident_new(k->name, stream, values, n, total, ring)))
			return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
		r->parks = park == 1;
		r->mode = mode;
		r->left = fresh ? workers : UINT64_MAX;
		r->queued = true;
		r->after = before;
		coloc_buf_printf(line, " queued=%u", r->id);
		*stays = true;
		return CUDA_SUCCESS;
	}
	/* The launch on the application's stream (not a helper or a drain) stays on the GPU a while. */
	if (stop_env && (park == 1 || !base || fresh))
		stop_after = strtoull(stop_env, NULL, 10);
	ran = ptb_blocks(ctl, stop, park == 1, total,
			 fresh && workers < stop_after ? workers : stop_after, redo, (uint32_t)(2 * ring),
			 mode);
	coloc_buf_printf(line, " ran=%llu", (unsigned long long)ran);
	*blocks = ran;
	if (le_load(ctl, 4) >= total && !(park == 1 && le_load(ctl + 4, 4) < total) &&
	    (mode != TAKE_DRAIN || le_load(ctl + 8, 4) == le_load(ctl + 12, 4)))
		return CUDA_SUCCESS;
	if ((fresh && ran >= workers) || mode == TAKE_DRAIN)
		return CUDA_SUCCESS; /* every worker ran its block; the ring is empty */
	if (park != 1 && ptb_stopped(stop, false, false))
		return CUDA_SUCCESS; /* stopped, no parker: the workers left */
	if (!(r = resident_new(k->name, stream, values, n, total, ring)))
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	r->parks = park == 1;
	r->mode = mode;
	r->left = fresh ? workers - ran : UINT64_MAX;
	r->finish_ns = fake_now_ns() + (us && *us ? strtoull(us, NULL, 10) * 1000u : 0);
	r->parked = park == 1 && ptb_stopped(stop, false, true);
	coloc_buf_printf(line, " %s=%u", r->parked ? "parked" : "resident", r->id);
	*stays = true; /* its time is COLOC_FAKE_RESIDENT_US, not COLOC_FAKE_KERNEL_US */
	return CUDA_SUCCESS;
}

static CUresult launch_run(struct coloc_buf *line, const struct launch *l)
{
	const unsigned char **values = NULL;
	struct fake_kernel *k;
	struct fake_graph *graph;
	CUresult rc, fn_rc, stream_rc;
	bool stays = false;
	uint64_t threads, blocks = 0;
	unsigned i;

	fn_rc = fake_put_fn(line, l->fn, &k);
	coloc_buf_printf(line, " grid=%u,%u,%u block=%u,%u,%u shmem=%u", l->grid[0], l->grid[1],
			 l->grid[2], l->block[0], l->block[1], l->block[2], l->shmem);
	stream_rc = fake_put_stream(line, l->stream);
	if (l->ex) {
		coloc_buf_puts(line, " attrs=");
		for (i = 0; l->attrs && i < l->nattrs; i++)
			coloc_buf_printf(line, "%s%d", i ? "," : "", l->attrs[i].id);
	}
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = fn_rc) != CUDA_SUCCESS ||
	    (rc = stream_rc) != CUDA_SUCCESS)
		return rc;
	if (l->ex && l->nattrs && !l->attrs)
		return CUDA_ERROR_INVALID_VALUE;
	threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	if (!l->grid[0] || !l->grid[1] || !l->grid[2] || !threads || threads > 1024 ||
	    l->block[2] > 64 || l->grid[1] > 65535 || l->grid[2] > 65535)
		return CUDA_ERROR_INVALID_VALUE;
	/* As on the GPU: more than 48 KiB only after the kernel opted in for as much. */
	if (l->shmem > LIMIT_DYNAMIC_SHMEM &&
	    l->shmem > (unsigned)k->attrs[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES])
		return CUDA_ERROR_INVALID_VALUE;
	if (!(values = calloc(k->nparams + 1, sizeof(*values))))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = param_values(l, k, values);
	if (rc == CUDA_SUCCESS) {
		coloc_buf_puts(line, " params=");
		for (i = 0; i < k->nparams; i++) {
			if (i)
				coloc_buf_putc(line, ',');
			put_value(line, values[i], k->params[i].size);
		}
		if (l->extra)
			coloc_buf_puts(line, " packed=1");
		if ((graph = fake_capture_put(line, l->stream))) {
			/* Recorded, not run: the graph runs it at each cuGraphLaunch. */
			fake_capture_kernel(graph, k, (uint64_t)l->grid[0] * l->grid[1] * l->grid[2]);
			free(values);
			return CUDA_SUCCESS;
		}
		rc = ptb_run(line, k, values, l->stream, l->grid[0], &stays, &blocks);
	}
	if (rc == CUDA_SUCCESS && !stays) {
		/* The device holds `wave` blocks at once; a persistent variant, its workers. */
		uint64_t wave = 132 * (uint64_t)fake_blocks_per_sm((unsigned)threads, k->registers);
		uint64_t grid = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];

		fake_kernel_ran(blocks ? blocks : grid, grid < wave ? grid : wave,
				!strncmp(k->name, "__coloc_", 8));
	}
	free(values);
	return rc;
}

/*
 * COLOC_FAKE_LAUNCH_US=N: a kernel launch waits N us, unlocked, before it
 * does anything, as a thread descheduled on its way into the driver.
 */
static void launch_delay(void)
{
	const char *delay = getenv("COLOC_FAKE_LAUNCH_US");

	if (delay && *delay)
		fake_sleep_until(fake_now_ns() + strtoull(delay, NULL, 10) * 1000u, CUDA_SUCCESS);
}

static CUresult launch_kernel(const char *name, CUfunction fn, unsigned gx, unsigned gy,
			      unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
			      CUstream stream, void **params, void **extra)
{
	struct launch l = {.fn = fn,
			   .grid = {gx, gy, gz},
			   .block = {bx, by, bz},
			   .shmem = shmem,
			   .stream = stream,
			   .params = params,
			   .extra = extra};
	struct coloc_buf line;

	launch_delay();
	fake_begin(&line, name);
	if (getenv("COLOC_FAKE_LAUNCH_FAIL") && strcmp(getenv("COLOC_FAKE_LAUNCH_FAIL"), "1") == 0)
		return fake_end(&line, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
	return fake_end(&line, launch_run(&line, &l));
}

CUresult cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
			unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			CUstream stream, void **params, void **extra)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
			     unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			     CUstream stream, void **params, void **extra)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction fn, unsigned int gx, unsigned int gy,
				   unsigned int gz, unsigned int bx, unsigned int by,
				   unsigned int bz, unsigned int shmem, CUstream stream,
				   void **params)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, NULL);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction fn, unsigned int gx, unsigned int gy,
					unsigned int gz, unsigned int bx, unsigned int by,
					unsigned int bz, unsigned int shmem, CUstream stream,
					void **params)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, NULL);
}

static CUresult launch_kernel_ex(const char *name, const CUlaunchConfig *c, CUfunction fn,
				 void **params, void **extra)
{
	struct coloc_buf line;
	struct launch l;

	launch_delay();
	fake_begin(&line, name);
	if (!c) {
		coloc_buf_puts(&line, " config=(null)");
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	}
	l = (struct launch){
		.fn = fn,
		.grid = {c->gridDimX, c->gridDimY, c->gridDimZ},
		.block = {c->blockDimX, c->blockDimY, c->blockDimZ},
		.shmem = c->sharedMemBytes,
		.stream = c->hStream,
		.ex = true,
		.attrs = c->attrs,
		.nattrs = c->numAttrs,
		.params = params,
		.extra = extra,
	};
	return fake_end(&line, launch_run(&line, &l));
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction fn, void **params, void **extra)
{
	return launch_kernel_ex(__func__, config, fn, params, extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction fn, void **params,
			       void **extra)
{
	return launch_kernel_ex(__func__, config, fn, params, extra);
}
