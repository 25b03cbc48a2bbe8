/*
 * The per-GPU coordinator: a shared segment every tenant of one GPU maps,
 * holding the tenant table.  colocctl reads it; no daemon is needed (the
 * first tenant creates it).  Layout is shared with tools/colocctl.
 */
#ifndef COLOC_COORD_H
#define COLOC_COORD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define COLOC_SEGMENT_MAGIC 0x636f6c6f63736567ull /* "colocseg" */
#define COLOC_SEGMENT_VERSION 14
#define COLOC_MAX_TENANTS 64

/* What a tenant publishes; counters are written with relaxed atomics. */
enum coloc_tenant_counter {
	TC_KERNELS,          /* kernels transformed (best-effort) */
	TC_KERNELS_REFUSED,  /* kernels with no preemptible form */
	TC_LAUNCH_ORIGINAL,
	TC_LAUNCH_SLICE,
	TC_LAUNCH_PTB,
	TC_LAUNCH_FALLBACK,
	TC_GATED_NS,         /* best-effort: time launches waited for the latency tenant */
	TC_GATED_LAUNCHES,   /* best-effort: launches that waited */
	TC_BUSY_PERIODS,     /* latency: idle-to-busy transitions */
	TC_PREEMPTIONS,      /* best-effort: stops that found a persistent kernel running */
	TC_HELPERS,          /* best-effort: helper launches that resumed stopped kernels */
	/*
	 * Best-effort kernel time by how it ran, estimated per launch from the
	 * profiler's measurement of its (kernel, geometry, form): the coverage.
	 */
	TC_KTIME_PREEMPTIBLE_NS, /* sliced or persistent */
	TC_KTIME_BOUNDED_NS,     /* original, measured within the turnaround bound */
	TC_KTIME_UNBOUNDED_NS,   /* original, longer than the bound */
	TC_LAUNCH_UNTIMED,       /* launches with no measurement yet */
	TC_MEM_REFUSED,          /* allocations refused: over the GPU's budget */
	TC_GRAPH_LAUNCHES,       /* cuGraphLaunch: each graph one original unit */
	TC_LAUNCH_CAPTURED,      /* kernels recorded into a graph, untouched */
	TC_NARROWINGS,           /* best-effort: persistent kernels narrowed (COLOC_SHARE) */
	TC_GIVEN_UP,             /* best-effort: blocks given up at stops (COLOC_RESTART) */
	TC_EDGE_TIMEOUTS,        /* latency: busy edges whose wait for best-effort tenants timed out */
	TC_KERNELS_SEEN,         /* best-effort: kernels launched (module and name), each once */
	TC_KERNELS_ORIGINAL,     /* ... of them, those whose first launch had no form to run in */
	TC_COUNT
};

/* mps.c (in the tenant table too): whether the tenant is an MPS client (COLOC_MPS). */
enum coloc_mps_state {
	COLOC_MPS_NONE,         /* no MPS daemon where the driver looks */
	COLOC_MPS_CLIENT,       /* a daemon runs and the tenant connects to it */
	COLOC_MPS_LEFT,         /* a daemon runs and the tenant does not connect (the default) */
};

