/*
 * libcoloc's internal interface: the runtime's state, the hook table that
 * hooks.def generates, and what each part offers the others.
 *
 *   interpose.c  dlsym and cuGetProcAddress: who gets colocc's functions
 *   hooks.c      the exported wrappers generated from hooks.def
 *   config.c     the environment, the log and the statistics
 *   capture.c    modules, libraries and links as the application loads them
 *   variants.c   transformed variants: the in-process compiler and the cache
 *   launch.c     what a launch does, per role and form
 */
#ifndef COLOC_RUNTIME_H
#define COLOC_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coord.h"
#include "cuda_abi.h"

#define COLOC_EXPORT __attribute__((visibility("default")))
#define COLOC_UNPAREN(...) __VA_ARGS__
/* POSIX lets function and object pointers convert (dlsym needs it); ISO C does not. */
#define COLOC_CAST(type, p) (__extension__(type)(p))

/*
 * The newest CUDA version whose ABIs hooks.def was written against.  A
 * program asking cuGetProcAddress for a newer version gets colocc's hook
 * only if the driver answers with the same function as for this version.
 */
#define COLOC_HOOKS_CUDA_VERSION 13000

enum coloc_stream_flavor { STREAM_NONE, STREAM_LEGACY, STREAM_PTDS };

/* One slot per hooked entry point, then one per driver function colocc calls. */
enum coloc_slot {
#define HOOK(sym, api, since, flavor, params, args) SLOT_##sym,
#define DRIVER(sym, params)
#include "hooks.def"
#undef HOOK
#undef DRIVER
	SLOT_HOOKS, /* the number of hooks, and the first DRIVER slot */
	SLOT_BEFORE_DRIVER = SLOT_HOOKS - 1,
#define HOOK(sym, api, since, flavor, params, args)
#define DRIVER(sym, params) SLOT_##sym,
#include "hooks.def"
#undef HOOK
#undef DRIVER
	SLOT_COUNT
};

#define HOOK(sym, api, since, flavor, params, args) typedef CUresult (*sym##_fn) params;
#define DRIVER(sym, params) typedef CUresult (*sym##_fn) params;
#include "hooks.def"
#undef HOOK
#undef DRIVER

/* The handlers; the wrapper in hooks.c passes the real function first. */
#define HOOK(sym, api, since, flavor, params, args) \
	CUresult hook_##sym(sym##_fn real, COLOC_UNPAREN params);
#define DRIVER(sym, params)
#include "hooks.def"
#undef HOOK
#undef DRIVER

struct coloc_slot_info {
	const char *symbol;
	const char *api;
	int since;
	enum coloc_stream_flavor flavor;
	void *hook; /* colocc's exported function; NULL for DRIVER entries */
};

extern const struct coloc_slot_info coloc_slots[SLOT_COUNT];

/* ---- interpose.c */

/* The driver's functions by slot, as resolved (NULL: not yet). */
extern void *coloc_real_slots[SLOT_COUNT];
/* coloc_real's first use of a slot: looks the driver's function up. */
void *coloc_real_resolve(enum coloc_slot slot);
/* The driver's function for a slot, resolved from libcuda.so.1 on first use. */
static inline void *coloc_real(enum coloc_slot slot)
{
	void *fn = __atomic_load_n(&coloc_real_slots[slot], __ATOMIC_ACQUIRE);

	return fn ? fn : coloc_real_resolve(slot);
}
/* Records the driver's function for a slot when none is known yet. */
void coloc_real_offer(enum coloc_slot slot, void *fn);
/* True while libcuda.so.1 is loaded in the process (interpose.c). */
bool coloc_driver_mapped(void);
/* True once colocc opened the driver library for itself (interpose.c). */
bool coloc_driver_opened(void);
/* Looks a symbol up in the driver library, bypassing colocc. */
void *coloc_driver_symbol(const char *symbol);
/* glibc's dlsym, past colocc's own. */
void *coloc_real_dlsym(void *handle, const char *symbol);
/* Per slot, a function of the slot's type that returns CUDA_ERROR_NOT_SUPPORTED. */
extern void *const coloc_missing[SLOT_COUNT];
/* The driver's function, or one that fails when the driver has none (logged once). */
static inline void *coloc_real_or_missing(enum coloc_slot slot)
{
	void *fn = coloc_real(slot);

	return fn ? fn : coloc_missing[slot];
}
#define REAL(sym) COLOC_CAST(sym##_fn, coloc_real_or_missing(SLOT_##sym))

