/*
 * Scheduling between tenants of one GPU: the latency tenant says when it
 * has work in flight; best-effort tenants hold their launches back while it
 * does (policy isolate, docs/runtime-design.md).
 */
#ifndef COLOC_SCHEDULER_H
#define COLOC_SCHEDULER_H

#include "coloc.h"
#include "coord.h"
#include "plan.h"

/* ---- coord.c */
struct coloc_segment *coloc_coord_open(const char *gpu, char *path, size_t path_size);
struct coloc_tenant *coloc_coord_join(struct coloc_segment *s, enum coloc_role role);
void coloc_coord_leave(struct coloc_segment *s, struct coloc_tenant *t);
unsigned coloc_coord_reap(struct coloc_segment *s);

/* ---- sched.c */

/*
 * A latency tenant is about to launch `fn` on `stream` of the current
 * context (`fn` NULL: a graph).  Under policy fill, its communication
 * kernels (NCCL's) do not make it busy.  Returns what the mark after the
 * call needs, NULL when there is none to make.
 */
struct coloc_mark;
struct coloc_mark *coloc_sched_latency_launch(CUfunction fn, CUstream stream,
					       enum coloc_stream_flavor flavor);
/*
 * The same launch, after the driver's call: `in_driver` (the call
 * succeeded) makes the mark the monitor's idle decision rests on; either
 * way a wait at the busy edge ends (coloc_sched_latency_edge_release).
 */
void coloc_sched_latency_issued(struct coloc_mark *m, bool in_driver);
/*
 * After the driver's call of a launch that waited at the busy edge
 * (coloc_tls.edge_held), whatever the call returned: the monitor may mark
 * the tenant idle again.  Until then it must not, or the best-effort
 * tenants resume between the wait and the call, and the launch, in the
 * driver after them, opens a second busy period.
 */
void coloc_sched_latency_edge_release(void);
/*
 * A latency launch's common case, inline in the exported wrappers
 * (hooks.c): the process sees one GPU, its tenant slot is joined, policy
 * isolate with COLOC_BUSY=drain and no hold.  `self` is NULL until then,
 * and the functions above do the rest.  Issue 4 allows a latency launch
 * 1% of a launch-bound loop, some 30 ns of a 3 us launch.
 */
struct coloc_latency_hot {
	struct coloc_tenant *self; /* published last, with release */
	struct coloc_mark *mark;   /* the device's state, as coloc_sched_latency_launch gives it */
	bool *launched;            /* the flag the monitor clears (sched.c) */
	bool *idling;              /* set while the monitor decides to mark the tenant idle */
	bool light_fence;          /* the monitor fences for both sides (membarrier) */
};
extern struct coloc_latency_hot coloc_latency_hot;
/* The idle-to-busy edge of the device `m` names: wakes the monitor and best-effort watchers. */
void coloc_sched_latency_from_idle(struct coloc_mark *m);
/* The same, once the launch is in the driver: no wait for best-effort tenants. */
void coloc_sched_latency_from_idle_after(struct coloc_mark *m);

/*
 * The common case's marks around the driver's launch, for `t` from
 * coloc_latency_hot.self and the calling thread's lane (coloc_tls.lane - 1,
 * at least 0).  Before: the thread's counter lanes, the flag (no fence: it
 * keeps the tenant busy while the launch is in the driver) and an idle
 * tenant marked busy early.  After (sched.c's mark_busy says why): the flag
 * again, the store the monitor's decision rests on.
 */
static inline void coloc_latency_hot_begin(struct coloc_tenant *t, int lane)
{
	coloc_lane_add(&coloc_original_lanes[lane * COLOC_LANE_STRIDE]);
	coloc_lane_add(&t->launch_lanes[lane]);
	__atomic_store_n(coloc_latency_hot.launched, true, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&t->busy, __ATOMIC_RELAXED))
		coloc_sched_latency_from_idle(coloc_latency_hot.mark);
}

static inline void coloc_latency_hot_end(struct coloc_tenant *t)
{
	__atomic_store_n(coloc_latency_hot.launched, true, __ATOMIC_RELEASE);
	if (__atomic_load_n(&coloc_latency_hot.light_fence, __ATOMIC_RELAXED))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(coloc_latency_hot.idling, __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&t->busy, __ATOMIC_RELAXED))
		coloc_sched_latency_from_idle_after(coloc_latency_hot.mark);
}

