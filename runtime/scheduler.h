/*
 * Scheduling between tenants of one GPU: the latency tenant says when it
 * has work in flight; best-effort tenants hold their launches back while it
 * does (policy isolate, docs/runtime-design.md).
 */
#ifndef COLOC_SCHEDULER_H
#define COLOC_SCHEDULER_H

#include "coloc.h"
#include "coord.h"

/* ---- coord.c */
struct coloc_segment *coloc_coord_open(const char *gpu, char *path, size_t path_size);
struct coloc_tenant *coloc_coord_join(struct coloc_segment *s, enum coloc_role role);
void coloc_coord_leave(struct coloc_segment *s, struct coloc_tenant *t);
unsigned coloc_coord_reap(struct coloc_segment *s);

/* ---- sched.c */

/*
 * A latency tenant is about to launch `fn` on the current context.  Under
 * policy fill, its communication kernels (NCCL's) do not make it busy.
 */
void coloc_sched_latency_launch(CUfunction fn);
/*
 * Around each best-effort kernel or slice put on `stream`: begin waits
 * until fewer than COLOC_BE_DEPTH (default 2) of this process's earlier
 * ones are unfinished, then while a latency tenant of the GPU is busy; end
 * marks the new one with an event.  So at most that many best-effort items
 * stand between the latency tenant and the GPU.
 */
void coloc_sched_issue_begin(void);
void coloc_sched_issue_end(CUstream stream, enum coloc_stream_flavor flavor);
/* Adds to one of this tenant's published counters on the current device. */
void coloc_sched_count(enum coloc_tenant_counter c, uint64_t n);

#endif