struct coloc_tenant {
	int32_t pid;         /* 0: a free slot */
	uint32_t role;       /* enum coloc_role */
	uint64_t start_time; /* the process's start time (/proc/PID/stat), against pid reuse */
	char comm[32];
	/*
	 * Latency: work in flight (or within the hold time); readers take any
	 * value but 0 as busy.  COLOC_BUSY_UNWATCHED: busy, nobody watches: no
	 * best-effort tenant shares the GPU, and the monitor does not judge
	 * when the tenant is idle until one does (sched.c, COLOC_MONITOR).
	 */
	uint32_t busy;
#define COLOC_BUSY_UNWATCHED 2
	/*
	 * Best-effort, with edge_acks set (from its first context with
	 * persistent launches on): the last epoch whose busy edge its watcher
	 * has handled, every persistent kernel of the tenant stopped and off the
	 * GPU.  A latency tenant waits for it before the first launch of a busy
	 * period (COLOC_EDGE_WAIT_US; sched.c, wait_vacated).
	 */
	uint32_t vacated;
	uint64_t busy_since_ns;
	uint64_t counters[TC_COUNT];
	uint64_t mem_held;   /* device memory allocated through the driver, in bytes */
	uint64_t mem_peak;
	/*
	 * Best-effort: the last turnarounds, in microseconds, from a latency
	 * tenant's idle-to-busy edge to this tenant's persistent kernels having
	 * left the GPU (all but their parked worker); turn_count counts them all.
	 */
#define COLOC_TURN_SAMPLES 256
	uint64_t turn_count;
	uint32_t turn_us[COLOC_TURN_SAMPLES];
	/*
	 * Best-effort: the discard protocol (include/coloc/discard.h).  A
	 * requester bumps discard_req under the lock; the tenant sets
	 * discard_ack, also under it, to the last request it handled.  A
	 * request is outstanding while the two differ.  `phase` and `unit` are
	 * written by the tenant alone.
	 */
	uint32_t discard_req;
	uint32_t discard_ack;
	uint32_t phase;          /* enum coloc_phase */
	uint32_t marks;          /* 1 once the tenant began a unit: it takes part in the protocol */
	uint64_t unit;           /* the caller's id of the current (or last) unit */
	uint64_t discard_bytes;  /* what the outstanding requests want back; 0: all it can */
	/*
	 * When the oldest outstanding request was posted (CLOCK_MONOTONIC);
	 * requests posted while one is outstanding keep it, so that their
	 * latency is counted from the earlier one's, never less.
	 */
	uint64_t discard_req_ns;
	uint64_t discard_freed;  /* what the tenant said it freed at its last acknowledgement */
	uint64_t discards;       /* acknowledgements */
	uint64_t discard_ns_total; /* request to acknowledgement, summed over them */
#define COLOC_DISCARD_SAMPLES 64
	uint32_t discard_us[COLOC_DISCARD_SAMPLES]; /* the last ones', in microseconds */
	/*
	 * Memory handover (handover.c).  Of mem_held, what the tenant's pools
	 * hold without using it (given back at once when asked); what it
	 * swapped out to host memory.  A latency tenant short of memory posts
	 * a request under the lock (mem_req bumped, its kind and bytes set);
	 * the tenant's memory thread does what it can and sets mem_ack to the
	 * request it answered.
	 */
	uint64_t mem_cached;
	uint64_t mem_swapped;
	uint32_t mem_pool;       /* 1: its allocations come from pools: it can trim and swap */
	uint32_t mem_req_kind;   /* enum coloc_reclaim, of the last request */
	uint32_t mem_req;
	uint32_t mem_ack;
	uint64_t mem_req_bytes;
	uint64_t mem_given;      /* given back for requests, in all */
	uint64_t swaps_out, swaps_in;
	uint32_t mem_wanting;    /* latency: 1 while it waits for a handover */
	uint32_t edge_acks;      /* best-effort: 1 once its watcher answers for `vacated` */
	/*
	 * Best-effort: persistent launches that may be on the GPU, being made
	 * (coloc_ptb_begin to coloc_ptb_end) or not yet seen complete
	 * (preempt.c, live_set).  A latency tenant's busy edge does not wait
	 * for a tenant with none: its watcher has nothing to stop.
	 */
	uint32_t ptb_out;
	/*
	 * Latency: original launches counted by the first COLOC_LANES
	 * launching threads, each in its own lane, without a locked
	 * instruction (issue 4's 1% of a 3 us launch is 30 ns); other threads
	 * add to counters[TC_LAUNCH_ORIGINAL].  Read the sum:
	 * coloc_tenant_original_launches.
	 */
#define COLOC_LANES 8
	uint64_t launch_lanes[COLOC_LANES];
	/*
	 * Latency: how long the first launch of each busy period waited for the
	 * best-effort tenants (COLOC_EDGE_WAIT_US), in microseconds, the last
	 * COLOC_EDGE_SAMPLES of edge_count.
	 */
#define COLOC_EDGE_SAMPLES 256
	uint64_t edge_count;
	uint32_t edge_us[COLOC_EDGE_SAMPLES];
	/*
	 * Best-effort: why the kernels of TC_KERNELS_ORIGINAL ran original,
	 * the first COLOC_REASONS distinct reasons (cut to COLOC_REASON_LEN - 1
	 * bytes) with how many kernels each; the others in reasons_other.  Only
	 * the tenant writes them: an entry's text before nreasons counts it.
	 */
#define COLOC_REASONS 8
#define COLOC_REASON_LEN 160
	uint32_t nreasons;
	struct coloc_reason {
		char text[COLOC_REASON_LEN];
		uint64_t count;
	} reasons[COLOC_REASONS];
	uint64_t reasons_other;
	/* enum coloc_mps_state and why (mps.c, COLOC_MPS), cut to COLOC_MPS_DETAIL_LEN - 1 bytes. */
#define COLOC_MPS_DETAIL_LEN 192
	uint32_t mps;
	char mps_detail[COLOC_MPS_DETAIL_LEN];
};