/*
 * Around each best-effort kernel or slice put on `stream`: begin waits
 * until this process's earlier ones on the same GPU that may still be
 * unfinished leave room for it, then while a latency tenant of the GPU is
 * busy; end marks the new one with an event.  Room: fewer than
 * COLOC_BE_DEPTH (default 2) items, or, beyond that, items whose costs
 * with the new one's add up to at most COLOC_BE_DEPTH turnaround bounds
 * (at most 15 items).  `cost_ns` is what the item was measured to take,
 * 0 when not known or not bounded by that (persistent kernels, slices,
 * unmeasured ones): it counts as a whole bound.  So what stands between
 * the latency tenant and the GPU is bounded as with COLOC_BE_DEPTH items
 * of a bound each, while short kernels go several at a time.  A
 * `persistent` kernel does not wait under COLOC_SHARE when its context
 * has a watcher: it starts narrowed (preempt.c).
 */
void coloc_sched_issue_begin(bool persistent, uint64_t cost_ns);
/*
 * As coloc_sched_issue_begin(false, cost_ns), for a kernel that can only
 * run original (no PTX, refused by the passes, a cooperative or
 * communication kernel, COLOC_FORM=original): COLOC_GATED_DEPTH (default 4)
 * in place of COLOC_BE_DEPTH.  Such a kernel is only gated, never stopped,
 * and a program that launches many of them from a busy CPU thread (PyTorch)
 * needs to run ahead of the GPU while a long one runs, or the GPU waits for
 * the launches of the short ones after it: on an H100, stock PyTorch
 * training beside the graphed ResNet-50 kept 0.645 of the latency tenant's
 * idle time at 4 against 0.51-0.53 at 2, at p99 -2.8% against -1.5% and
 * -7.0% over alone (benchmarks/results/2026-12-06-h100/session18/, call 1).
 */
void coloc_sched_issue_begin_gated(uint64_t cost_ns);
/*
 * As coloc_sched_issue_begin(false, cost_ns), but where a latency tenant
 * of the GPU is busy once the depth allows the launch, returns false at
 * once instead of waiting (the caller launches a form that may run beside
 * it, and begins again for it); true: go ahead, then coloc_sched_issue_end.
 */
bool coloc_sched_issue_try(uint64_t cost_ns);
void coloc_sched_issue_end(CUstream stream, enum coloc_stream_flavor flavor, uint64_t cost_ns);
/*
 * Whether the device's contexts are MPS clients (CU_DEVICE_ATTRIBUTE_MPS_ENABLED),
 * asked of the current context's device once per process; false while no
 * context is current.  Without MPS the GPU time-slices between processes.
 */
bool coloc_sched_mps(void);
/* Whether a kernel of this name is a communication kernel (NCCL's). */
bool coloc_sched_name_is_comm(const char *name);
/*
 * COLOC_SHARE in 1/1024 (0: off).  Under COLOC_SHARE=auto, asked of the
 * current context's device once (MPS: 0.7, else 0); 0 while no context is
 * current to ask.
 */
unsigned coloc_share_units(void);
/* Adds to one of this tenant's published counters on the current device. */
void coloc_sched_count(enum coloc_tenant_counter c, uint64_t n);
/*
 * A kernel's first launch (best-effort): counted as seen, and with `why`
 * as one that ran original, its reason published (colocctl status).
 */
void coloc_sched_kernel_seen(const char *why);
/* The current context's GPU segment and this tenant's slot in it (joined on first use), or NULL. */
struct coloc_segment *coloc_sched_segment(struct coloc_tenant **self);
/* True when a latency tenant of `s` is busy; *since_ns: the earliest busy edge among them. */
bool coloc_sched_latency_busy(struct coloc_segment *s, uint64_t *since_ns);

/* ---- graph.c: stream capture and graph launches */

extern unsigned coloc_graph_active; /* graph.c: captures open */
/* True while a stream capture is open in this process (one load). */
static inline bool coloc_graph_capture_open(void)
{
	return __atomic_load_n(&coloc_graph_active, __ATOMIC_SEQ_CST) != 0;
}
/*
 * True when the calling thread may not synchronize or query streams and
 * events now: it opened a global or thread-local capture, or another
 * thread opened a global one.
 */
bool coloc_graph_thread_restricted(void);
/*
 * Around a synchronization by one of colocc's threads (cuCtxSynchronize,
 * cuStreamQuery of the application's streams): begin returns false while a
 * capture is open (do not synchronize); true holds captures from beginning
 * until end.
 */
bool coloc_graph_sync_begin(void);
void coloc_graph_sync_end(void);
/* For colocc's own threads: their queries of colocc's streams and events stay legal under capture. */
void coloc_graph_thread_relaxed(void);

/* ---- preempt.c: persistent launches that can be stopped and resumed */

