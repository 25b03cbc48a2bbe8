/*
 * Launches.
 *
 * A latency tenant's launches go to the driver at once, untouched.  A
 * best-effort launch runs in a preemptible form when its kernel has one:
 *
 *   ptb    W persistent workers (as many as fit on the device at once, or
 *          COLOC_FORM=ptb:W) on the application's stream, after a 4-byte
 *          memset that zeroes the launch's control block there; of the
 *          form and its register-capped copies (passes/regcap.h), the one
 *          that runs the grid in the fewest rounds, with the most registers.
 *   slice  the grid cut into slices (one wave of the device each, or
 *          COLOC_FORM=slice:N; runtime/plan.c), launched one after another
 *          on the application's stream.
 *
 * Everything goes onto the application's own stream, in order, so stream
 * order, events and every synchronization call mean what they meant
 * (docs/runtime-design.md).  Cooperative and cluster launches, and kernels
 * colocc did not capture or could not transform run original; each
 * fallback is counted and its reason logged once per kernel.  A launch
 * recorded into a graph (its stream is being captured), or made by a thread
 * that may not synchronize while a capture is open, goes to the driver
 * untouched: not gated, not timed, no variant (graph.c says why).
 *
 * Before anything of a best-effort launch goes to the GPU, and before each
 * slice, sched.c holds the launching thread while a latency tenant of the
 * GPU has work in flight; a latency launch tells the coordinator before
 * and after it goes to the driver (sched.c; in the common case inline in
 * the exported wrapper, hooks.c).
 * A persistent kernel that already runs is stopped by preempt.c when the
 * latency tenant turns busy, and resumed by helpers when it is idle.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "pass.h"
#include "plan.h"
#include "pool.h"
#include "scheduler.h"

/* One launch as the application asked for it. */
struct launch {
	CUfunction fn;
	struct coloc_dim3 grid, block;
	unsigned shmem;
	CUstream stream;
	void **params;
	void **extra;
	const CUlaunchConfig *config; /* cuLaunchKernelEx, else NULL */
	bool cooperative;             /* cuLaunchCooperativeKernel: always original */
	enum coloc_stream_flavor flavor;
	void *real;                   /* the driver's launch function */
};

/* Counts a launch in the statistics and in the tenant's coordinator slot. */
static void count(enum coloc_stat s, enum coloc_tenant_counter c)
{
	coloc_stat_add(s, 1);
	coloc_sched_count(c, 1);
}

/* The application's launch as it made it, after the held launches it must follow (fence.c). */
static CUresult launch_unchanged(const struct launch *l)
{
	CUresult rc;

	coloc_fence_begin(l->stream, l->flavor);
	if (l->config)
		rc = COLOC_CAST(cuLaunchKernelEx_fn, l->real)(l->config, l->fn, l->params, l->extra);
	else if (l->cooperative)
		rc = COLOC_CAST(cuLaunchCooperativeKernel_fn, l->real)(
			l->fn, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y, l->block.z,
			l->shmem, l->stream, l->params);
	else
		rc = COLOC_CAST(cuLaunchKernel_fn, l->real)(l->fn, l->grid.x, l->grid.y, l->grid.z,
							    l->block.x, l->block.y, l->block.z,
							    l->shmem, l->stream, l->params, l->extra);
	coloc_fence_end();
	return rc;
}

/* How a best-effort launch of the original is admitted (scheduler.h). */
enum admit {
	ADMIT_FORM,    /* the kernel has other forms: the original was chosen (COLOC_BE_DEPTH) */
	ADMIT_GATED,   /* the original is its only form (COLOC_GATED_DEPTH) */
	ADMIT_ALREADY, /* it passed coloc_sched_issue_try */
};

/* `cost_ns`: its measured time within the bound, for the depth (0: unknown). */
static CUresult launch_original(const struct launch *l, struct coloc_probe *probe,
				enum admit admit, uint64_t cost_ns)
{
	bool be = coloc_cfg.role == COLOC_ROLE_BEST_EFFORT;
	struct coloc_mark *mark = NULL;
	CUresult rc;

	if (be) {
		if (admit == ADMIT_FORM)
			coloc_sched_issue_begin(false, cost_ns);
		else if (admit == ADMIT_GATED)
			coloc_sched_issue_begin_gated(cost_ns);
		count(STAT_LAUNCH_ORIGINAL, TC_LAUNCH_ORIGINAL);
		coloc_profile_start(probe, l->stream, l->flavor);
	} else {
		mark = coloc_sched_latency_launch(l->fn, l->stream, l->flavor);
	}
	rc = launch_unchanged(l);
	if (be && rc == CUDA_SUCCESS)
		coloc_sched_issue_end(l->stream, l->flavor, cost_ns);
	else if (!be)
		coloc_sched_latency_issued(mark, rc == CUDA_SUCCESS);
	return rc;
}

/*
 * `cost_ns`: what the original was measured to take (0: unknown), for the
 * depth.  Logged once per kernel: at its first launch (`first`), or, for a
 * kernel of a transformed module, the first time it falls back.
 */
static CUresult fallback(const struct launch *l, struct coloc_kernel_info *k, bool first,
			 const char *name, const char *why, struct coloc_probe *probe,
			 uint64_t cost_ns)
{
	count(STAT_LAUNCH_FALLBACK, TC_LAUNCH_FALLBACK);
	if (k ? !k->fallback_logged : first)
		coloc_log(COLOC_LOG_INFO, "kernel '%s' runs original: %s", name ? name : "?", why);
	if (k)
		k->fallback_logged = true;
	return launch_original(l, probe, ADMIT_GATED, cost_ns);
}

/* The driver's call, after other threads' held launches it must follow (fence.c). */
static CUresult launch_variant(const struct launch *l, CUfunction fn, struct coloc_dim3 grid,
			       void **params)
{
	CUresult rc;

	coloc_fence_begin(l->stream, l->flavor);
	if (l->config) {
		CUlaunchConfig c = *l->config;

		c.gridDimX = grid.x;
		c.gridDimY = grid.y;
		c.gridDimZ = grid.z;
		rc = COLOC_CAST(cuLaunchKernelEx_fn, l->real)(&c, fn, params, NULL);
	} else {
		rc = COLOC_CAST(cuLaunchKernel_fn, l->real)(fn, grid.x, grid.y, grid.z, l->block.x,
							    l->block.y, l->block.z, l->shmem,
							    l->stream, params, NULL);
	}
	coloc_fence_end();
	return rc;
}