static inline uint64_t coloc_tenant_original_launches(const struct coloc_tenant *t)
{
	uint64_t n = __atomic_load_n(&t->counters[TC_LAUNCH_ORIGINAL], __ATOMIC_RELAXED);

	for (int i = 0; i < COLOC_LANES; i++)
		n += __atomic_load_n(&t->launch_lanes[i], __ATOMIC_RELAXED);
	return n;
}

/* What a latency tenant asks of a best-effort tenant's pools. */
enum coloc_reclaim {
	COLOC_RECLAIM_TRIM = 1, /* give back cached pages, up to mem_req_bytes */
	COLOC_RECLAIM_SWAP = 2, /* copy everything to host memory and give it back */
};

/* How a latency tenant's wait for memory ended (colocctl, handover.json). */
enum coloc_handover_path {
	COLOC_PATH_CACHED,
	COLOC_PATH_DISCARD,
	COLOC_PATH_SWAP,
	COLOC_PATH_FAILED,
	COLOC_PATHS
};

struct coloc_segment {
	uint64_t magic;
	uint32_t version;
	uint32_t size;       /* sizeof(struct coloc_segment) of the writer */
	char gpu[64];        /* the GPU's PCI bus id */
	pthread_mutex_t lock; /* robust, process-shared; guards the tenant slots' pid/role */
	uint64_t reaped;     /* tenants found dead and removed */
	struct coloc_tenant tenants[COLOC_MAX_TENANTS];
	/*
	 * Bumped at every change of a latency tenant's busy state (and at
	 * reaping); best-effort watchers sleep on it with futex(2) and count
	 * themselves in `waiters`, so that nobody pays a wake-up system call
	 * while nobody waits.
	 */
	uint32_t epoch;
	uint32_t waiters;
	/*
	 * Device memory: what all tenants together may hold, and how much of
	 * it best-effort tenants must leave to latency tenants; set by the
	 * first tenant that allocates (COLOC_MEM_BUDGET, COLOC_MEM_RESERVE).
	 */
	uint64_t mem_budget;
	uint64_t mem_reserve;
	/*
	 * The reallocation policy (handover.c): after a handover, best-effort
	 * tenants also leave mem_hold (COLOC_MEM_WATERMARK) to latency
	 * tenants, until none has needed a handover for COLOC_MEM_IDLE_MS
	 * after mem_hold_ns.
	 */
	uint64_t mem_hold;
	uint64_t mem_hold_ns;

	struct coloc_handover_stats {
		uint64_t count;
		uint64_t bytes;
#define COLOC_HANDOVER_SAMPLES 128
		uint32_t us[COLOC_HANDOVER_SAMPLES]; /* the last waits, in microseconds */
	} handover[COLOC_PATHS];
};

/* Bumps the epoch and wakes the watchers sleeping on it; returns the new epoch. */
uint32_t coloc_coord_signal(struct coloc_segment *s);
/* Sleeps until the epoch differs from `seen` or `timeout_ns` passed. */
void coloc_coord_wait(struct coloc_segment *s, uint32_t seen, uint64_t timeout_ns);