/*
 * Where a persistent launch's stops are counted: the profiler's candidate
 * it ran as (profile.c); entry NULL: nowhere.
 */
struct coloc_turn_ref {
	void *entry;
	unsigned cand;
};

struct coloc_ptb_slot {
	void *state;          /* the context's (preempt.c) */
	int record;
	CUdeviceptr control;  /* the launch's control block, header zeroed on its stream */
	CUdeviceptr stop;     /* the context's stop word */
	unsigned park;        /* the launch's park parameter: 1 when a watcher can resume it */
	struct coloc_turn_ref turns; /* set by the caller before coloc_ptb_end */
	/*
	 * COLOC_RESUME: set by the caller before coloc_ptb_begin, the save area
	 * the launch needs (0: none) and its busy words' bytes; `save` is the
	 * area it got, busy words zeroed on the stream, or 0.
	 */
	size_t save_bytes, save_busy;
	CUdeviceptr save;
	CUdeviceptr redo;     /* the launch's redo ring, COLOC_REDO_ENTRIES words, zeroed;
				 0 without COLOC_RESTART */
	/*
	 * Parked on the stream (COLOC_PARK): the launch goes with park 0,
	 * followed by `links` pairs of coloc_ptb_wait and a relaunch with the
	 * same parameters, park 0 but for the last (`park`); 0: one launch.
	 */
	unsigned links;
	/*
	 * Held by the launching thread (COLOC_PARK=host): the launch goes with
	 * park 0, and the caller waits with coloc_ptb_hold_done and relaunches
	 * with coloc_ptb_hold_again until every block is done, then calls
	 * coloc_ptb_hold_end.
	 */
	bool hold;
};

/* Blocks a launch's redo ring holds: twice its workers (its own and a helper's) at most. */
#define COLOC_REDO_ENTRIES 4096u

/*
 * Before a persistent launch on `stream`: takes a control block of
 * `control_bytes`, zeroed on the stream (by one memset per chunk of
 * consecutive launches on one stream) and marks the stream's position
 * for helpers.  Returns 0 and holds the context's lock until
 * coloc_ptb_end; -1 with *why when the launch cannot be made preemptible.
 */
int coloc_ptb_begin(struct coloc_ptb_slot *slot, CUstream stream, enum coloc_stream_flavor flavor,
		    size_t control_bytes, const char **why);
/*
 * After the launch: `launched` says whether the driver took it.  A helper
 * resuming it launches `fn` with `workers` blocks of `block`, `shmem` bytes
 * and the packed parameters (copied; the u32 at `park_offset` becomes 0, the
 * one at `base_offset`, its first broadcast slot, `workers`);
 * `total` is the kernel's number of virtual blocks.
 */
void coloc_ptb_end(struct coloc_ptb_slot *slot, bool launched, CUstream stream,
		   enum coloc_stream_flavor flavor, CUfunction fn, unsigned workers,
		   struct coloc_dim3 block, unsigned shmem, uint64_t total, const void *packed,
		   size_t packed_size, size_t park_offset, size_t base_offset);

/*
 * Between the links of a launch parked on the stream: `stream` waits until
 * the stop is clear (the host copy reads 0), a wait the CPU's store ends
 * with no GPU command, and that costs no time slice while it waits.
 */
CUresult coloc_ptb_wait(const struct coloc_ptb_slot *slot, CUstream stream,
			enum coloc_stream_flavor flavor);
/*
 * COLOC_PARK=host, after coloc_ptb_end: waits for the launch (or its last
 * relaunch) to end and gives its control block's header as it left it:
 * next, done, the redo ring's head and tail.  When blocks are left, returns
 * once the stop (if any) is clear.
 */
CUresult coloc_ptb_hold_done(const struct coloc_ptb_slot *slot, uint32_t header[4]);
/*
 * Just before relaunching, once past the gate (a thread that waits at the
 * gate is not relaunching: a stop meanwhile need not wait for it).
 */
void coloc_ptb_hold_relaunch(const struct coloc_ptb_slot *slot);
/* After a relaunch on `stream` with the same control block: tracked again. */
void coloc_ptb_hold_again(const struct coloc_ptb_slot *slot, CUstream stream,
			  enum coloc_stream_flavor flavor);
/* Every block done (or given up on): the record is the watcher's again. */
void coloc_ptb_hold_end(const struct coloc_ptb_slot *slot);
/*
 * The launch was given up on with blocks left (a held launch that got no
 * block done for a minute, a relaunch the driver refused): its redo ring
 * may still hold blocks given up, which no kernel will take back, so the
 * record's next launch clears the ring on its stream before it starts.
 * Called by the launch's thread between coloc_ptb_begin and coloc_ptb_end,
 * or before coloc_ptb_hold_end.
 */