/*
 * The variant's parameters: the application's, then the added ones.  With
 * `extra`, the packed buffer is unpacked by the kernel's own layout so that
 * both ways of passing parameters become one.
 */
struct params {
	void *ptr[256 + COLOC_MAX_ADDED];
	uint64_t added[COLOC_MAX_ADDED];
	unsigned n;
};

static int params_build(struct params *p, const struct launch *l,
			const struct coloc_kernel_info *k, const char **why)
{
	if (k->nparams > 256) {
		*why = "more than 256 parameters";
		return -1;
	}
	if (l->params) {
		memcpy(p->ptr, l->params, k->nparams * sizeof(void *));
	} else if (l->extra) {
		char *buf = NULL;
		size_t size = 0, off = 0;

		for (void **e = l->extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
			if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				buf = e[1];
			else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE)
				size = *(size_t *)e[1];
			else {
				*why = "the launch passes an `extra` option colocc does not know";
				return -1;
			}
		}
		for (unsigned i = 0; i < k->nparams; i++) {
			off = (off + k->param_align[i] - 1) / k->param_align[i] * k->param_align[i];
			if (!buf || off + k->param_size[i] > size) {
				*why = "its packed parameter buffer is smaller than the kernel's parameters";
				return -1;
			}
			p->ptr[i] = buf + off;
			off += k->param_size[i];
		}
	} else if (k->nparams) {
		*why = "the launch gives no parameters";
		return -1;
	}
	p->n = k->nparams;
	return 0;
}

/* The values of a persistent launch's own parameters. */
struct ptb_values {
	CUdeviceptr control, stop, redo, save;
	unsigned park, slot_base, batch;
};

static void params_add(struct params *p, const struct coloc_kernel_info *k, int form,
		       struct coloc_dim3 grid, struct coloc_dim3 offset, const struct ptb_values *ptb)
{
	for (unsigned i = 0; i < k->nadded[form]; i++) {
		uint64_t v = 0;

		switch (k->added[form][i].role) {
		case PASS_PARAM_GRID_X: v = grid.x; break;
		case PASS_PARAM_GRID_Y: v = grid.y; break;
		case PASS_PARAM_GRID_Z: v = grid.z; break;
		case PASS_PARAM_OFFSET_X: v = offset.x; break;
		case PASS_PARAM_OFFSET_Y: v = offset.y; break;
		case PASS_PARAM_OFFSET_Z: v = offset.z; break;
		case PASS_PARAM_CONTROL: v = ptb ? ptb->control : 0; break;
		case PASS_PARAM_PARK: v = ptb ? ptb->park : 0; break;
		case PASS_PARAM_STOP: v = ptb ? ptb->stop : 0; break;
		case PASS_PARAM_SLOT_BASE: v = ptb ? ptb->slot_base : 0; break;
		case PASS_PARAM_BATCH: v = ptb && ptb->batch ? ptb->batch : 1; break;
		case PASS_PARAM_REDO: v = ptb ? ptb->redo : 0; break;
		case PASS_PARAM_SAVE: v = ptb ? ptb->save : 0; break;
		}
		/* Little-endian: a u32 parameter reads the low half of the slot. */
		p->added[i] = v;
		p->ptr[k->nparams + i] = &p->added[i];
	}
	p->n = k->nparams + k->nadded[form];
}

/* Blocks of `fn` the whole device runs at once with this block shape. */
static unsigned device_wave(CUfunction fn, const struct launch *l)
{
	CUdevice dev;
	int sms = 0, per_sm = 0;
	unsigned threads = l->block.x * l->block.y * l->block.z;

	if (REAL(cuCtxGetDevice)(&dev) != CUDA_SUCCESS ||
	    REAL(cuDeviceGetAttribute)(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) ||
	    REAL(cuOccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, fn, (int)threads,
								l->shmem) != CUDA_SUCCESS)
		return 0;
	return sms > 0 && per_sm > 0 ? (unsigned)sms * (unsigned)per_sm : 0;
}

/*
 * The variant's parameters packed as the kernel lays them out (each at its
 * alignment), for helpers launched later through `extra`.  Returns the size,
 * 0 when it does not fit; *park_offset: where the park parameter is.
 */
static size_t params_pack(const struct params *p, const struct coloc_kernel_info *k, int form,
			  unsigned char *buf, size_t cap, size_t *park_offset, size_t *base_offset)
{
	size_t off = 0;

	for (unsigned i = 0; i < p->n; i++) {
		bool added = i >= k->nparams;
		size_t size = added ? k->added[form][i - k->nparams].size : k->param_size[i];
		size_t align = added ? k->added[form][i - k->nparams].align : k->param_align[i];

		off = (off + align - 1) / align * align;
		if (off + size > cap)
			return 0;
		memcpy(buf + off, p->ptr[i], size);
		if (added && k->added[form][i - k->nparams].role == PASS_PARAM_PARK)
			*park_offset = off;
		if (added && k->added[form][i - k->nparams].role == PASS_PARAM_SLOT_BASE)
			*base_offset = off;
		off += size;
	}
	return off;
}

static uint64_t blocks_of(struct coloc_dim3 g)
{
	return (uint64_t)g.x * g.y * g.z;
}

/* device_wave of a level, remembered for the last block shape launched. */
static unsigned level_wave(struct coloc_level *e, const struct launch *l)
{
	uint64_t threads = (uint64_t)l->block.x * l->block.y * l->block.z;
	uint64_t key = (threads | (uint64_t)l->shmem << 11) + 1, memo;
	unsigned wave;

	memo = __atomic_load_n(&e->wave_memo, __ATOMIC_RELAXED);
	if (memo >> 32 == key)
		return (unsigned)memo;
	wave = device_wave(e->fn, l);
	if (wave && key < (1ull << 32))
		__atomic_store_n(&e->wave_memo, key << 32 | wave, __ATOMIC_RELAXED);
	return wave;
}

