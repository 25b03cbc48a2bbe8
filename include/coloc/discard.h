/*
 * The discard protocol: how a best-effort training tenant gives device
 * memory back quickly (issue 7).
 *
 * A training step spends most of its time computing gradients (forward and
 * backward), which changes nothing that persists: that work can be thrown
 * away and done again.  Only the model update, and a collective that other
 * ranks take part in, must run to their end.  The tenant marks its units
 * of work (a batch, usually) and the phase each is in; another party (an
 * operator with `colocctl discard`, later colocc's memory handover) posts a
 * request for memory; the tenant sees it at its next check while in the
 * compute phase, throws the current work away, frees what that work held,
 * acknowledges with the bytes it freed, and carries on, typically with
 * smaller micro-batches.
 *
 * States, per tenant and GPU (kept in the GPU's coordinator segment, so
 * that `colocctl status` shows them):
 *
 *   phase      NONE between units; COMPUTE from coloc_unit_begin; OPTIMIZER
 *              or COLLECTIVE as the tenant says; NONE again at coloc_unit_end
 *   request    outstanding from the moment one is posted until the tenant
 *              acknowledges it; requests posted before the acknowledgement
 *              are handled together
 *
 * A request is *deliverable* while it is outstanding and the phase is
 * COMPUTE.  One that arrives during OPTIMIZER or COLLECTIVE (or between
 * units) stays outstanding and becomes deliverable when the phase goes back
 * to COMPUTE, or when the next unit begins: no discard ever interrupts a
 * model update or leaves a collective half issued.
 *
 * These functions are exported by libcoloc.so, preloaded or linked.  They
 * act on the GPU whose context is current on the calling thread at the first
 * call that succeeds; later calls, from any thread, act on that GPU (one
 * GPU per process, as data-parallel training runs).  They never stop the
 * process: when colocc cannot take part they return an error.
 *
 * Errors (negative values of <errno.h>):
 *   -EPERM     this process is not a best-effort tenant (COLOC_ROLE is not
 *              best-effort, or colocc is off)
 *   -ENODEV    no coordinator: no CUDA context was current at the first
 *              call, COLOC_POLICY=none, or the GPU's segment is unavailable
 *   -EINVAL    not a phase of enum coloc_phase (or NONE to coloc_unit_phase)
 *   -EPROTO    coloc_unit_begin inside a unit, or coloc_unit_phase and
 *              coloc_unit_end outside one
 *   -EALREADY  coloc_discard_ack with no request reported by
 *              coloc_discard_pending since the last acknowledgement
 */
#ifndef COLOC_DISCARD_H
#define COLOC_DISCARD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum coloc_phase {
	COLOC_PHASE_NONE,       /* between units */
	COLOC_PHASE_COMPUTE,    /* forward and backward: may be discarded */
	COLOC_PHASE_OPTIMIZER,  /* the model update: never discarded */
	COLOC_PHASE_COLLECTIVE, /* a collective with other ranks: never discarded */
};

/* Starts unit `unit` (the caller's id: a step number) in phase COMPUTE. */
int coloc_unit_begin(uint64_t unit);
/* Moves the open unit to `phase` (COMPUTE, OPTIMIZER or COLLECTIVE). */
int coloc_unit_phase(enum coloc_phase phase);
/* Closes the open unit: phase NONE. */
int coloc_unit_end(void);

/*
 * 1 when a request is deliverable (outstanding, phase COMPUTE), with the
 * bytes wanted in *bytes (NULL allowed; 0: as much as the tenant can); 0
 * when not; or an error.  Cheap (a few loads): call it at every boundary
 * where the work could stop.  Safe from any thread.
 */
int coloc_discard_pending(uint64_t *bytes);
/*
 * Acknowledges the requests coloc_discard_pending reported, once the
 * discarded work's memory is given back to the driver; `freed_bytes` is
 * what was given back.  Requests posted after that report stay outstanding.
 */
int coloc_discard_ack(uint64_t freed_bytes);
/*
 * `fn(arg, bytes)` is called on a thread of libcoloc each time a request
 * becomes deliverable (once per request; requests posted before the call
 * are reported together), so that a loop need not poll.  It runs while the
 * tenant's own threads go on: it must only note the request (set a flag,
 * write to a pipe) and return; the tenant still calls coloc_discard_pending
 * and coloc_discard_ack from its own code.  NULL removes it.
 */
int coloc_discard_callback(void (*fn)(void *arg, uint64_t bytes), void *arg);

#ifdef __cplusplus
}
#endif

#endif