/* ---- config.c: the environment, the log, the statistics */

enum coloc_role {
	COLOC_ROLE_NONE,        /* colocc is off: everything passes through */
	COLOC_ROLE_LATENCY,
	COLOC_ROLE_BEST_EFFORT,
};

enum coloc_log_level { COLOC_LOG_ERROR, COLOC_LOG_WARN, COLOC_LOG_INFO, COLOC_LOG_DEBUG };

/* How best-effort launches run, until the scheduler chooses (COLOC_FORM). */
enum coloc_form_choice {
	COLOC_FORM_AUTO,     /* the profiler's choice (profile.c); without it ptb, else slice */
	COLOC_FORM_ORIGINAL,
	COLOC_FORM_SLICE,
	COLOC_FORM_PTB,
};

/* How tenants share the GPU (COLOC_POLICY). */
enum coloc_policy {
	COLOC_POLICY_ISOLATE, /* best-effort work only while the latency tenant is idle */
	COLOC_POLICY_FILL,    /* the same, but the latency tenant's NCCL kernels do not count */
	COLOC_POLICY_NONE,    /* no coordination: capture and variants only */
};

struct coloc_config {
	bool disabled;          /* COLOC_DISABLE=1, or a configuration error */
	enum coloc_role role;
	enum coloc_policy policy;
	enum coloc_log_level log_level;
	int log_fd;
	bool log_time;          /* COLOC_LOG_TIME=1: lines begin with CLOCK_MONOTONIC seconds */
	char cache_dir[4096];   /* COLOC_CACHE_DIR, default ~/.cache/coloc */
	char aot_dirs[4096];    /* COLOC_AOT_CACHE: colon-separated, read only */
	char stats_file[4096];  /* COLOC_STATS_FILE: JSON written at exit */
	enum coloc_form_choice form;
	unsigned slices;        /* COLOC_FORM=slice:N; 0: one slice per wave of the device */
	unsigned workers;       /* COLOC_FORM=ptb:W; 0: as many as fit at once */
	unsigned ptb_batch;     /* COLOC_PTB_BATCH: blocks a worker takes at once; 0: from the profile */
	bool restart;           /* COLOC_RESTART (default 1): stopped persistent kernels give up
				   clean blocks */
	bool stop_copy;         /* COLOC_STOP_COPY (default 0): the stop word is copied (preempt.c) */
	bool stop_read_copy;    /* COLOC_STOP_READ=copy: the stop word read by cp.async (ptb.c) */
	bool resume;            /* COLOC_RESUME (default 1): blocks given up are resumed where they
				   stopped (resume.c) */
	bool resume_said;       /* COLOC_RESUME was set: an AOT cache made without it is not used */
	bool fresh;             /* COLOC_FRESH (default 1): held launches run fresh variants in
				   chunks, the looping form draining what a stop gave up (launch.c) */
	bool stop_by_end;       /* COLOC_STOP_BY_END (default 1): a stop is over when its kernels end */
	/*
	 * COLOC_PARK: how a stopped persistent kernel keeps the work after it on
	 * its stream from starting early: a paused worker on the GPU (worker),
	 * or waits on the stream between relaunches (stream: the launch is
	 * followed by waits for the stop's gate, each followed by a relaunch,
	 * the last with a paused worker); host: the launching thread waits for
	 * the launch and relaunches it after each stop, so nothing of a stopped
	 * kernel stays on the GPU or its stream (other threads' work on it
	 * waits: fence.c); auto (the default): host when the device's contexts
	 * are not MPS clients, else worker.  preempt.c, park_links, state_new;
	 * launch.c, ptb_hold.
	 */
	enum coloc_park { COLOC_PARK_WORKER, COLOC_PARK_STREAM, COLOC_PARK_AUTO, COLOC_PARK_HOST } park;
	unsigned park_links;    /* COLOC_PARK_LINKS (default 8; launch.c adds to it) */
	bool profile;           /* COLOC_PROFILE (default 1): COLOC_FORM=auto measures and picks */
	/* COLOC_MEM_BUDGET, COLOC_MEM_RESERVE: bytes, or per mille of the device's memory. */
	struct coloc_size {
		uint64_t bytes;
		unsigned permille; /* used when bytes is 0 */
	} mem_budget, mem_reserve;
	uint64_t turnaround_ns; /* COLOC_TURNAROUND_US: the bound the profiler picks forms under */
	/*
	 * COLOC_SHARE: the share of the SMs a best-effort tenant's persistent
	 * kernels keep while a latency tenant is busy, in 1/1024 (0, the
	 * default: none, they stop); share_auto ("auto"): 0.7 when the
	 * device's contexts are MPS clients, else 0 (coloc_share_units,
	 * sched.c).
	 */
	unsigned share_units;
	bool share_auto;
	uint64_t share_hold_ns; /* COLOC_SHARE_HOLD_US: idle this long before kernels widen again */
	/* Memory pools and handover (pool.c, memory.c, docs/memory-design.md). */
	bool mem_pool;          /* COLOC_MEM_POOL (default 1): cuMemAlloc served from pools */
	uint64_t pool_page;     /* COLOC_POOL_PAGE: bytes of one page (default 256 MiB) */
	uint64_t mem_watermark; /* COLOC_MEM_WATERMARK: W of the latency tenants' reserve */
	uint64_t mem_idle_ns;   /* COLOC_MEM_IDLE_MS: T_idle, before cached pages beyond W go */
	uint64_t mem_wait_ns;   /* COLOC_MEM_WAIT_MS: how long a latency allocation waits */
	enum coloc_mps_state mps; /* COLOC_MPS=leave|stay, decided in the constructor (mps.c) */
	char mps_detail[4352];  /* ... and why, for the log, the statistics and colocctl */
	bool mps_mapped_driver; /* mps.c's NVML left libcuda.so.1 mapped in the process */
};