/*
 * Of a persistent function and its register-capped copies (passes/regcap.h),
 * the one that runs the launch's blocks, at most `workers` at once
 * (COLOC_FORM=ptb:W; 0: as many as fit), in the fewest rounds, and of those
 * the one with the most registers: a copy spills what the function keeps in
 * registers, which pays only where it saves a round.  Its wave in *wave;
 * NULL when the device's occupancy is unknown for all.
 */
static const struct coloc_level *level_pick(struct coloc_levels *lv, const struct launch *l,
					    unsigned workers, unsigned *wave)
{
	const struct coloc_level *best = NULL;
	uint64_t total = blocks_of(l->grid), rounds, fewest = UINT64_MAX;

	*wave = 0;
	for (unsigned i = 0; i < lv->n && fewest > 1; i++) {
		unsigned w = level_wave(&lv->e[i], l), at_once = workers && workers < w ? workers : w;

		if (!w)
			continue;
		rounds = (total + at_once - 1) / at_once;
		if (rounds < fewest) {
			best = &lv->e[i];
			fewest = rounds;
			*wave = w;
		}
	}
	return best;
}

/*
 * Relaunches behind waits for a launch parked on the stream: COLOC_PARK_LINKS
 * (`base`) and one per 250 us the form was measured to take (24 while it
 * has no measurement), 64 at most.  Every busy edge of the latency tenant
 * while the launch runs costs it one (a graphed ResNet-50 at load 0.5 turns
 * busy about 500 times a second, and the launch runs only in the gaps), and
 * a launch stopped more often than that keeps a paused worker on the GPU
 * at its later stops, which under time-slicing runs beside the latency
 * tenant.  An empty relaunch costs a launch whose workers leave at once.
 */
static unsigned links_for(unsigned base, uint64_t estimate_ns)
{
	uint64_t n = base + (estimate_ns ? estimate_ns / 250000u : 24u);

	return n > 64 ? 64 : (unsigned)n;
}

/*
 * A launch parked on the stream (COLOC_PARK, preempt.c park_links): after
 * its first launch, slot->links times a wait for the stop's clear and a
 * relaunch with the same control block, which takes what the launch before
 * left (nothing, unless it was stopped: its workers then exit at once); the
 * last relaunch has a paused worker, for a kernel stopped more often.  The
 * first launch ran: a failure here cannot give the launch back to the
 * original, so it is logged, and the watcher's helpers finish the blocks
 * left at the next clear, maybe after work that followed on the stream.
 */
static void ptb_links(const struct launch *l, const struct coloc_kernel_info *k, CUfunction fn,
		      struct coloc_dim3 wgrid, struct params *p, struct ptb_values *v,
		      const struct coloc_ptb_slot *slot)
{
	struct coloc_dim3 none = { 0, 0, 0 };
	CUresult rc = CUDA_SUCCESS;
	const char *what = NULL;

	for (unsigned i = 1; i <= slot->links && rc == CUDA_SUCCESS; i++) {
		what = "wait";
		if ((rc = coloc_ptb_wait(slot, l->stream, l->flavor)) != CUDA_SUCCESS)
			break;
		what = "relaunch";
		v->park = i == slot->links ? slot->park : 0;
		params_add(p, k, VARIANT_PTB, l->grid, none, v);
		rc = launch_variant(l, fn, wgrid, p->ptr);
	}
	if (rc != CUDA_SUCCESS) {
		coloc_ptb_abandon(slot);
		coloc_stat_add(STAT_PARK_BROKEN, 1);
		coloc_log(COLOC_LOG_ERROR, "preemption: the driver refused a %s after a persistent "
			  "launch (error %d); if it is stopped, work after it on its stream may start "
			  "before its blocks are done", what, rc);
	}
}

