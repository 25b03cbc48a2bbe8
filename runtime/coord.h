/*
 * The per-GPU coordinator: a shared segment every tenant of one GPU maps,
 * holding the tenant table.  colocctl reads it; no daemon is needed (the
 * first tenant creates it).  Layout is shared with tools/colocctl.
 */
#ifndef COLOC_COORD_H
#define COLOC_COORD_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define COLOC_SEGMENT_MAGIC 0x636f6c6f63736567ull /* "colocseg" */
#define COLOC_SEGMENT_VERSION 1
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
	TC_COUNT
};

struct coloc_tenant {
	int32_t pid;         /* 0: a free slot */
	uint32_t role;       /* enum coloc_role */
	uint64_t start_time; /* the process's start time (/proc/PID/stat), against pid reuse */
	char comm[32];
	uint32_t busy;       /* latency: work in flight (or within the hold time) */
	uint32_t pad;
	uint64_t busy_since_ns;
	uint64_t counters[TC_COUNT];
};

struct coloc_segment {
	uint64_t magic;
	uint32_t version;
	uint32_t size;       /* sizeof(struct coloc_segment) of the writer */
	char gpu[64];        /* the GPU's PCI bus id */
	pthread_mutex_t lock; /* robust, process-shared; guards the tenant slots' pid/role */
	uint64_t reaped;     /* tenants found dead and removed */
	struct coloc_tenant tenants[COLOC_MAX_TENANTS];
};

/* The process's start time in clock ticks since boot, or 0 when it is gone. */
uint64_t coloc_process_start(pid_t pid);
/* True when slot `t` names a live process (same pid, same start time). */
int coloc_tenant_alive(const struct coloc_tenant *t);

#endif