extern struct coloc_config coloc_cfg;

/*
 * mps.c: COLOC_MPS, before the first cuInit: leaves a running MPS daemon
 * (the default) where every GPU allows it, or stays its client.
 */
void coloc_mps_setup(void);
const char *coloc_mps_name(enum coloc_mps_state s);

/* Makes directory `dir` and its missing parents (new ones get `mode`); -1 with errno. */
int coloc_mkdirs(const char *dir, mode_t mode);

/* Per thread, together: a hooked launch reaches both with one TLS lookup. */
struct coloc_tls {
	int depth; /* how deep the thread is inside colocc (coloc_enter) */
	int lane;  /* coloc_thread_lane + 1; -1: none left; 0: not asked yet */
	/*
	 * A latency launch of this thread waited at the busy edge and has not
	 * left the driver's call yet: the monitor must not mark the tenant idle
	 * (sched.c, edge_waits): that device's state, until
	 * coloc_sched_latency_edge_release; else NULL.
	 */
	void *edge_held;
};
extern __thread struct coloc_tls coloc_tls;
/* coloc_bypass when colocc is off: says once why it passes calls through. */
bool coloc_bypass_off(void);
/*
 * True when a hook should only forward: colocc off, or a call from colocc
 * itself.  Inline, with the two below: every hooked call runs them.
 */
static inline bool coloc_bypass(void)
{
	if (__builtin_expect(!coloc_cfg.disabled && coloc_cfg.role != COLOC_ROLE_NONE, 1))
		return coloc_tls.depth > 0;
	return coloc_bypass_off();
}
/* Marks the calling thread as inside colocc (nested hooks forward). */
static inline void coloc_enter(void)
{
	coloc_tls.depth++;
}
static inline void coloc_leave(void)
{
	coloc_tls.depth--;
}