static uint64_t hold_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * COLOC_PARK=host: persistent launches measured shorter than this go sliced,
 * into slices measured short, or of a wave for a kernel that short itself
 * (COLOC_HOLD_SLICE_TURNS, profile.c's short_slices).
 */
#define HOLD_MIN_NS 500000u
/* ... and a held launch that gets no block done for this long is let go (logged). */
#define HOLD_STALL_NS 60000000000ull
/* ... and one relaunched this often with no block done is logged (once). */
#define HOLD_IDLE_ROUNDS 1000u

/*
 * COLOC_FRESH: a held launch runs the kernel's one-block-a-worker variant
 * (ptb.c's fresh: no loop, so ptxas keeps it at the original's registers;
 * on the GPT trainer's GEMMs 0.78-0.84 of the
 * original against 0.58-0.70 for the looping form's capped copy,
 * benchmarks/results/2026-11-27-h200/session13/) a few waves at a time: a
 * worker that starts after a stop leaves at once, but it still has to
 * start, about 1 us a wave on an H200, so a launch of the whole grid would
 * keep the GPU for up to a tenth of a millisecond after every stop.  A
 * chunk is sized to take about FRESH_CHUNK_NS by the profiler's estimate
 * (the thread's wait and relaunch between chunks cost some microseconds),
 * within FRESH_CHUNK_WAVES_MIN and _MAX waves.  Blocks a stop gave up go
 * to the redo ring, saved; before the next chunk the looping form drains
 * it (park 2: its workers leave when the ring is empty), restoring each
 * where it stopped.  Every launch of the record has slot_base = the larger
 * of the looping form's workers and the fresh variant's wave (run_ptb's
 * `ring`), so that all agree on the ring's capacity, which holds what
 * either gives up at once.
 */
#define FRESH_CHUNK_NS 2000000ull
#define FRESH_CHUNK_WAVES_MIN 2u
#define FRESH_CHUNK_WAVES_MAX 16u
#define FRESH_CHUNK_WAVES_GUESS 4u

struct fresh_plan {
	CUfunction fn;     /* the fresh variant, or one of its register-capped copies */
	unsigned wave;     /* its workers the device holds at once */
	unsigned chunk;    /* blocks a launch of it covers */
	unsigned workers;  /* the looping form's: a drain has at most this many */
	int park;          /* where park is among the parameters' added values */
};

/*
 * A launch held by its thread (COLOC_PARK=host): it went with park 0, so a
 * stop lets every worker leave and the kernel end with blocks left; the
 * thread, which would put the next work on the stream, waits for it, and
 * relaunches it with the same control block (given-up blocks first) once
 * no latency tenant is busy, as often as it is stopped.  Stream order
 * holds without anything of it on the GPU or queued on the stream while
 * it is stopped; the thread gives up the overlap of this one launch with
 * the work it would launch next.  With `fresh` (COLOC_FRESH, above) a
 * relaunch is a drain of the ring when it holds blocks, else the next
 * chunk.  A driver error ends the wait, logged: work after the launch may
 * then start before its blocks are done.
 */
static void ptb_hold(const struct launch *l, CUfunction fn, struct coloc_dim3 wgrid,
		     struct params *p, struct coloc_ptb_slot *slot, uint64_t total,
		     const struct fresh_plan *fresh)
{
	uint64_t relaunches = 0, chunks = 1, drains = 0, progress_ns = hold_now_ns();
	uint32_t hdr[4] = { 0 }, done = 0, seen = 0, idle_rounds = 0;
	CUresult rc;

	/*
	 * The thread keeps the GPU gate (memory.c) it entered for the launch to
	 * the end: another thread that waits for this hold (fence.c) may hold
	 * the gate, and a swap waiting to close it would keep this thread from
	 * entering it again.  A swap of the tenant's memory waits for the hold.
	 */
	while ((rc = coloc_ptb_hold_done(slot, hdr)) == CUDA_SUCCESS && (done = hdr[1]) < total) {
		/* Stopped again and again with no block done is no reason to hang: a minute. */
		if (done != seen) {
			seen = done;
			progress_ns = hold_now_ns();
			idle_rounds = 0;
		} else if (++idle_rounds == HOLD_IDLE_ROUNDS) {
			coloc_log(COLOC_LOG_WARN, "preemption: a held persistent launch was relaunched "
				  "%u times with no block done (header: next %u, done %u, redo ring "
				  "%u..%u, of %llu blocks)", idle_rounds, hdr[0], hdr[1], hdr[2], hdr[3],
				  (unsigned long long)total);
		} else if (hold_now_ns() - progress_ns > HOLD_STALL_NS) {
			rc = CUDA_ERROR_LAUNCH_TIMEOUT;
			break;
		}
		coloc_sched_issue_begin(true, 0);
		coloc_ptb_hold_relaunch(slot);
		if (!fresh || (hdr[3] == hdr[2] && hdr[0] >= total)) {
			/* The looping form takes what is left (ring first): also what nothing else would. */
			rc = launch_variant(l, fn, wgrid, p->ptr);
			relaunches++;
		} else if (hdr[3] != hdr[2]) {
			/*
			 * The ring first, alone: a fresh launch queued behind a drain
			 * that a stop cut short would run once the stop is clear and
			 * could give more blocks up into a ring still holding the
			 * first ones, past its capacity (the GPT trainer hung so on
			 * an H200: a give-up waiting for a position whose entry
			 * nothing would take).
			 */
			struct coloc_dim3 g = { hdr[3] - hdr[2] < fresh->workers ? hdr[3] - hdr[2]
										   : fresh->workers,
						1, 1 };

			p->added[fresh->park] = 2;
			rc = launch_variant(l, fn, g, p->ptr);
			p->added[fresh->park] = 0;
			drains++;
		} else {
			struct coloc_dim3 g = { total - hdr[0] < fresh->chunk ? (unsigned)(total - hdr[0])
									       : fresh->chunk,
						1, 1 };

			rc = launch_variant(l, fresh->fn, g, p->ptr);
			chunks++;
		}
		if (rc != CUDA_SUCCESS)
			break;
		coloc_ptb_hold_again(slot, l->stream, l->flavor);
		coloc_sched_issue_end(l->stream, l->flavor, 0);
	}
	if (rc != CUDA_SUCCESS)
		coloc_ptb_abandon(slot);
	coloc_ptb_hold_end(slot);
	if (relaunches)
		coloc_stat_add(STAT_HOLD_RELAUNCHES, relaunches);
	if (fresh) {
		coloc_stat_add(STAT_FRESH_LAUNCHES, chunks);
		coloc_stat_add(STAT_FRESH_DRAINS, drains);
	}
	if (rc != CUDA_SUCCESS)
		coloc_log(COLOC_LOG_ERROR, "preemption: a held persistent launch %s (error %d, "
			  "%u of %llu blocks done); work after it on its stream may start before "
			  "its blocks are done",
			  rc == CUDA_ERROR_LAUNCH_TIMEOUT ? "got no block done for a minute" : "failed",
			  rc, done, (unsigned long long)total);
}

/*
 * COLOC_FRESH: which fresh variant a launch runs, of the variant and its
 * register-capped copies (level_pick), and how many of its workers the
 * device holds at once; false when there is none.
 */
static bool fresh_pick(struct fresh_plan *fp, struct coloc_kernel_fns *fns,
		       const struct launch *l)
{
	const struct coloc_level *e = level_pick(&fns->fresh, l, 0, &fp->wave);

	fp->fn = e ? e->fn : NULL;
	return e != NULL;
}

/*
 * The rest of the plan of a held launch of `total` blocks whose looping form
 * runs `workers` at once: the chunk, and where park is among the
 * parameters; false when the launch cannot go fresh.
 */
static bool fresh_plan(struct fresh_plan *fp, const struct coloc_kernel_info *k,
		       const struct launch *l, unsigned workers, uint64_t estimate_ns,
		       const struct params *p)
{
	unsigned waves = FRESH_CHUNK_WAVES_GUESS;
	uint64_t total = blocks_of(l->grid);

	fp->park = -1;
	for (unsigned i = 0; i < k->nadded[VARIANT_PTB]; i++)
		if (k->added[VARIANT_PTB][i].role == PASS_PARAM_PARK)
			fp->park = (int)i;
	if (fp->park < 0 || p->added[fp->park] != 0)
		return false;
	/* The estimate is the looping form's, of ceil(total / workers) rounds. */
	if (estimate_ns && workers) {
		uint64_t round_ns = estimate_ns / ((total + workers - 1) / workers);

		waves = round_ns ? (unsigned)(FRESH_CHUNK_NS / round_ns) : FRESH_CHUNK_WAVES_MAX;
		if (waves < FRESH_CHUNK_WAVES_MIN)
			waves = FRESH_CHUNK_WAVES_MIN;
		if (waves > FRESH_CHUNK_WAVES_MAX)
			waves = FRESH_CHUNK_WAVES_MAX;
	}
	fp->chunk = (uint64_t)fp->wave * waves > UINT32_MAX ? UINT32_MAX : fp->wave * waves;
	fp->workers = workers;
	return true;
}

static CUresult run_ptb(const struct launch *l, struct coloc_kernel_info *k,
			struct coloc_kernel_fns *fns, unsigned workers, unsigned batch,
			struct coloc_probe *probe, struct coloc_turn_ref turns, uint64_t estimate_ns,
			unsigned *units, const char **why)
{
	CUfunction fn = fns->fn[VARIANT_PTB];
	struct params p;
	struct coloc_ptb_slot slot;
	struct ptb_values v;
	struct coloc_dim3 none = { 0, 0, 0 }, wgrid;
	struct fresh_plan fp;
	unsigned ring;
	bool use_fresh;
	static __thread unsigned char packed[4096 + 64 * COLOC_MAX_ADDED];
	size_t packed_size, park_offset = SIZE_MAX, base_offset = SIZE_MAX;
	int fence_slot = -1;
	CUresult rc;

	if (params_build(&p, l, k, why) < 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	{
		unsigned wave;
		const struct coloc_level *e = level_pick(&fns->ptb, l, workers, &wave);

		/* With the occupancy unknown, COLOC_FORM=ptb:W's W workers of the variant itself. */
		if (!e && !workers) {
			*why = "the device's occupancy for its persistent form is unknown";
			return CUDA_ERROR_NOT_SUPPORTED;
		}
		if (e)
			fn = e->fn;
		if (!workers)
			workers = wave;
	}
	if (workers > blocks_of(l->grid))
		workers = (unsigned)blocks_of(l->grid);
	/* The counter goes past the grid by a batch per worker and helper: no wrap. */
	if (batch > 1 && blocks_of(l->grid) + 2ull * workers * batch > UINT32_MAX)
		batch = 1;
	*units = workers;
	coloc_sched_issue_begin(true, 0);
	coloc_profile_start(probe, l->stream, l->flavor);
	/*
	 * A header of four words; kernels that broadcast through global
	 * memory keep two words per worker after it: the launch's workers use
	 * the first W pairs, its helpers (one at a time on the helper stream)
	 * the next W.
	 */
	/*
	 * Other threads' work on the stream waits for the whole held launch
	 * (fence.c).  Published before the launch and outside the context's
	 * lock, which coloc_ptb_begin takes: registering may wait.
	 */
	if (coloc_ptb_holds())
		fence_slot = coloc_hold_register(l->stream, l->flavor);
	/*
	 * COLOC_RESUME: a save area for the ring's positions (passes/resume.c's
	 * layout), where the launch has a ring.  Its helpers get the same area
	 * (params_pack copies the parameter), narrowed ones included: the ring's
	 * capacity is twice the larger of the workers and slot_base, the same
	 * for the launch and every helper (docs/passes.md "The ring's capacity";
	 * diffrun's park storm, whose helpers have a random number of workers,
	 * passed on an H200 with -S, benchmarks/results/2026-11-27-h200/session12).
	 */
	/*
	 * COLOC_FRESH: the ring (and the save area) must also hold what a
	 * fresh launch's resident workers give up at once, which can be more
	 * than the looping form's workers (fewer registers, more blocks an SM);
	 * every launch of the record then has slot_base `ring`.
	 */
	/* COLOC_FORM=ptb:W asks for W workers: the looping form, which has them. */
	use_fresh = coloc_cfg.fresh && !(coloc_cfg.form == COLOC_FORM_PTB && coloc_cfg.workers) &&
		    !k->ptb_global_slots && batch <= 1 && coloc_ptb_holds() && fresh_pick(&fp, fns, l);
	ring = workers;
	if (use_fresh && fp.wave > ring)
		ring = fp.wave < blocks_of(l->grid) ? fp.wave : (unsigned)blocks_of(l->grid);
	slot.save_bytes = slot.save_busy = 0;
	if (k->resume_thread_bytes && coloc_cfg.restart && batch <= 1 &&
	    2ull * ring <= COLOC_REDO_ENTRIES) {
		uint64_t cap = 2ull * ring;
		uint64_t threads = (uint64_t)l->block.x * l->block.y * l->block.z;

		slot.save_busy = (size_t)((4 * cap + 255) / 256 * 256);
		slot.save_bytes = slot.save_busy +
				  (size_t)(cap * (k->resume_shared_bytes + threads * k->resume_thread_bytes));
	}
	if (coloc_ptb_begin(&slot, l->stream, l->flavor,
			    16 + (k->ptb_global_slots ? 16 * (size_t)workers : 0), why) < 0) {
		coloc_hold_unregister(fence_slot);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (slot.links)
		slot.links = links_for(slot.links, estimate_ns);
	v.control = slot.control;
	v.stop = slot.stop;
	v.park = slot.links || slot.hold ? 0 : slot.park;
	v.slot_base = 0;
	v.batch = batch;
	/* A ring too small for the launch's workers and a helper's: no block is given up. */
	v.redo = 2ull * ring <= COLOC_REDO_ENTRIES ? slot.redo : 0;
	v.save = v.redo ? slot.save : 0;
	if (slot.save_bytes && v.redo && !v.save)
		coloc_log(COLOC_LOG_DEBUG, "%s: no save area of %zu bytes free; its blocks given up "
			  "run again from their start", k->name, slot.save_bytes);
	/* COLOC_FRESH (above): every launch of the record agrees on the ring through slot_base. */
	use_fresh = use_fresh && slot.hold && (v.redo || !k->ptb_restart);
	if (use_fresh)
		v.slot_base = ring;
	params_add(&p, k, VARIANT_PTB, l->grid, none, &v);
	use_fresh = use_fresh && fresh_plan(&fp, k, l, workers, estimate_ns, &p);
	packed_size = params_pack(&p, k, VARIANT_PTB, packed, sizeof(packed), &park_offset,
				  &base_offset);
	if (slot.park && (!packed_size || park_offset == SIZE_MAX || base_offset == SIZE_MAX)) {
		/*
		 * No helper could resume it, and a stop or a narrowing would
		 * leave its blocks undone with no parker: the original runs.
		 */
		coloc_ptb_end(&slot, false, l->stream, l->flavor, fn, workers, l->block, l->shmem,
			      blocks_of(l->grid), NULL, 0, 0, 0);
		coloc_hold_unregister(fence_slot);
		*why = "its parameters do not fit colocc's buffer for resuming it";
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	wgrid.x = workers;
	wgrid.y = wgrid.z = 1;
	slot.turns = turns;
	if (use_fresh) {
		struct coloc_dim3 g = { blocks_of(l->grid) < fp.chunk ? (unsigned)blocks_of(l->grid)
								      : fp.chunk, 1, 1 };

		rc = launch_variant(l, fp.fn, g, p.ptr);
	} else {
		rc = launch_variant(l, fn, wgrid, p.ptr);
	}
	if (rc == CUDA_SUCCESS && slot.links)
		ptb_links(l, k, fn, wgrid, &p, &v, &slot);
	coloc_ptb_end(&slot, rc == CUDA_SUCCESS, l->stream, l->flavor, fn, workers, l->block,
		      l->shmem, blocks_of(l->grid), packed, packed_size, park_offset, base_offset);
	if (rc == CUDA_SUCCESS)
		coloc_sched_issue_end(l->stream, l->flavor, 0);
	if (rc == CUDA_SUCCESS && slot.hold) {
		int cancel;

		/* Not cancelled inside (nanosleep is a cancellation point): the hold must end. */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
		ptb_hold(l, fn, wgrid, &p, &slot, blocks_of(l->grid), use_fresh ? &fp : NULL);
		pthread_setcancelstate(cancel, NULL);
	}
	coloc_hold_unregister(fence_slot);
	if (rc != CUDA_SUCCESS) {
		*why = "the driver refused its persistent form";
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	count(STAT_LAUNCH_PTB, TC_LAUNCH_PTB);
	return rc;
}

static CUresult run_sliced(const struct launch *l, struct coloc_kernel_info *k, CUfunction fn,
			   unsigned slices, struct coloc_probe *probe, unsigned *units, const char **why)
{
	struct coloc_slice few[64], *plan = few;
	struct params p;
	uint64_t wanted = slices, n;
	CUresult rc = CUDA_SUCCESS;

	if (params_build(&p, l, k, why) < 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (!wanted) {
		unsigned wave = device_wave(fn, l);

		wanted = wave ? (blocks_of(l->grid) + wave - 1) / wave : 1;
	}
	n = coloc_slice_plan(l->grid, wanted, NULL, 0);
	if (n > sizeof(few) / sizeof(few[0]) && !(plan = malloc(n * sizeof(*plan)))) {
		*why = "out of memory planning its slices";
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	coloc_slice_plan(l->grid, wanted, plan, n);
	*units = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
	for (uint64_t i = 0; i < n && rc == CUDA_SUCCESS; i++) {
		params_add(&p, k, VARIANT_SLICE, l->grid, plan[i].offset, 0);
		coloc_sched_issue_begin(false, 0); /* between slices: the latency tenant goes first */
		if (i == 0)
			coloc_profile_start(probe, l->stream, l->flavor);
		rc = launch_variant(l, fn, plan[i].grid, p.ptr);
		if (rc == CUDA_SUCCESS)
			coloc_sched_issue_end(l->stream, l->flavor, 0);
		/* Nothing ran yet: the original can still take its place. */
		if (rc != CUDA_SUCCESS && i == 0) {
			*why = "the driver refused its first slice";
			rc = CUDA_ERROR_NOT_SUPPORTED;
		}
	}
	if (plan != few)
		free(plan);
	if (rc == CUDA_SUCCESS)
		count(STAT_LAUNCH_SLICE, TC_LAUNCH_SLICE);
	return rc;
}

/*
 * Without MPS the GPU time-slices between processes, and a stopped
 * persistent kernel that keeps a paused worker resident until it resumes
 * gets time slices beside the latency tenant for as long as that stays busy
 * (on the H200 a GPU-bound server ran 2.7 times slower).  Where stopped
 * kernels wait on their streams instead (COLOC_PARK, preempt.c) they are
 * fine; where they cannot (COLOC_PARK=worker, or the driver refused the
 * wait) the profiler chooses among the other forms under COLOC_FORM=auto;
 * COLOC_FORM=ptb still forces them.
 */
static const char *time_slicing_ptb_off(void)
{
	static int said;

	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		coloc_log(COLOC_LOG_INFO, "time-slicing (the device's contexts are not MPS clients) "
			  "and stopped kernels keep a paused worker: no persistent forms under "
			  "COLOC_FORM=auto, since that worker would run beside the latency tenant");
	return "persistent forms are off under time-slicing (a stopped one keeps a worker "
	       "resident)";
}

static bool capturing_stream(const struct launch *l)
{
	int status = 0;
	CUresult rc = l->flavor == STREAM_PTDS ? REAL(cuStreamIsCapturing_ptsz)(l->stream, &status) :
						 REAL(cuStreamIsCapturing)(l->stream, &status);

	return rc != CUDA_SUCCESS || status != 0;
}

/*
 * Best-effort kernel time by how it ran, from the profiler's estimate for
 * the form: what colocctl's coverage is made of.
 */
static void account(const struct coloc_run_form *run, bool preemptible)
{
	uint64_t ns = run->estimate_ns;

	if (!ns) {
		coloc_stat_add(STAT_LAUNCH_UNTIMED, 1);
		coloc_sched_count(TC_LAUNCH_UNTIMED, 1);
	} else if (preemptible) {
		coloc_stat_add(STAT_KTIME_PREEMPTIBLE, ns);
		coloc_sched_count(TC_KTIME_PREEMPTIBLE_NS, ns);
	} else if (ns <= coloc_cfg.turnaround_ns) {
		coloc_stat_add(STAT_KTIME_BOUNDED, ns);
		coloc_sched_count(TC_KTIME_BOUNDED_NS, ns);
	} else {
		coloc_stat_add(STAT_KTIME_UNBOUNDED, ns);
		coloc_sched_count(TC_KTIME_UNBOUNDED_NS, ns);
	}
}

static CUresult launch_best_effort(const struct launch *l)
{
	struct coloc_module *m;
	struct coloc_kernel_info *k = NULL;
	struct coloc_kernel_fns *fns;
	struct coloc_run_form run = { .form = FORM_ORIGINAL };
	struct coloc_probe *probe = NULL;
	const char *why = NULL, *ptb_off = NULL, *original = NULL;
	char *name = NULL;
	unsigned forms = 0, units = 0;
	bool first;
	CUresult rc;

	if (coloc_cfg.form == COLOC_FORM_ORIGINAL)
		return launch_original(l, NULL, ADMIT_GATED, 0);
	m = coloc_capture_kernel(l->fn, &name);
	if (!m) {
		rc = fallback(l, NULL, true, NULL, "colocc did not see its module loaded", NULL, 0);
		account(&run, false);
		return rc;
	}
	/* Its first launch is counted, with why it ran original if it did (colocctl status). */
	first = coloc_module_first_launch(m, name);
	if (!m->ptx) {
		original = m->no_ptx ? m->no_ptx : "no PTX";
		/* Timed all the same (profile.c), so that it counts its own time in the depth. */
		coloc_profile_choose(m, name, l->grid, l->block, l->shmem, 0, &run, &probe);
		rc = fallback(l, NULL, first, name, original, probe, run.estimate_ns);
		coloc_profile_stop(probe, l->stream, l->flavor, rc == CUDA_SUCCESS, 1);
		account(&run, false);
		goto out;
	}
	if (l->config) {
		for (unsigned i = 0; i < l->config->numAttrs; i++) {
			const CUlaunchAttribute *a = &l->config->attrs[i];

			if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative)
				why = "a cooperative launch";
			else if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
				why = "a cluster launch";
		}
	}
	if (why) {
		original = why;
		rc = fallback(l, k, first, name, why, NULL, 0);
		account(&run, false);
		goto out;
	}
	/*
	 * A communication kernel waits for its peers, which may be kernels this
	 * thread launches next (NCCL's group launches over several GPUs): held,
	 * stopped or sliced, it could wait for them forever.  Never transformed.
	 */
	if (coloc_sched_name_is_comm(name)) {
		static int logged;

		if (!__atomic_exchange_n(&logged, 1, __ATOMIC_RELAXED))
			coloc_log(COLOC_LOG_INFO, "communication kernels (NCCL's, e.g. '%s') run "
				  "original: they wait for their peers, which a stop, a held launch or "
				  "a slice could keep from running", name);
		count(STAT_LAUNCH_FALLBACK, TC_LAUNCH_FALLBACK);
		original = "a communication kernel (it waits for its peers)";
		rc = launch_original(l, NULL, ADMIT_GATED, 0);
		account(&run, false);
		goto out;
	}
	fns = coloc_variants_for(m, name, &k);
	if (!fns)
		why = !k ? (m->failed ? m->failed : "the kernel is not in its module's PTX") :
		      k->refused[VARIANT_PTB] ? k->refused[VARIANT_PTB] : "its variants are missing";
	if (fns && fns->fn[VARIANT_PTB] && coloc_cfg.form != COLOC_FORM_SLICE) {
		if (!coloc_ptb_usable())
			ptb_off = "persistent kernels are off in this context (its streams share a "
				  "hardware queue with colocc's stop stream)";
		else if (coloc_cfg.form == COLOC_FORM_AUTO && !coloc_sched_mps() &&
			 !coloc_ptb_parks_on_stream())
			ptb_off = time_slicing_ptb_off();
		else
			forms |= 1u << VARIANT_PTB;
	}
	if (fns && fns->fn[VARIANT_SLICE] && coloc_cfg.form != COLOC_FORM_PTB)
		forms |= 1u << VARIANT_SLICE;
	if ((forms & (1u << VARIANT_PTB)) && k->ptb_restart && coloc_cfg.restart)
		forms |= COLOC_FORMS_RESTART;
	if (fns && !forms)
		why = coloc_cfg.form == COLOC_FORM_SLICE ? k->refused[VARIANT_SLICE] :
		      ptb_off ? ptb_off : k->refused[VARIANT_PTB];
	coloc_profile_choose(m, name, l->grid, l->block, l->shmem, forms, &run, &probe);
	if (!forms) {
		original = why ? why : "no preemptible form";
		rc = fallback(l, k, first, name, original, probe, run.estimate_ns);
		coloc_profile_stop(probe, l->stream, l->flavor, rc == CUDA_SUCCESS, 1);
		account(&run, false);
		goto out;
	}
	/*
	 * Under COLOC_SHARE, faster as it is and within the bound: original
	 * while no latency tenant is busy.  Never waiting for one: when it is
	 * busy, the persistent form runs beside it, narrowed.
	 */
	if (run.idle_original_ns && !probe && coloc_sched_issue_try(run.idle_original_ns)) {
		run.estimate_ns = run.idle_original_ns;
		rc = launch_original(l, NULL, ADMIT_ALREADY, run.idle_original_ns);
		account(&run, false);
		goto out;
	}
	/*
	 * COLOC_PARK=host: each persistent launch costs its thread the overlap
	 * with its next launch; for kernels measured shorter than HOLD_MIN_NS
	 * the sliced form goes instead (on the H100 the short GPT trainer kept
	 * 0.16 of its throughput with every kernel held, 0.36 sliced), in
	 * slices measured within COLOC_HOLD_SLICE_TURNS turnaround bounds
	 * (profile.c's hold_slices): a slice is not stopped, and the estimate
	 * is the fastest launch of the geometry, which others may exceed
	 * several times (the CuPy MLP's two 64x16 GEMMs, one with four times
	 * the other's work, ran in two slices each).
	 */
	if (run.form == VARIANT_PTB && !probe && run.estimate_ns && run.estimate_ns < HOLD_MIN_NS &&
	    (forms & (1u << VARIANT_SLICE)) && run.hold_sliced && coloc_ptb_holds()) {
		run.form = VARIANT_SLICE;
		run.param = run.hold_slices;
	}
	if (run.form == FORM_ORIGINAL) {
		/* The profiler's choice: shorter than the turnaround bound as it is. */
		rc = launch_original(l, probe, ADMIT_FORM, run.estimate_ns);
		coloc_profile_stop(probe, l->stream, l->flavor, rc == CUDA_SUCCESS, 1);
		account(&run, false);
		goto out;
	}
	rc = run.form == VARIANT_PTB ?
		     /* A launch that measures the form takes one block at a time. */
		     run_ptb(l, k, fns, run.param, probe && !coloc_cfg.ptb_batch ? 1 : run.batch, probe,
			     run.turns, run.estimate_ns, &units, &why) :
		     run_sliced(l, k, fns->fn[VARIANT_SLICE], run.param, probe, &units, &why);
	coloc_profile_stop(probe, l->stream, l->flavor, rc == CUDA_SUCCESS, units);
	/* NOT_SUPPORTED: nothing of the variant ran, the original runs instead. */
	if (rc == CUDA_ERROR_NOT_SUPPORTED) {
		original = why ? why : "its variant could not be launched";
		rc = fallback(l, k, first, name, original, NULL, 0);
		run.estimate_ns = 0;
		account(&run, false);
	} else if (rc == CUDA_SUCCESS) {
		account(&run, true);
	}
out:
	if (first)
		coloc_sched_kernel_seen(original);
	coloc_module_put(m);
	free(name);
	return rc;
}

/*
 * Stream capture: the launch is recorded into a graph, or this thread may
 * not make the synchronizing calls a gated launch needs (graph.c).  A
 * best-effort launch always asks the driver, so that no capture escapes;
 * a latency launch only while colocc saw a capture open.
 */
static bool hands_off(const struct launch *l, bool be)
{
	if (be)
		return coloc_graph_thread_restricted() || capturing_stream(l);
	return coloc_graph_capture_open() && capturing_stream(l);
}

/* As the application made it: recorded into a graph, or run ungated meanwhile. */
static CUresult launch_as_is(const struct launch *l)
{
	static int logged;

	if (!__atomic_exchange_n(&logged, 1, __ATOMIC_RELAXED))
		coloc_log(COLOC_LOG_INFO, "launches during stream capture go to the driver as "
			  "they are: original kernels, not gated");
	coloc_sched_count(TC_LAUNCH_CAPTURED, 1);
	return launch_unchanged(l);
}

static CUresult launch(const struct launch *l)
{
	bool be = coloc_cfg.role == COLOC_ROLE_BEST_EFFORT;
	CUresult rc;

	if (hands_off(l, be))
		return launch_as_is(l);
	if (!be)
		return launch_original(l, NULL, ADMIT_FORM, 0);
	/* Not while this tenant's memory is swapped out (memory.c). */
	coloc_gpu_gate_enter();
	/* Cooperative kernels synchronize the whole grid: never sliced nor persistent. */
	rc = l->cooperative ? launch_original(l, NULL, ADMIT_GATED, 0) : launch_best_effort(l);
	coloc_gpu_gate_leave();
	return rc;
}

static CUresult launch_plain(void *real, enum coloc_stream_flavor flavor, CUfunction fn,
			     unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			     unsigned bz, unsigned shmem, CUstream stream, void **params,
			     void **extra)
{
	struct launch l = {
		.fn = fn, .grid = { gx, gy, gz }, .block = { bx, by, bz }, .shmem = shmem,
		.stream = stream, .params = params, .extra = extra, .flavor = flavor, .real = real,
	};

	return launch(&l);
}

static CUresult launch_ex(void *real, enum coloc_stream_flavor flavor,
			  const CUlaunchConfig *c, CUfunction fn, void **params, void **extra)
{
	struct launch l = {
		.fn = fn, .grid = { c->gridDimX, c->gridDimY, c->gridDimZ },
		.block = { c->blockDimX, c->blockDimY, c->blockDimZ }, .shmem = c->sharedMemBytes,
		.stream = c->hStream, .params = params, .extra = extra, .config = c,
		.flavor = flavor, .real = real,
	};

	return launch(&l);
}

CUresult hook_cuLaunchKernel(cuLaunchKernel_fn real, CUfunction fn, unsigned gx, unsigned gy,
			     unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
			     CUstream stream, void **params, void **extra)
{
	return launch_plain(COLOC_CAST(void *, real), STREAM_LEGACY, fn, gx, gy, gz, bx, by, bz, shmem, stream,
			    params, extra);
}

CUresult hook_cuLaunchKernel_ptsz(cuLaunchKernel_ptsz_fn real, CUfunction fn, unsigned gx,
				  unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
				  unsigned shmem, CUstream stream, void **params, void **extra)
{
	return launch_plain(COLOC_CAST(void *, real), STREAM_PTDS, fn, gx, gy, gz, bx, by, bz, shmem, stream,
			    params, extra);
}

CUresult hook_cuLaunchKernelEx(cuLaunchKernelEx_fn real, const CUlaunchConfig *config,
			       CUfunction fn, void **params, void **extra)
{
	if (!config)
		return real(config, fn, params, extra);
	return launch_ex(COLOC_CAST(void *, real), STREAM_LEGACY, config, fn, params, extra);
}

CUresult hook_cuLaunchKernelEx_ptsz(cuLaunchKernelEx_ptsz_fn real, const CUlaunchConfig *config,
				    CUfunction fn, void **params, void **extra)
{
	if (!config)
		return real(config, fn, params, extra);
	return launch_ex(COLOC_CAST(void *, real), STREAM_PTDS, config, fn, params, extra);
}

CUresult hook_cuLaunchCooperativeKernel(cuLaunchCooperativeKernel_fn real, CUfunction fn,
					unsigned gx, unsigned gy, unsigned gz, unsigned bx,
					unsigned by, unsigned bz, unsigned shmem, CUstream stream,
					void **params)
{
	struct launch l = {
		.fn = fn, .grid = { gx, gy, gz }, .block = { bx, by, bz }, .shmem = shmem,
		.stream = stream, .params = params, .cooperative = true, .flavor = STREAM_LEGACY,
		.real = COLOC_CAST(void *, real),
	};

	return launch(&l);
}

CUresult hook_cuLaunchCooperativeKernel_ptsz(cuLaunchCooperativeKernel_ptsz_fn real,
					     CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
					     unsigned bx, unsigned by, unsigned bz, unsigned shmem,
					     CUstream stream, void **params)
{
	struct launch l = {
		.fn = fn, .grid = { gx, gy, gz }, .block = { bx, by, bz }, .shmem = shmem,
		.stream = stream, .params = params, .cooperative = true, .flavor = STREAM_PTDS,
		.real = COLOC_CAST(void *, real),
	};

	return launch(&l);
}