/*
 * Charges `bytes` to tenant `t` when the tenants' memory stays within the
 * budget (less the reserve for a best-effort tenant); -1 when it would not.
 * A budget of 0 in the segment is set to `budget` and `reserve` first.
 */
int coloc_coord_mem_charge(struct coloc_segment *s, struct coloc_tenant *t, uint64_t bytes,
			   uint64_t budget, uint64_t reserve);
void coloc_coord_mem_refund(struct coloc_segment *s, struct coloc_tenant *t, uint64_t bytes);
/* What tenant `t` may still allocate (*room) and the budget, 0 when none is set yet. */
void coloc_coord_mem_view(struct coloc_segment *s, struct coloc_tenant *t, uint64_t *room,
			  uint64_t *budget);

/* What tenant `t` lacks for `bytes` more: 0 when they fit its limit now. */
uint64_t coloc_coord_mem_shortfall(struct coloc_segment *s, struct coloc_tenant *t, uint64_t bytes);
/* Tenant `t`'s pools hold `delta` bytes more (or less) unused. */
void coloc_coord_mem_cached(struct coloc_segment *s, struct coloc_tenant *t, int64_t delta);

/*
 * Asks best-effort tenant `t`'s memory thread to give memory back (`kind`,
 * up to `bytes`); 0 and the request's sequence in *seq, or -ESRCH when `t`
 * is not a live best-effort tenant with pools.  Wakes it.
 */
int coloc_coord_post_reclaim(struct coloc_segment *s, struct coloc_tenant *t,
			     enum coloc_reclaim kind, uint64_t bytes, uint32_t *seq);
/* Tenant `t` answered request `seq`, having given `given` bytes back; wakes the requester. */
void coloc_coord_reclaim_ack(struct coloc_segment *s, struct coloc_tenant *t, uint32_t seq,
			     uint64_t given);
/*
 * A latency tenant's wait for memory ended by `path` after `ns`, `bytes`
 * asked for; best-effort tenants now leave `hold` bytes to latency tenants
 * from `now_ns` on, or nothing more when it failed.
 */
void coloc_coord_handover_record(struct coloc_segment *s, enum coloc_handover_path path,
				 uint64_t bytes, uint64_t ns, uint64_t hold, uint64_t now_ns);
/*
 * From now on best-effort tenants leave at least `bytes` to latency tenants
 * (a handover under way: what they give back is not theirs to take again).
 */
void coloc_coord_hold(struct coloc_segment *s, uint64_t bytes, uint64_t now_ns);
/* Ends the hold when no handover came for `idle_ns`; true when it ended now. */
bool coloc_coord_hold_expire(struct coloc_segment *s, uint64_t idle_ns, uint64_t now_ns);

/*
 * Posts a discard request to the best-effort tenant `pid` of `s` (under the
 * lock; tenant.c, shared with colocctl): `bytes` are added to what its
 * outstanding requests want.  0 and the request's sequence in *seq (NULL
 * allowed); -ESRCH when no live tenant has that pid, -EPERM when it is not
 * best-effort.  The caller then wakes the segment's sleepers.
 */
int coloc_tenant_post_discard_locked(struct coloc_segment *s, pid_t pid, uint64_t bytes,
				     uint32_t *seq);
/* The same, taking the lock and waking the tenant; the memory handover's way in. */
int coloc_coord_request_discard(struct coloc_segment *s, pid_t pid, uint64_t bytes, uint32_t *seq);
/*
 * Tenant `t` acknowledges the requests up to `seq`, having freed `freed`
 * bytes; -EALREADY when `seq` was acknowledged already.
 */
int coloc_coord_discard_ack(struct coloc_segment *s, struct coloc_tenant *t, uint32_t seq,
			    uint64_t freed);

/* The process's start time in clock ticks since boot, or 0 when it is gone. */
uint64_t coloc_process_start(pid_t pid);
/* True when slot `t` names a live process (same pid, same start time). */
int coloc_tenant_alive(const struct coloc_tenant *t);

#endif