void coloc_log(enum coloc_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define coloc_log_on(level) ((level) <= coloc_cfg.log_level)

/* Statistics: counters, and refusal reasons with their counts. */
enum coloc_stat {
	STAT_MODULES,           /* modules and libraries seen */
	STAT_MODULES_PTX,       /* of which with PTX for the device */
	STAT_KERNELS,           /* kernels seen (first launch or lookup) */
	STAT_KERNELS_SLICE,     /* kernels with a sliced variant */
	STAT_KERNELS_PTB,       /* kernels with a persistent variant */
	STAT_VARIANTS_COMPILED, /* modules transformed and compiled here */
	STAT_VARIANTS_CACHED,   /* modules found in the JIT cache */
	STAT_VARIANTS_AOT,      /* modules found in an AOT cache */
	STAT_VARIANTS_FAILED,   /* modules whose variants could not be made */
	STAT_LAUNCH_ORIGINAL,
	STAT_LAUNCH_SLICE,
	STAT_LAUNCH_PTB,
	STAT_LAUNCH_FALLBACK,   /* best-effort launches that fell back to the original */
	STAT_PROFILE_SAMPLES,   /* launches the profiler timed */
	STAT_PROFILE_CHOICES,   /* (kernel, geometry) pairs it chose a form for */
	STAT_PROFILE_LOADED,    /* pairs whose measurements came from the profile on disk */
	STAT_KTIME_PREEMPTIBLE, /* best-effort kernel time (ns, estimated) sliced or persistent */
	STAT_KTIME_BOUNDED,     /* original, within the turnaround bound */
	STAT_KTIME_UNBOUNDED,   /* original, beyond it */
	STAT_LAUNCH_UNTIMED,    /* best-effort launches with no estimate */
	STAT_PARK_BROKEN,       /* persistent launches whose waits or relaunches were refused */
	STAT_PARK_EXHAUSTED,    /* ... stopped more often than they had relaunches */
	STAT_HOLD_RELAUNCHES,   /* relaunches of stopped kernels by their threads (COLOC_PARK=host) */
	STAT_HOLD_FENCE_WAITS,  /* other threads' calls that waited for a held launch (fence.c) */
	STAT_FRESH_LAUNCHES,    /* COLOC_FRESH: launches of one-block-a-worker variants */
	STAT_FRESH_DRAINS,      /* ... and of the looping form, resuming what a stop gave up */
	STAT_COUNT
};

void coloc_stat_add(enum coloc_stat s, uint64_t n);
/*
 * The calling thread's lane, 0 to COLOC_THREAD_LANES - 1, for counters it
 * alone adds to (no locked instruction on a latency launch); -1 once the
 * first COLOC_THREAD_LANES threads took theirs (atomics then).
 */
#define COLOC_THREAD_LANES 8
int coloc_thread_lane_first(void);
static inline int coloc_thread_lane(void)
{
	int l = coloc_tls.lane;

	if (__builtin_expect(l > 0, 1))
		return l - 1;
	return l ? -1 : coloc_thread_lane_first();
}
/* Adds one to a counter only the calling thread writes: no locked instruction. */
static inline void coloc_lane_add(uint64_t *counter)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}
/* The original launches counted in lanes, a cache line each (config.c). */
#define COLOC_LANE_STRIDE 8
extern uint64_t coloc_original_lanes[COLOC_THREAD_LANES * COLOC_LANE_STRIDE];
void coloc_stat_original_shared(void);
/* Counts one original launch of this thread (`lane` from coloc_thread_lane). */
static inline void coloc_stat_original_launch(int lane)
{
	if (__builtin_expect(lane >= 0, 1))
		coloc_lane_add(&coloc_original_lanes[lane * COLOC_LANE_STRIDE]);
	else
		coloc_stat_original_shared();
}
/* Counts one kernel (or launch) refused a preemptible form, by reason. */
void coloc_stat_refusal(const char *reason);

/* ---- fence.c: other threads' work behind held launches (COLOC_PARK=host) */

/* Held launches live in the process; 0 but while a best-effort thread holds one. */
extern int coloc_holds_live;
void coloc_fence_begin_slow(CUstream stream, enum coloc_stream_flavor flavor);
void coloc_fence_end_slow(void);
/*
 * Around a driver call that puts work on an application's stream `stream`
 * (NULL: the default stream of `flavor`), after anything that may block:
 * begin waits until no other thread's held launch that the work must
 * follow is live; end closes the bracket.  Best-effort tenants only.
 */
static inline void coloc_fence_begin(CUstream stream, enum coloc_stream_flavor flavor)
{
	if (coloc_cfg.role == COLOC_ROLE_BEST_EFFORT)
		coloc_fence_begin_slow(stream, flavor);
}
static inline void coloc_fence_end(void)
{
	if (coloc_cfg.role == COLOC_ROLE_BEST_EFFORT)
		coloc_fence_end_slow();
}
/* A held launch on `stream` of the current context begins; its slot, or -1 (none free). */
int coloc_hold_register(CUstream stream, enum coloc_stream_flavor flavor);
/* ... and ends: calls that waited for it go on. */
void coloc_hold_unregister(int slot);

#endif