void coloc_ptb_abandon(const struct coloc_ptb_slot *slot);
/* True when the current context's persistent launches are held by their threads. */
bool coloc_ptb_holds(void);
/*
 * True when the current context's stopped persistent kernels leave nothing
 * on the GPU: they wait on their stream, or their launching thread holds
 * them (COLOC_PARK): only then may the profiler pick persistent forms
 * under time-slicing.
 */
bool coloc_ptb_parks_on_stream(void);

/*
 * False once a stop found that the current context's streams share a
 * hardware queue with colocc's stop stream: persistent launches there could
 * not be stopped and resumed in time, so later ones take other forms.
 */
bool coloc_ptb_usable(void);
/*
 * True when the current context's persistent kernels have a watcher that
 * narrows them (COLOC_SHARE): only then may they pass the gate while a
 * latency tenant is busy.
 */
bool coloc_ptb_narrowable(void);
/*
 * A best-effort launch of another form: the current context's persistent
 * launches that completed since anything looked are seen so, at most every
 * 100 us and never waiting for the context's lock, so that the tenant's
 * ptb_out (coord.h) falls to 0 once none is on the GPU.  One load while
 * none is out.
 */
void coloc_ptb_poll(void);

/* ---- profile.c: which form each (kernel, geometry) runs in */

#define FORM_ORIGINAL (-1)
#define COLOC_HOLD_SLICE_TURNS 4u

struct coloc_run_form {
	int form;             /* enum coloc_variant_form, or FORM_ORIGINAL */
	unsigned param;       /* slices or workers; 0: the device's wave */
	uint64_t estimate_ns; /* what the form was measured to take, 0: not yet */
	/*
	 * Under COLOC_SHARE, where `form` is persistent only because nothing
	 * else may run beside a busy latency tenant: the original's measured
	 * time, within the bound and faster, to launch instead while no latency
	 * tenant is busy; 0: none.
	 */
	uint64_t idle_original_ns;
	/*
	 * What a persistent launch too short to hold may run instead (launch.c,
	 * COLOC_PARK=host), since a slice is not stopped: the fastest sliced
	 * candidate whose slices were measured within COLOC_HOLD_SLICE_TURNS
	 * turnaround bounds, or, where no sliced candidate was measured, slices
	 * of the device's wave (0) if the form's estimate is within them; in
	 * hold_slices.  None: hold_sliced false.
	 */
	bool hold_sliced;
	unsigned hold_slices;
	/*
	 * Persistent forms: virtual blocks a worker takes at a time, so that
	 * short blocks do not each pay a take (0: 1).
	 */
	unsigned batch;
	struct coloc_turn_ref turns; /* persistent forms: where their stops are counted */
};

/*
 * In `forms` (coloc_profile_choose): the persistent form gives stopped
 * blocks up (COLOC_RESTART=1 and a kernel the pass made so): its turnaround
 * is what its stops measure, not a block's time.
 */
#define COLOC_FORMS_RESTART (1u << 16)

struct coloc_module;
struct coloc_probe;

/*
 * A best-effort launch of `kernel` of `m` with this geometry, whose
 * variants are `forms` (bit per enum coloc_variant_form; 0: only the
 * original): the form it takes (*out), and a probe when this launch is to
 * be timed.  Measures and chooses under COLOC_FORM=auto; otherwise keeps the
 * forced form and measures it for the coverage figures.  With COLOC_PROFILE=0,
 * nothing is timed and the form is persistent, else sliced, else original.
 */
void coloc_profile_choose(struct coloc_module *m, const char *kernel, struct coloc_dim3 grid,
			  struct coloc_dim3 block, unsigned shmem, unsigned forms,
			  struct coloc_run_form *out, struct coloc_probe **probe);
/* After the gate, before the form's first launch on `stream` (NULL probe: nothing). */
void coloc_profile_start(struct coloc_probe *p, CUstream stream, enum coloc_stream_flavor flavor);
/* After its last launch; `units`: the slices launched or the workers. Frees the probe or queues it. */
void coloc_profile_stop(struct coloc_probe *p, CUstream stream, enum coloc_stream_flavor flavor,
			bool launched, unsigned units);
/*
 * A persistent launch left the GPU `ns` after its stop word was written
 * (preempt.c's watcher, once per stop and launch that was running).
 */
void coloc_profile_stopped(struct coloc_turn_ref ref, uint64_t ns);

#endif
