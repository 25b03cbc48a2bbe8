/*
 * ptb: preemptible persistent thread blocks.
 *
 * Instead of N blocks, the runtime launches W worker blocks of the original
 * shape.  Each worker loops: one thread (the leader) reads a stop flag and,
 * unless it is set, takes the next virtual block id from a global counter;
 * the id reaches the rest of the block through shared memory; the block runs
 * the original body with %ctaid rebuilt from the id and %nctaid replaced by
 * the original grid; every ret becomes the loop's back-edge.  Setting the
 * flag makes each worker finish the block it holds and exit, so the kernel
 * leaves the GPU within one block's time; relaunching it with the same
 * counter resumes where it stopped.  Without --ptb-restart no taken block is
 * ever abandoned, and none runs twice (Tally, ASPLOS '25, section 3.2;
 * persistent threads after Gupta et al.).
 *
 *   __coloc_next:                           loop head, all threads
 *     barrier.sync 0;                        the previous block is done
 *     @leader && prev: red.release [ctl+4] += 1   count it
 *     @!leader bra __coloc_taken;
 *     stopped = stop word;  (the parker pauses instead, below)
 *     vid = total;                           stop: a poison id
 *     @!stopped atom.global.add.u32 vid, [ctl], 1;
 *     st.shared.u32 [slot[parity]], vid;
 *   __coloc_taken:
 *     barrier.sync 0;
 *     ld.shared.u32 vid, [slot[parity]];  parity ^= 1;
 *     @(vid >= total) bra __coloc_exit;
 *     ctaid.x = vid % gx; ctaid.y = vid / gx % gy; ctaid.z = vid / (gx * gy);
 *     <original body; "ret" is "bra __coloc_next">
 *   __coloc_exit:
 *     ret;
 *
 * The broadcast slot is double-buffered by iteration parity, so that no
 * thread can read a slot the leader is writing again whatever the barriers
 * between (Tally's public code uses one slot and one barrier, and a slow
 * warp can read the slot after the leader has overwritten it with the next
 * id, skipping one block and running another twice).  The barrier before
 * the count orders the whole block's writes of a virtual block before the
 * leader's release add, and the count comes before the leader looks at the
 * stop word, so that a paused worker's blocks are all counted.
 *
 * The loop-head barrier is the non-aligned barrier.sync: threads that
 * returned early arrive from other sites.  A kernel with CTA barriers goes
 * through unisync first (unisync.c), so that returned threads keep joining
 * the body's barriers and the whole block reaches the loop head together.
 *
 * Parameters appended, in order: __coloc_grid_x, _y, _z (.u32: the original
 * grid), __coloc_park, __coloc_slot_base and __coloc_batch (.u32),
 * __coloc_control (.u64: a device pointer to the control block, { u32 next;
 * u32 done; u32 redo_head; u32 redo_tail; }), __coloc_stop (.u64: a device
 * pointer to the stop record, which the leader
 * reads instead of a flag in the control block, so that one write stops
 * every launch of a context) and __coloc_redo (.u64: the redo ring, or
 * 0).  The stop record is { u32 word; u32 pad; u64 host }: a launch is
 * stopped while the word is non-zero.  A word above
 * 1 narrows it instead, to the SMs below a share of them: a worker on SM
 * %smid with %smid * 1024 >= (word - 1) * %nsmid finishes its block and
 * leaves as at a stop, and so does every worker of a helper (park 0)
 * wherever it runs, so that the helper stream is free again for the next
 * widening; the others go on, and so does the parker (below) wherever it
 * runs, so that a narrowed launch always ends.  The SMs above
 * are left to other work (another process's kernels, under MPS): a share
 * of the SMs, not of the workers, since a block occupies an SM whatever
 * its neighbours.  Word 1 is a stop of every worker.  The leader
 * counts each finished virtual block in done.  With park non-zero, worker 0
 * does not leave at a stop: its leader pauses (polling the word and done,
 * with nanosleep) while the block's other threads wait at the barrier, and
 * the worker goes on taking blocks when the stop is cleared, so that the
 * launch finishes even when no helper can run beside it.  When host is not
 * 0 it points to a u32 in mapped host memory that the CPU clears with a
 * plain store when it clears the word: a pause longer than 1 ms reads it
 * every 1 ms (such reads cost up to hundreds of microseconds, DESIGN.md), and
 * while it is clear the parker goes on taking blocks, looking at it again
 * every 1 ms, until the word's clear arrives.  That write can wait in a hardware queue behind
 * the stopped kernel's successors when streams share one (as under MPS),
 * and the kernel would otherwise wait for it forever.  At the end its leader waits until done
 * reaches the grid, so that the launch's stream moves on only when every
 * block is done, by this launch or by helpers launched with park 0 on
 * another stream after a stop (docs/runtime-design.md).  Workers,
 * block shape and dynamic shared memory are chosen at launch: 1-D worker
 * grid, original block shape and dynamic shared memory size.  The two
 * slots take 8 bytes of static shared memory, except in kernels that use
 * dynamic shared memory or are at the 48 KB static limit, where adding 8
 * bytes could fail their launch: there each worker w has its pair of words in
 * the control block instead, at byte 16 + 8 * (slot_base + w) (the manifest
 * says which; the runtime gives helpers slot_base = workers and sizes the
 * control block 16 + 16 * workers).
 *
 * With --ptb-restart (pass_ctx.ptb_restart), kernels with barriers can also
 * give a block up: at unisync's meeting point after a stop, when no thread
 * of the block has yet written anything outside it, the whole block leaves
 * the block unfinished, its leader puts its id in the launch's redo ring
 * (__coloc_redo: 2 x workers words; the ring's head and tail are the
 * control header's third and fourth words), and takes empty the ring before
 * the counter.  A block run again from its start does exactly what it would
 * have done the first time, since nothing it did was visible.  The parker
 * then stays until every block is done: a block may come back to the ring
 * while it is the only worker left.  Costs and measurements: docs/passes.md.
 *
 * A worker reuses its shared memory for block after block.  When the kernel
 * writes shared memory through the async proxy (bulk copies, TMA, wgmma and
 * tcgen05 operands), the previous block's ordinary reads of that memory must
 * be ordered before the next block's async writes: every thread runs
 * fence.proxy.async.shared::cta before the loop-head barrier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static const struct pass_param ptb_params[] = {
	{COLOC_PREFIX "grid_x", PASS_PARAM_GRID_X, 4, 4},
	{COLOC_PREFIX "grid_y", PASS_PARAM_GRID_Y, 4, 4},
	{COLOC_PREFIX "grid_z", PASS_PARAM_GRID_Z, 4, 4},
	{COLOC_PREFIX "park", PASS_PARAM_PARK, 4, 4},
	{COLOC_PREFIX "slot_base", PASS_PARAM_SLOT_BASE, 4, 4},
	{COLOC_PREFIX "batch", PASS_PARAM_BATCH, 4, 4},
	{COLOC_PREFIX "control", PASS_PARAM_CONTROL, 8, 8},
	{COLOC_PREFIX "stop", PASS_PARAM_STOP, 8, 8},
	{COLOC_PREFIX "redo", PASS_PARAM_REDO, 8, 8},
	/* Last, and only with --ptb-resume (every persistent variant of the module then). */
	{COLOC_PREFIX "save", PASS_PARAM_SAVE, 8, 8},
};


/* The module targets sm_`sm` or later in PTX `major`.`minor` or later. */
static bool target_at_least(const struct ptx_module *m, int sm, unsigned major, unsigned minor)
{
	const char *target = ptx_module_target(m);
	unsigned ma = 0, mi = 0;

	if (!target || strncmp(target, "sm_", 3) != 0 || atoi(target + 3) < sm)
		return false;
	return ptx_module_version(m, &ma, &mi) == 0 && (ma > major || (ma == major && mi >= minor));
}

/*
 * sm_70 and PTX 6.3 bring the memory model's release/acquire operations and
 * nanosleep; older targets get membar.gl around relaxed accesses and a
 * parked worker that polls without sleeping.
 */
static bool has_memory_model(const struct ptx_module *m)
{
	return target_at_least(m, 70, 6, 3);
}

/* sm_80 and PTX 7.0 bring cp.async (the copied read of the stop word, below). */
static bool has_copy_read(const struct ptx_module *m)
{
	return target_at_least(m, 80, 7, 0);
}

/*
 * Can a block of this kernel be given up at its barriers and run again
 * from its start?  Not when it uses mbarriers, async-proxy operations or
 * instructions colocc does not know (their effects are not known either);
 * *cp_async: it copies with cp.async, whose copies in flight must land
 * before the worker's shared memory serves another block.
 */
static bool restart_possible(const struct ptx_block *b, bool *cp_async)
{
	for (const struct ptx_stmt *s = b->head; s; s = s->next) {
		const struct ptx_insn *in = &s->u.insn;

		if (s->kind == PTX_STMT_BLOCK) {
			if (!restart_possible(&s->u.block, cp_async))
				return false;
			continue;
		}
		if (s->kind != PTX_STMT_INSN)
			continue;
		switch (in->op) {
		case PTX_OP_UNKNOWN:
		case PTX_OP_MBARRIER:
		case PTX_OP_WGMMA:
		case PTX_OP_TCGEN05:
		case PTX_OP_CLUSTERLAUNCHCONTROL:
			return false;
		case PTX_OP_CP:
			if (ptx_insn_has_mod(in, ".async") && !ptx_insn_has_mod(in, ".bulk"))
				*cp_async = true;
			break;
		default:
			break;
		}
	}
	return true;
}

static bool block_local(const struct ptx_insn *in)
{
	return ptx_insn_has_mod(in, ".shared") || ptx_insn_has_mod(in, ".shared::cta") ||
	       ptx_insn_has_mod(in, ".local") || ptx_insn_has_mod(in, ".param");
}

/*
 * Does the instruction change anything outside its block (global or
 * generic memory, surfaces, other blocks, a callee's unknown effects)?
 */
static bool leaves_a_trace(const struct ptx_insn *in)
{
	switch (in->op) {
	case PTX_OP_ST:
	case PTX_OP_ATOM:
	case PTX_OP_RED:
		return !block_local(in);
	case PTX_OP_WMMA:
		return ptx_insn_has_mod(in, ".store") && !block_local(in);
	case PTX_OP_CP:
		return ptx_insn_has_mod(in, ".bulk") || ptx_insn_has_mod(in, ".reduce");
	case PTX_OP_MULTIMEM:
	case PTX_OP_DISCARD:
	case PTX_OP_SUST:
	case PTX_OP_SURED:
	case PTX_OP_CALL:
	case PTX_OP_TENSORMAP:
	case PTX_OP_GRIDDEPCONTROL:
		return true;
	default:
		return false;
	}
}

/* Sets __coloc_dirty before every instruction that leaves a trace. */
static int mark_traces(struct pass_ctx *ctx, struct ptx_block *b)
{
	for (struct ptx_stmt *s = b->head; s; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK) {
			if (mark_traces(ctx, &s->u.block) < 0)
				return -1;
			continue;
		}
		if (s->kind == PTX_STMT_INSN && leaves_a_trace(&s->u.insn) &&
		    pass_insert_snippet(ctx, b, s, "mov.pred __coloc_dirty, 1;\n") < 0)
			return -1;
	}
	return 0;
}

/*
 * The block's decision at each meeting is the leader's last read of the
 * stop word, through a shared word double-buffered by meeting parity: a
 * block gives up at a stop (word 1); at a narrowing (above 1) its workers
 * finish their blocks as before.  The leader reads the word at the start
 * of every block and after meetings (STOP_LOAD), only in launches that give
 * blocks up (__coloc_hlead: a redo ring, no batches); the value is stored
 * at the next meeting.  After a site whose code runs straight to the next
 * site, and that one reads, it does not read (unisync.c, site_read): so a
 * stop is seen within three meetings, and a GEMM's step that only computes
 * between its two barriers does not wait for the read at its end.  The
 * placement is fixed per site, so no state goes from meeting to meeting.
 *
 * What it costs (H200, benchmarks/results/2026-11-26-h200/restart/): the
 * read is waited for at the next meeting, which holds the block there for
 * the read's latency (a tiled GEMM with two barriers per step: 2.4 times
 * its time).  Reading less often needs state carried from meeting to
 * meeting (a per-thread clock, a meeting count), and every version of that
 * tried, with a branch before or after the reduction or only a predicate,
 * made ptxas's code give wrong results, hang or trap, even where no block
 * could be given up (calls 3, 4, 5 and 8); what is here has no such state.
 * The first version's decision, with narrowings, took 14 instructions on
 * the meeting's path, which made barrier-heavy kernels up to 1.9 times
 * slower with nothing given up (call 7).
 *
 * Every meeting starts with bar.warp.sync over the warp's lanes (__coloc_wm,
 * made once in restart_init): unisync assumes whole warps meet, and after
 * the brx.idx dispatch nothing of its own reconverges a warp, so a warp can
 * leave a meeting split and reach the next one so; compute-sanitizer's
 * synccheck then finds divergent threads at the barrier, and the barrier
 * lets a warp's stores race with the loads after it.  Without the sync this
 * read's branch happened to reconverge the warps (results right, synccheck
 * not clean); the ninth session's copied read, which has no branch, gave
 * wrong results in four kernels with no stop at all
 * (benchmarks/results/2026-11-27-h200/session9/ and session10/).  Every
 * thread of a warp comes to every meeting, the returned ones too, so the
 * sync cannot wait for a thread that never arrives.
 */
/* The leader's read of the stop word, after a meeting. */
#define STOP_LOAD "@__coloc_hlead ld.volatile.global.u32 __coloc_hw, [__coloc_stopp];\n"

static const struct unisync_halt halt_code = {
	.before = "bar.warp.sync __coloc_wm;\n"
		  "@__coloc_leader st.shared.u32 [__coloc_haltp], __coloc_hw;\n",
	.after = "ld.shared.u32 __coloc_ht, [__coloc_haltp];\n"
		 "xor.b32 __coloc_haltp, __coloc_haltp, 4;\n"
		 "setp.eq.u32 __coloc_hq, __coloc_ht, 1;\n"
		 "@__coloc_hq bra __coloc_halting;\n",
	.halting = NULL, /* set in ptb_kernel: with cp.async.wait_all where needed */
	.site_read = STOP_LOAD,
};

/*
 * The fresh variant's meetings (ptb_variant): a thread that has left a trace
 * also marks the block's dirty word, so that the halting decision reads it
 * instead of reducing the flags in a second barrier.  On the GPT trainer's
 * GEMMs that second barrier.red alone took ptxas from 130 to 173 registers
 * (benchmarks/results/2026-11-27-h200/session13/).
 */
static const struct unisync_halt halt_fresh = {
	.before = "bar.warp.sync __coloc_wm;\n"
		  "@__coloc_leader st.shared.u32 [__coloc_haltp], __coloc_hw;\n"
		  "@__coloc_dirty st.shared.u32 [__coloc_halt+8], 1;\n",
	.after = "ld.shared.u32 __coloc_ht, [__coloc_haltp];\n"
		 "xor.b32 __coloc_haltp, __coloc_haltp, 4;\n"
		 "setp.eq.u32 __coloc_hq, __coloc_ht, 1;\n"
		 "@__coloc_hq bra __coloc_halting;\n",
	.halting = NULL,
	.site_read = STOP_LOAD,
};

/*
 * With pass_ctx.ptb_read_copy (colocc --ptb-stop-read=copy, the runtime's
 * COLOC_STOP_READ=copy; from sm_80 and PTX 7.0, in kernels that do not copy
 * with cp.async themselves): the leader copies the stop record's first 16
 * bytes into a shared mirror with cp.async.cg (from L2, where the stream's
 * write of the word lands) after each meeting, and at the next meeting waits
 * for it (cp.async.wait_all) and takes the word from the mirror.  The copy has
 * had a whole step of the kernel to land, and nothing else waits for it: a
 * load of the word (ld.volatile) instead holds the block at the next meeting
 * (the GPU harness's GEMM with K = 8192: 391 us with the copy, 646 us with
 * the load, 300 us original; benchmarks/results/2026-11-27-h200/session10/).  The wait is what the
 * PTX ISA asks before a thread reads what its cp.async wrote; the ninth
 * session's version read the mirror without it and racecheck reported the
 * copies' writes racing with the reads, and a version that tested an
 * mbarrier tracking the copy instead of waiting made the GEMM slower than the
 * load (712 us).  Kernels with short steps between meetings lose by it
 * (1492 against 1239 us): the wait finds the copy in flight.  A kernel with
 * its own copies reads by load: the wait would wait for its prefetches too.  The take waits for the copy sent at the last
 * meeting, so nothing lands in the mirror after the worker moves on or
 * leaves, and starts the word clear (a stop copied at the meeting that gave
 * the last block up cannot give up the next).
 */
static const struct unisync_halt halt_copy = {
	.before = "bar.warp.sync __coloc_wm;\n"
		  "@__coloc_hlead cp.async.wait_all;\n"
		  "@__coloc_hlead ld.shared.u32 __coloc_hw, [__coloc_mirror];\n"
		  "@__coloc_leader st.shared.u32 [__coloc_haltp], __coloc_hw;\n",
	.after = "ld.shared.u32 __coloc_ht, [__coloc_haltp];\n"
		 "xor.b32 __coloc_haltp, __coloc_haltp, 4;\n"
		 "@__coloc_hlead cp.async.cg.shared.global [__coloc_mirror], [__coloc_stopp], 16;\n"
		 "setp.eq.u32 __coloc_hq, __coloc_ht, 1;\n"
		 "@__coloc_hq bra __coloc_halting;\n",
	.halting = NULL,
};

/* Each block's first copy, from its start. */
#define COPY_SEND "@__coloc_hlead cp.async.cg.shared.global [__coloc_mirror], [__coloc_stopp], 16;\n"

/* The leader's take (above). */
static const char copy_take[] = "cp.async.wait_all;\n"
				"mov.u32 __coloc_hw, 0;\n";

/* The mirror: the size and alignment cp.async.cg copies. */
static const char copy_decls[] = ".shared .align 16 .b8 __coloc_mirror[16];\n";

/*
 * What the slots, the halt words (with the fresh variant's dirty word and
 * resume's slot word: restart_decls) and the mirror add to static shared
 * memory, with alignment: a kernel closer than this to the 48 KB static
 * limit finishes its stopped blocks rather than fail its build.  Resuming
 * adds no shared word of its own.
 */
#define RESTART_SHARED_BYTES 32
#define RESTART_COPY_SHARED_BYTES 64

/*
 * Registers and words of a kernel whose blocks can be given up.  One shared
 * array holds every word the variants add besides the broadcast slots: the
 * two halt words, then the fresh variant's dirty word (+8) and resume.c's
 * slot word (+12).  A block the fresh variant saves is restored by the
 * looping one, and a saved register may hold a shared-memory address: the
 * kernel's own shared variables must be where they were.  With the same
 * declarations in both, in the same order and first used in the same order,
 * ptxas places them alike; when the fresh variant declared its dirty word
 * apart, the looping variant restored its blocks 4 bytes off, and the GPU
 * harness's fresh storm got wrong results in 31 cases
 * (benchmarks/results/2026-11-28-h200/session14/).
 */
static const char restart_decls[] =
	".reg .b32 __coloc_hw, __coloc_ht, __coloc_haltp, __coloc_cap;\n"
	".reg .b32 __coloc_rh, __coloc_rt, __coloc_ri;\n"
	".reg .b64 __coloc_redop, __coloc_ra;\n"
	".reg .pred __coloc_dirty, __coloc_hq, __coloc_canhalt, __coloc_rq, __coloc_hlead;\n"
	".reg .b32 __coloc_wm, __coloc_wn;\n"
	".reg .pred __coloc_drain;\n"
	".shared .align 8 .b32 __coloc_halt[4];\n";

/*
 * The fresh variant's word for the dirty flags (ptb_variant), and its take's
 * look at the ring (fresh_take): registers of its own, since reusing the
 * give-up's (rh, rt) took ptxas from 136 to 171 registers on the GPT
 * trainer's forward GEMM.
 */
static const char fresh_decls[] = ".reg .b32 __coloc_fh, __coloc_ft;\n"
				  ".reg .pred __coloc_fq;\n";

/*
 * The ring holds twice a launch's workers: its own and one helper's.  A
 * format: the fresh variant's capacity (before hlead), the looping
 * variant's (after it), then the looping variant's drain predicate or the
 * fresh variant's dirty word's clear.
 */
static const char restart_init[] =
	"mov.u32 __coloc_hw, 0;\n"
	"mov.u32 __coloc_haltp, __coloc_halt;\n"
	"mov.pred __coloc_dirty, 0;\n"
	"ld.param.u64 __coloc_redop, [__coloc_redo];\n"
	"setp.ne.u64 __coloc_canhalt, __coloc_redop, 0;\n"
	"setp.eq.and.u32 __coloc_canhalt, __coloc_nbatch, 1, __coloc_canhalt;\n"
	"%s"
	"and.pred __coloc_hlead, __coloc_leader, __coloc_canhalt;\n"
	"cvta.to.global.u64 __coloc_redop, __coloc_redop;\n"
	"%s"
	/*
	 * The warp's lanes, for the meeting's bar.warp.sync: those of the
	 * block's threads from the warp's first linear thread id, at most 32
	 * (a shift by 32 gives 0, so 32 lanes give all ones).
	 */
	"mov.u32 __coloc_wm, %%tid.z;\n"
	"mov.u32 __coloc_wn, %%ntid.y;\n"
	"mul.lo.u32 __coloc_wm, __coloc_wm, __coloc_wn;\n"
	"mov.u32 __coloc_wn, %%tid.y;\n"
	"add.u32 __coloc_wm, __coloc_wm, __coloc_wn;\n"
	"mov.u32 __coloc_wn, %%ntid.x;\n"
	"mul.lo.u32 __coloc_wm, __coloc_wm, __coloc_wn;\n"
	"mov.u32 __coloc_wn, %%tid.x;\n"
	"add.u32 __coloc_wm, __coloc_wm, __coloc_wn;\n"
	"and.b32 __coloc_wm, __coloc_wm, -32;\n"
	"mov.u32 __coloc_wn, %%ntid.x;\n"
	"mov.u32 __coloc_ri, %%ntid.y;\n"
	"mul.lo.u32 __coloc_wn, __coloc_wn, __coloc_ri;\n"
	"mov.u32 __coloc_ri, %%ntid.z;\n"
	"mul.lo.u32 __coloc_wn, __coloc_wn, __coloc_ri;\n"
	"sub.u32 __coloc_wn, __coloc_wn, __coloc_wm;\n"
	"min.u32 __coloc_wn, __coloc_wn, 32;\n"
	"mov.u32 __coloc_wm, 1;\n"
	"shl.b32 __coloc_wm, __coloc_wm, __coloc_wn;\n"
	"sub.u32 __coloc_wm, __coloc_wm, 1;\n"
	"%s";

/*
 * The looping variant's ring capacity: twice the launch's workers, or its
 * slot_base where that is larger.  A helper's slot_base is its launch's
 * workers (the runtime's and diffrun's), so a launch and its helpers agree
 * on the capacity, and so on where each entry is, however few workers a
 * helper has (after a narrowing, the runtime's have fewer).  A launch with
 * park 2 only drains the ring: its workers leave once it is empty.
 */
static const char loop_cap[] =
	"ld.param.u32 __coloc_cap, [__coloc_slot_base];\n"
	"mov.u32 __coloc_t, %nctaid.x;\n"
	"max.u32 __coloc_cap, __coloc_cap, __coloc_t;\n"
	"shl.b32 __coloc_cap, __coloc_cap, 1;\n";
static const char loop_drain[] = "ld.param.u32 __coloc_t, [__coloc_park];\n"
				 "setp.eq.u32 __coloc_drain, __coloc_t, 2;\n";

/*
 * The fresh variant's: twice slot_base, whatever its grid (a worker per
 * block), so that it agrees with the looping launches that drain its ring;
 * slot_base 0 gives no ring, and no block is given up.
 */
static const char fresh_cap[] =
	"ld.param.u32 __coloc_cap, [__coloc_slot_base];\n"
	"setp.ne.and.u32 __coloc_canhalt, __coloc_cap, 0, __coloc_canhalt;\n"
	"shl.b32 __coloc_cap, __coloc_cap, 1;\n";
static const char fresh_clear[] = "@__coloc_leader st.shared.u32 [__coloc_halt+8], 0;\n";

/*
 * The leader's take: a block given up comes first (claim the ring's head,
 * then wait for the entry its giver writes after counting the tail), then
 * the counter, which is not moved once past the grid.  The parker does not
 * leave while blocks are not done: they may still be given up, and it may
 * be the only worker left to run them.
 */
static const char restart_take[] =
	"%s"
	"@__coloc_stopped bra __coloc_took;\n"
	"%s"
	"__coloc_fresh:\n"
	"%s"
	"ld.volatile.global.u32 __coloc_ri, [__coloc_ctl];\n"
	"setp.lt.u32 __coloc_rq, __coloc_ri, __coloc_total;\n"
	"@__coloc_rq atom.global.add.u32 __coloc_vid, [__coloc_ctl], __coloc_nbatch;\n"
	"setp.lt.u32 __coloc_rq, __coloc_vid, __coloc_total;\n"
	"@__coloc_rq bra __coloc_took;\n"
	"and.pred __coloc_rq, __coloc_parker, __coloc_canhalt;\n"
	"@!__coloc_rq bra __coloc_took;\n"
	"ld.acquire.gpu.global.u32 __coloc_t, [__coloc_ctl+4];\n"
	"setp.ge.u32 __coloc_rq, __coloc_t, __coloc_total;\n"
	"@__coloc_rq bra __coloc_took;\n"
	"nanosleep.u32 1000;\n"
	"bra __coloc_poll;\n"
	"__coloc_took:\n";

/*
 * The looping variant's pop (restart_take's second %s; the fresh variant
 * takes no block from the ring, and has no restore path).  A drain-only
 * launch (park 2) leaves when the ring is empty (restart_take's third).
 */
static const char restart_pop[] =
	"@!__coloc_canhalt bra __coloc_fresh;\n"
	"__coloc_pop:\n"
	"ld.volatile.global.v2.u32 {__coloc_rh, __coloc_rt}, [__coloc_ctl+8];\n"
	"setp.ge.u32 __coloc_rq, __coloc_rh, __coloc_rt;\n"
	"@__coloc_rq bra __coloc_fresh;\n"
	"add.u32 __coloc_ri, __coloc_rh, 1;\n"
	"atom.global.cas.b32 __coloc_ri, [__coloc_ctl+8], __coloc_rh, __coloc_ri;\n"
	"setp.ne.u32 __coloc_rq, __coloc_ri, __coloc_rh;\n"
	"@__coloc_rq bra __coloc_pop;\n"
	"rem.u32 __coloc_ri, __coloc_rh, __coloc_cap;\n"
	"mul.wide.u32 __coloc_ra, __coloc_ri, 4;\n"
	"add.s64 __coloc_ra, __coloc_ra, __coloc_redop;\n"
	"__coloc_popwait:\n"
	"atom.global.exch.b32 __coloc_vid, [__coloc_ra], 0;\n"
	"setp.eq.u32 __coloc_rq, __coloc_vid, 0;\n"
	"@__coloc_rq nanosleep.u32 100;\n"
	"@__coloc_rq bra __coloc_popwait;\n"
	"%s"
	"sub.u32 __coloc_vid, __coloc_vid, 1;\n"
	"bra __coloc_took;\n";
static const char loop_drain_take[] = "@__coloc_drain bra __coloc_took;\n";

/*
 * The fresh variant's take (restart_take's third %s): no block is taken
 * once the ring holds one.  Nothing pops the ring while a fresh launch runs
 * (the runtime drains it between launches, alone), and the runtime starts
 * one only with the ring empty; so the blocks it gives up are those taken
 * before its first give-up counted the tail, all resident then: at most a
 * wave, which the ring (twice slot_base, at least the wave) holds.  Without
 * it, a launch stopped, cleared and stopped again went on taking blocks
 * between the stops, and its give-ups could fill the ring: the next one
 * then waited for a position that only a drain after the launch would free
 * (the GPT trainer hung so beside ResNet-50 on an H200, 2 runs of 6,
 * benchmarks/results/2026-11-27-h200/session13/).
 */
static const char fresh_take[] =
	"ld.volatile.global.v2.u32 {__coloc_fh, __coloc_ft}, [__coloc_ctl+8];\n"
	"setp.ne.and.u32 __coloc_fq, __coloc_fh, __coloc_ft, __coloc_canhalt;\n"
	"@__coloc_fq bra __coloc_took;\n";

/*
 * Whether the launch has a save area (the parameter, in a launch that gives
 * blocks up), and its address; the linear thread index and count.  Made
 * again where they are used (the stop, the pop, the restore) rather than
 * kept from the start: four values held through the whole kernel cost the
 * register-capped copies of the long trainer's GEMMs spills at every step.
 */
#define RESUME_AREA                                                \
	"ld.param.u64 __coloc_savep, [__coloc_save];\n"           \
	"setp.ne.u64 __coloc_canres, __coloc_savep, 0;\n"         \
	"and.pred __coloc_canres, __coloc_canres, __coloc_canhalt;\n" \
	"cvta.to.global.u64 __coloc_savep, __coloc_savep;\n"
#define RESUME_THREAD                                       \
	"mov.u32 __coloc_tl, %tid.z;\n"                    \
	"mov.u32 __coloc_ci, %ntid.y;\n"                   \
	"mul.lo.u32 __coloc_tl, __coloc_tl, __coloc_ci;\n" \
	"mov.u32 __coloc_ci, %tid.y;\n"                    \
	"add.u32 __coloc_tl, __coloc_tl, __coloc_ci;\n"    \
	"mov.u32 __coloc_ci, %ntid.x;\n"                   \
	"mul.lo.u32 __coloc_tl, __coloc_tl, __coloc_ci;\n" \
	"mov.u32 __coloc_ci, %tid.x;\n"                    \
	"add.u32 __coloc_tl, __coloc_tl, __coloc_ci;\n"    \
	"mov.u32 __coloc_nthr, %ntid.x;\n"                 \
	"mov.u32 __coloc_ci, %ntid.y;\n"                   \
	"mul.lo.u32 __coloc_nthr, __coloc_nthr, __coloc_ci;\n" \
	"mov.u32 __coloc_ci, %ntid.z;\n"                   \
	"mul.lo.u32 __coloc_nthr, __coloc_nthr, __coloc_ci;\n"

/*
 * With --ptb-resume: the take starts with no saved state; a popped entry
 * with the top bit set was saved at its ring position (resume.c), which the
 * leader passes to the block through __coloc_halt+12, its slot word (position + 1).
 */
static const char resume_take[] = "st.shared.u32 [__coloc_halt+12], 0;\n";
static const char resume_pop[] = "fence.acq_rel.gpu;\n"
				 RESUME_AREA
				 "setp.ge.and.u32 __coloc_rq, __coloc_vid, 0x80000000, __coloc_canres;\n"
				 "and.b32 __coloc_vid, __coloc_vid, 0x7fffffff;\n"
				 "add.u32 __coloc_t, __coloc_ri, 1;\n"
				 "selp.u32 __coloc_t, __coloc_t, 0, __coloc_rq;\n"
				 "st.shared.u32 [__coloc_halt+12], __coloc_t;\n";

/*
 * Giving up: the whole block arrives here from the meeting point; its
 * leader puts the block in the ring (count the tail, then write the entry
 * once its previous occupant is claimed), and it is not counted done.  With
 * --ptb-resume and a save area the leader first claims the position's slot
 * (its busy word), every thread saves its state there (the first %s), and
 * the entry carries the top bit.
 */
static const char restart_abandon[] =
	"__coloc_abandon:\n"
	"@!__coloc_leader bra %s;\n"
	"atom.global.add.u32 __coloc_rt, [__coloc_ctl+12], 1;\n"
	"rem.u32 __coloc_rt, __coloc_rt, __coloc_cap;\n"
	"%s%s%s"
	"mul.wide.u32 __coloc_ra, __coloc_rt, 4;\n"
	"add.s64 __coloc_ra, __coloc_ra, __coloc_redop;\n"
	"add.u32 __coloc_ri, __coloc_vid, 1;\n"
	"%s"
	"__coloc_push:\n"
	"atom.global.cas.b32 __coloc_rh, [__coloc_ra], 0, __coloc_ri;\n"
	"setp.ne.u32 __coloc_rq, __coloc_rh, 0;\n"
	"@__coloc_rq nanosleep.u32 100;\n"
	"@__coloc_rq bra __coloc_push;\n"
	"__coloc_abandoned:\n"
	"mov.pred __coloc_prev, 0;\n"
	"mov.u32 __coloc_end, 0;\n"
	"bra %s;\n";

/* resume.c's registers (its slot word is __coloc_halt+12, restart_decls). */
static const char resume_decls[] =
	".reg .b64 __coloc_savep, __coloc_sva, __coloc_svg, __coloc_sga;\n"
	".reg .b32 __coloc_rs, __coloc_tl, __coloc_nthr, __coloc_ci, __coloc_cs, __coloc_cv;\n"
	".reg .pred __coloc_canres, __coloc_resuming, __coloc_cq;\n";

static const char resume_init[] = "mov.pred __coloc_resuming, 0;\n";

/*
 * Saving (with a save area): the leader claims the slot of the block's ring
 * position (its busy word, freed by the worker that restores from it) and
 * passes the position on; every thread stores its state (resume.c), and
 * the stores are made visible before the entry is written.
 */
static const char resume_save_head[] =
	"__coloc_abandoning:\n"
	"@!__coloc_canres bra __coloc_saved;\n"
	"@!__coloc_leader bra __coloc_claimed;\n"
	"mul.wide.u32 __coloc_ra, __coloc_rt, 4;\n"
	"add.s64 __coloc_ra, __coloc_ra, __coloc_savep;\n"
	"__coloc_claim:\n"
	"atom.acquire.gpu.global.cas.b32 __coloc_rh, [__coloc_ra], 0, 1;\n"
	"setp.ne.u32 __coloc_rq, __coloc_rh, 0;\n"
	"@__coloc_rq nanosleep.u32 100;\n"
	"@__coloc_rq bra __coloc_claim;\n"
	"st.shared.u32 [__coloc_halt+12], __coloc_rt;\n"
	"__coloc_claimed:\n"
	"barrier.sync 0;\n"
	"ld.shared.u32 __coloc_rs, [__coloc_halt+12];\n";
static const char resume_save_tail[] = "fence.acq_rel.gpu;\n"
				       "barrier.sync 0;\n"
				       "__coloc_saved:\n"
				       "@!__coloc_leader bra __coloc_abandoned;\n";
/* The entry of a saved block carries the top bit. */
static const char resume_push[] = "fence.acq_rel.gpu;\n"
				  "@__coloc_canres or.b32 __coloc_ri, __coloc_ri, 0x80000000;\n";

/*
 * Restoring, after a take that popped a saved block and the usual start of
 * a block: the state comes back (resume.c), the slot is freed, and the block
 * meets again at the meeting it stopped at: __coloc_sync with the restored
 * resume index (is_sync as it was: set for every thread not yet returned),
 * so each warp converges there as at any meeting, the stop word is read
 * again (a block stopped at once is saved again), and the dispatch sends
 * each thread on where it was.  Jumping to the dispatch directly was right
 * but cost the kernel everywhere: with an entry into the dispatch from
 * outside the meetings, ptxas made every meeting's warp sync a MATCH.ANY
 * sequence and the persistent forms ran up to 2.5 times slower with nothing
 * stopped (GPU test file 16's long_counted 3626 against 2091 us, GEMM 787
 * against 636 us; benchmarks/results/2026-11-27-h200/session11/).  Every
 * launch that shares a control block must pass the same save area: one
 * without (save 0) that popped a saved block would run it again from its
 * start and never free its slot.
 */
static const char resume_restore[] = "__coloc_restore:\n"
				     "%s"
				     "fence.acq_rel.gpu;\n"
				     "sub.u32 __coloc_rs, __coloc_rs, 1;\n"
				     "%s"
				     "barrier.sync 0;\n"
				     "mov.pred __coloc_resuming, 0;\n"
				     "@__coloc_leader mul.wide.u32 __coloc_ra, __coloc_rs, 4;\n"
				     "@__coloc_leader add.s64 __coloc_ra, __coloc_ra, __coloc_savep;\n"
				     "@__coloc_leader st.release.gpu.global.u32 [__coloc_ra], 0;\n"
				     "setp.ne.u32 __coloc_is_sync, __coloc_resume, 0;\n"
				     "bra __coloc_sync;\n";

/*
 * A resumed block runs the kernel's pure prefix again (liveness.c: the
 * registers only it writes are not saved) and restores just before the
 * instruction that follows it, after any label there, so that every path
 * through the prefix comes by; where that label is a loop's head, before it
 * (nothing in the prefix goes to it then).  The variant's body starts with the
 * original's statements (unisync added only declarations before them, and
 * nothing inside the prefix: it has no barrier, return or store; what it put
 * before the instruction after it, a meeting or a trace mark, comes after the
 * restore), so that is its instruction number prefix_insns; anything else is
 * a bug, reported as one.
 */
static int after_prefix(struct pass_ctx *ctx, struct pass_kernel *k, struct ptx_func *f)
{
	const struct ptx_stmt *orig = k->func->body.head;
	struct ptx_stmt *s;
	unsigned n = 0;

	for (s = f->body.head; s; s = s->next) {
		/* Before a loop's label that follows the prefix, not inside the loop. */
		if (s->kind == PTX_STMT_LABEL && k->resume_before_label &&
		    n == k->resume_prefix_insns)
			return pass_insert_snippet(ctx, &f->body, s,
						   "@__coloc_resuming bra __coloc_restore;\n");
		if (s->kind == PTX_STMT_DECL || s->kind == PTX_STMT_LOC || s->kind == PTX_STMT_LABEL)
			continue;
		/* The instruction after it may be the passes' (a barrier's meeting, a trace mark). */
		if (s->kind == PTX_STMT_INSN && n == k->resume_prefix_insns)
			return pass_insert_snippet(ctx, &f->body, s,
						   "@__coloc_resuming bra __coloc_restore;\n");
		while (orig && orig->kind != PTX_STMT_INSN)
			orig = orig->next;
		if (s->kind != PTX_STMT_INSN || !orig || s->u.insn.op != orig->u.insn.op)
			break;
		n++;
		orig = orig->next;
	}
	coloc_error(ctx->diag, PTX_NOLOC, "internal error: the persistent variant of %s does not "
		    "start with the kernel's first %u instructions", k->func->name->str,
		    k->resume_prefix_insns);
	return -1;
}

static int ptb_variant(struct pass_ctx *ctx, struct pass_kernel *k, bool fresh)
{
	static const char dims[] = "xyz";
	struct ptx_module *m = ctx->module;
	struct ptx_stmt *v = pass_clone_kernel(ctx, k, k->func, fresh ? "fresh" : "ptb");
	const struct ptx_ident *ctaid[3] = {0}, *nctaid[3] = {0};
	struct coloc_buf decompose;
	struct ptx_func *f;
	struct ptx_stmt *first;
	bool mm = has_memory_model(m);
	bool cp_async = false;
	bool copy_read;
	struct unisync_halt halt;
	struct coloc_buf save, restore, take, abandon, halting, pop, init, fin;
	unsigned nparams = sizeof(ptb_params) / sizeof(ptb_params[0]) - !ctx->ptb_resume;
	bool resume = false;
	unsigned i;
	char name[64];
	int rc = -1;

	coloc_buf_init(&decompose);
	coloc_buf_init(&save);
	coloc_buf_init(&restore);
	coloc_buf_init(&take);
	coloc_buf_init(&abandon);
	coloc_buf_init(&halting);
	coloc_buf_init(&pop);
	coloc_buf_init(&init);
	coloc_buf_init(&fin);
	if (!v)
		goto out;
	f = v->u.func;
	/* The loop head's barrier.sync: non-aligned, threads arrive from different sites. */
	if (pass_need_barrier_isa(m) < 0)
		goto out;
	/*
	 * Giving up a block at a stop: at unisync's meeting point, shared
	 * words for the decision, and the memory model for the redo ring.  The
	 * fresh variant follows the looping one's decisions.
	 */
	if (fresh)
		(void)restart_possible(&f->body, &cp_async);
	else
		k->ptb_restart = ctx->ptb_restart && k->unisync_needed && !k->ptb_global_slots && mm &&
				 k->facts.static_shared + RESTART_SHARED_BYTES <= 48 * 1024 &&
				 restart_possible(&f->body, &cp_async);
	/* A kernel near the 48 KB limit with room for the halt words but not the mirror reads by load. */
	copy_read = !fresh && k->ptb_restart && ctx->ptb_read_copy && has_copy_read(m) && !cp_async &&
		    k->facts.static_shared + RESTART_COPY_SHARED_BYTES <= 48 * 1024;
	halt = fresh ? halt_fresh : copy_read ? halt_copy : halt_code;
	if (!fresh && k->ptb_restart && ctx->ptb_read_copy && !copy_read)
		k->ptb_read_load_why = !has_copy_read(m) ? "the target is before sm_80 or PTX 7.0"
				       : cp_async ? "the kernel copies with cp.async itself, and the "
						    "wait for the copy would wait for its copies too"
						  : "the mirror does not fit in 48 KB of static shared memory";
	/* Resuming where the block stopped (resume.c): its slot word, its state. */
	if (fresh && k->ptb_resume) {
		if (pass_resume_code(ctx, k, &save, &restore) != 1)
			goto out;
		resume = true;
	} else if (!fresh && k->ptb_restart && ctx->ptb_resume) {
		if ((rc = pass_resume_code(ctx, k, &save, &restore)) < 0)
			goto out;
		resume = rc == 1;
		rc = -1;
	}
	if (!fresh)
		k->ptb_resume = resume;
	/*
	 * Stopped: a block with no trace outside it is given up; with a save
	 * area, any block (its state goes with it).
	 */
	if (resume)
		coloc_buf_printf(&halting, "%s@__coloc_canres bra __coloc_resgive;\n",
				 RESUME_AREA RESUME_THREAD);
	coloc_buf_printf(&halting,
			 "%s"
			 "@__coloc_hq bra __coloc_dispatch;\n"
			 "%s"
			 "bra __coloc_abandon;\n",
			 fresh ? "ld.shared.u32 __coloc_ht, [__coloc_halt+8];\n"
				 "setp.ne.u32 __coloc_hq, __coloc_ht, 0;\n"
			       : "barrier.red.or.pred __coloc_hq, 0, __coloc_dirty;\n",
			 cp_async ? "cp.async.wait_all;\n" : "");
	if (resume)
		coloc_buf_printf(&halting, "__coloc_resgive:\n%sbra __coloc_abandon;\n",
				 cp_async ? "cp.async.wait_all;\n" : "");
	if (!fresh)
		coloc_buf_printf(&pop, restart_pop, resume ? resume_pop : "");
	coloc_buf_printf(&take, restart_take, resume && !fresh ? resume_take : "",
			 fresh ? "" : coloc_buf_cstr(&pop), fresh ? fresh_take : loop_drain_take);
	coloc_buf_printf(&abandon, restart_abandon, resume ? "__coloc_abandoning" : "__coloc_abandoned",
			 resume ? resume_save_head : "",
			 resume ? coloc_buf_cstr(&save) : "", resume ? resume_save_tail : "",
			 resume ? resume_push : "", fresh ? "__coloc_fin" : "__coloc_next");
	if (resume && !fresh)
		coloc_buf_printf(&abandon, resume_restore, RESUME_AREA RESUME_THREAD,
				 coloc_buf_cstr(&restore));
	if (k->ptb_restart)
		coloc_buf_printf(&init, restart_init, fresh ? fresh_cap : "", fresh ? "" : loop_cap,
				 fresh ? fresh_clear : loop_drain);
	halt.halting = coloc_buf_cstr(&halting);
	if (!halt.halting || !coloc_buf_cstr(&take) || !coloc_buf_cstr(&abandon) ||
	    !coloc_buf_cstr(&init))
		goto out;
	if (k->ptb_restart && mark_traces(ctx, &f->body) < 0)
		goto out;
	if (k->unisync_needed && pass_unisync_apply(ctx, k, f, k->ptb_restart ? &halt : NULL) < 0)
		goto out;
	for (i = 0; i < nparams; i++)
		if (!pass_add_param(m, f, ptb_params[i].name, ptb_params[i].size * 8))
			goto out;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), COLOC_PREFIX "ctaid_%c", dims[i]);
		if (k->facts.ctaid_dims & (1u << i))
			ctaid[i] = ptx_intern_cstr(m, name);
		snprintf(name, sizeof(name), COLOC_PREFIX "g%c", dims[i]);
		nctaid[i] = ptx_intern_cstr(m, name);
	}
	if (ctaid[0])
		coloc_buf_puts(&decompose, "rem.u32 __coloc_ctaid_x, __coloc_vid, __coloc_gx;\n");
	if (ctaid[1])
		coloc_buf_puts(&decompose, "div.u32 __coloc_t, __coloc_vid, __coloc_gx;\n"
					   "rem.u32 __coloc_ctaid_y, __coloc_t, __coloc_gy;\n");
	if (ctaid[2])
		coloc_buf_puts(&decompose, "div.u32 __coloc_ctaid_z, __coloc_vid, __coloc_gxy;\n");
	k->ptb_read_copy = copy_read;
	if (k->ptb_restart)
		coloc_buf_puts(&decompose,
			       copy_read ? "mov.pred __coloc_dirty, 0;\n" COPY_SEND
					 : "mov.pred __coloc_dirty, 0;\n"
					   "@__coloc_hlead ld.volatile.global.u32 __coloc_hw, [__coloc_stopp];\n");
	if (resume && !fresh && !k->resume_prefix_insns)
		coloc_buf_puts(&decompose, "@__coloc_resuming bra __coloc_restore;\n");
	if (!coloc_buf_cstr(&decompose))
		goto out;
	if (resume && !fresh && k->resume_prefix_insns && after_prefix(ctx, k, f) < 0)
		goto out;

	pass_replace_block_ids(m, &f->body, ctaid, nctaid);
	if (pass_returns_to_branch(m, &f->body, fresh ? "__coloc_fin" : "__coloc_next") < 0)
		goto out;
	first = f->body.head;
	/*
	 * The slot for iteration parity p: slot[p] in shared memory, or, where
	 * shared memory is not to be touched (analysis.c), the worker's own pair
	 * of words after the control block's header: ctl + 8 + 8 * worker + 4 * p.
	 */
	if (pass_insert_snippet(
		    ctx, &f->body, first,
		    ".reg .b32 __coloc_vid, __coloc_total, __coloc_gx, __coloc_gy, __coloc_gz, __coloc_gxy;\n"
		    ".reg .b32 __coloc_t, __coloc_parity, __coloc_slotp;\n"
		    ".reg .b32 __coloc_ctaid_x, __coloc_ctaid_y, __coloc_ctaid_z;\n"
		    ".reg .b64 __coloc_ctl, __coloc_stopp, __coloc_slotg, __coloc_slota;\n"
		    ".reg .b64 __coloc_host, __coloc_now, __coloc_since;\n"
		    ".reg .pred __coloc_leader, __coloc_stopped, __coloc_done, __coloc_prev, __coloc_count, __coloc_parker;\n"
		    ".reg .pred __coloc_pause, __coloc_paused, __coloc_hostclear, __coloc_narrow, __coloc_helper;\n"
		    ".reg .b32 __coloc_sm, __coloc_nsm, __coloc_nbatch, __coloc_end;\n"
		    ".reg .pred __coloc_within;\n"
		    "%s"
		    "%s"
		    "%s"
		    "%s"
		    "ld.param.u32 __coloc_gx, [__coloc_grid_x];\n"
		    "ld.param.u32 __coloc_gy, [__coloc_grid_y];\n"
		    "ld.param.u32 __coloc_gz, [__coloc_grid_z];\n"
		    "ld.param.u64 __coloc_ctl, [__coloc_control];\n"
		    "cvta.to.global.u64 __coloc_ctl, __coloc_ctl;\n"
		    "ld.param.u64 __coloc_stopp, [__coloc_stop];\n"
		    "cvta.to.global.u64 __coloc_stopp, __coloc_stopp;\n"
		    "%s"
		    "mov.u32 __coloc_end, 0;\n"
		    "ld.param.u32 __coloc_t, [__coloc_slot_base];\n"
		    "mov.u32 __coloc_vid, %%ctaid.x;\n"
		    "add.u32 __coloc_t, __coloc_t, __coloc_vid;\n"
		    "mul.wide.u32 __coloc_slotg, __coloc_t, 8;\n"
		    "add.s64 __coloc_slotg, __coloc_slotg, __coloc_ctl;\n"
		    "add.s64 __coloc_slotg, __coloc_slotg, 16;\n"
		    "mul.lo.u32 __coloc_gxy, __coloc_gx, __coloc_gy;\n"
		    "mul.lo.u32 __coloc_total, __coloc_gxy, __coloc_gz;\n"
		    "mov.u32 __coloc_t, %%tid.x;\n"
		    "mov.u32 __coloc_vid, %%tid.y;\n"
		    "or.b32 __coloc_t, __coloc_t, __coloc_vid;\n"
		    "mov.u32 __coloc_vid, %%tid.z;\n"
		    "or.b32 __coloc_t, __coloc_t, __coloc_vid;\n"
		    "setp.eq.u32 __coloc_leader, __coloc_t, 0;\n"
		    /* The parker: worker 0's leader, in a launch that asks for one. */
		    "ld.param.u32 __coloc_t, [__coloc_park];\n"
		    "%s"
		    "setp.eq.u32 __coloc_helper, __coloc_t, 0;\n"
		    "mov.u32 __coloc_vid, %%ctaid.x;\n"
		    "setp.eq.and.u32 __coloc_parker, __coloc_vid, 0, __coloc_parker;\n"
		    "and.pred __coloc_parker, __coloc_parker, __coloc_leader;\n"
		    "mov.pred __coloc_stopped, 0;\n"
		    "mov.pred __coloc_prev, 0;\n"
		    "mov.pred __coloc_paused, 0;\n"
		    "mov.pred __coloc_hostclear, 0;\n"
		    "mov.u32 __coloc_parity, 0;\n"
		    "%s"
		    "%s"
		    "__coloc_next:\n"
		    "%s"
		    /* The whole block finished the previous virtual block: count it done. */
		    "barrier.sync 0;\n"
		    "and.pred __coloc_count, __coloc_prev, __coloc_leader;\n"
		    "%s"
		    /* The next block of the batch the worker holds, if any: no take. */
		    "add.u32 __coloc_vid, __coloc_vid, 1;\n"
		    "setp.lt.u32 __coloc_within, __coloc_vid, __coloc_end;\n"
		    "@__coloc_within bra __coloc_run;\n"
		    "shl.b32 __coloc_t, __coloc_parity, 2;\n"
		    "%s"
		    "xor.b32 __coloc_parity, __coloc_parity, 1;\n"
		    "@!__coloc_leader bra __coloc_taken;\n",
		    k->ptb_global_slots ? "" : ".shared .align 4 .b32 __coloc_slot[2];\n",
		    k->ptb_restart ? restart_decls : "",
		    copy_read ? copy_decls : fresh && k->ptb_restart ? fresh_decls : "",
		    resume ? resume_decls : "",
		    /* A fresh worker runs one block: no batch, no parker (launched with park 0). */
		    fresh ? "mov.u32 __coloc_nbatch, 1;\n"
			  : "ld.param.u32 __coloc_nbatch, [__coloc_batch];\n"
			    "max.u32 __coloc_nbatch, __coloc_nbatch, 1;\n",
		    fresh ? "mov.pred __coloc_parker, 0;\n" : "setp.eq.u32 __coloc_parker, __coloc_t, 1;\n",
		    k->ptb_restart ? coloc_buf_cstr(&init) : "",
		    resume ? resume_init : "",
		    k->facts.async_proxy ? "fence.proxy.async.shared::cta;\n" : "",
		    mm ? "@__coloc_count red.release.gpu.global.add.u32 [__coloc_ctl+4], 1;\n"
		       : "@__coloc_count membar.gl;\n"
			 "@__coloc_count red.global.add.u32 [__coloc_ctl+4], 1;\n",
		    k->ptb_global_slots ? "cvt.u64.u32 __coloc_slota, __coloc_t;\n"
					  "add.s64 __coloc_slota, __coloc_slota, __coloc_slotg;\n"
					: "mov.u32 __coloc_slotp, __coloc_slot;\n"
					  "add.u32 __coloc_slotp, __coloc_slotp, __coloc_t;\n") < 0)
		goto out;
	if (pass_insert_snippet(
		    ctx, &f->body, first,
		    /*
		     * Stopped: the stop word is set.  The parker pauses then, until
		     * the word is clear or every block is done; from 1 ms into a
		     * pause it also reads the host copy every 1 ms (a read of mapped
		     * host memory can take hundreds of microseconds): clear there, the
		     * word's clear is late, and the parker takes blocks on, looking at
		     * the host copy again every 1 ms, until the word is clear.
		     */
		    "__coloc_poll:\n"
		    "ld.volatile.global.u32 __coloc_t, [__coloc_stopp];\n"
		    "setp.ne.u32 __coloc_stopped, __coloc_t, 0;\n"
		    "setp.gt.u32 __coloc_narrow, __coloc_t, 1;\n"
		    "@__coloc_narrow mov.u32 __coloc_sm, %%smid;\n"
		    "@__coloc_narrow mov.u32 __coloc_nsm, %%nsmid;\n"
		    "@__coloc_narrow shl.b32 __coloc_sm, __coloc_sm, 10;\n"
		    "@__coloc_narrow sub.u32 __coloc_t, __coloc_t, 1;\n"
		    "@__coloc_narrow mul.lo.u32 __coloc_t, __coloc_t, __coloc_nsm;\n"
		    "@__coloc_narrow setp.ge.or.u32 __coloc_stopped, __coloc_sm, __coloc_t, __coloc_helper;\n"
		    "and.pred __coloc_pause, __coloc_narrow, __coloc_parker;\n"
		    "@__coloc_pause mov.pred __coloc_stopped, 0;\n"
		    "@!__coloc_stopped mov.pred __coloc_hostclear, 0;\n"
		    "@!__coloc_stopped mov.pred __coloc_paused, 0;\n"
		    "and.pred __coloc_pause, __coloc_stopped, __coloc_parker;\n"
		    "@!__coloc_pause bra __coloc_take;\n"
		    "%s"
		    "setp.lt.u32 __coloc_pause, __coloc_t, __coloc_total;\n"
		    "@!__coloc_pause bra __coloc_take;\n"
		    "mov.u64 __coloc_now, %%globaltimer;\n"
		    "@!__coloc_paused mov.u64 __coloc_since, __coloc_now;\n"
		    "mov.pred __coloc_paused, 1;\n"
		    "sub.u64 __coloc_host, __coloc_now, __coloc_since;\n"
		    "setp.lt.u64 __coloc_pause, __coloc_host, 1000000;\n"
		    "@!__coloc_pause bra __coloc_look;\n"
		    /* Within 1 ms of the last look: go by what the host copy said. */
		    "@__coloc_hostclear mov.pred __coloc_stopped, 0;\n"
		    "@__coloc_hostclear bra __coloc_take;\n"
		    "bra __coloc_sleep;\n"
		    "__coloc_look:\n"
		    "mov.u64 __coloc_since, __coloc_now;\n"
		    "ld.volatile.global.u64 __coloc_host, [__coloc_stopp+8];\n"
		    "mov.u32 __coloc_t, 1;\n"
		    "setp.ne.u64 __coloc_pause, __coloc_host, 0;\n"
		    "@__coloc_pause ld.volatile.global.u32 __coloc_t, [__coloc_host];\n"
		    "setp.eq.u32 __coloc_hostclear, __coloc_t, 0;\n"
		    "@__coloc_hostclear mov.pred __coloc_stopped, 0;\n"
		    "@__coloc_hostclear bra __coloc_take;\n"
		    "__coloc_sleep:\n"
		    "%s"
		    "bra __coloc_poll;\n"
		    "__coloc_take:\n"
		    "%s"
		    "mov.u32 __coloc_vid, __coloc_total;\n"
		    "%s"
		    "%s"
		    "__coloc_taken:\n"
		    "barrier.sync 0;\n"
		    "%s"
		    "%s"
		    "setp.ge.u32 __coloc_done, __coloc_vid, __coloc_total;\n"
		    "@__coloc_done bra __coloc_exit;\n"
		    /* The batch ends at vid + batch or at the grid's end, without overflow. */
		    "sub.u32 __coloc_end, __coloc_total, __coloc_vid;\n"
		    "min.u32 __coloc_end, __coloc_end, __coloc_nbatch;\n"
		    "add.u32 __coloc_end, __coloc_end, __coloc_vid;\n"
		    "mov.pred __coloc_prev, 1;\n"
		    "__coloc_run:\n"
		    "%s",
		    mm ? "ld.acquire.gpu.global.u32 __coloc_t, [__coloc_ctl+4];\n"
		       : "ld.volatile.global.u32 __coloc_t, [__coloc_ctl+4];\nmembar.gl;\n",
		    mm ? "nanosleep.u32 1000;\n" : "",
		    copy_read ? copy_take : "",
		    k->ptb_restart ? take.data
				   : "@!__coloc_stopped atom.global.add.u32 __coloc_vid, [__coloc_ctl], "
				     "__coloc_nbatch;\n",
		    k->ptb_global_slots ? "st.global.u32 [__coloc_slota], __coloc_vid;\n"
					: "st.shared.u32 [__coloc_slotp], __coloc_vid;\n",
		    k->ptb_global_slots ? "ld.volatile.global.u32 __coloc_vid, [__coloc_slota];\n"
					: "ld.shared.u32 __coloc_vid, [__coloc_slotp];\n",
		    resume && !fresh ? "ld.shared.u32 __coloc_rs, [__coloc_halt+12];\n"
				       "setp.ne.u32 __coloc_resuming, __coloc_rs, 0;\n"
				     : "",
		    decompose.data) < 0)
		goto out;
	/*
	 * The parker waits for every virtual block to be done, by this
	 * launch's workers or by helpers launched with the same control block,
	 * so that the application's stream does not move on before the
	 * kernel's work is complete.  It waits whether or not it saw the stop
	 * flag: a helper may hold the last blocks of a launch that was resumed
	 * before it even started.
	 */
	if (fresh)
		coloc_buf_printf(&fin,
				 /* A fresh worker runs one block: count it, and leave. */
				 "__coloc_fin:\n"
				 "barrier.sync 0;\n"
				 "and.pred __coloc_count, __coloc_prev, __coloc_leader;\n"
				 "%s",
				 mm ? "@__coloc_count red.release.gpu.global.add.u32 [__coloc_ctl+4], 1;\n"
				    : "@__coloc_count membar.gl;\n"
				      "@__coloc_count red.global.add.u32 [__coloc_ctl+4], 1;\n");
	if (fresh && !coloc_buf_cstr(&fin))
		goto out;
	if (pass_insert_snippet(ctx, &f->body, NULL,
				"%s"
				"%s"
				"__coloc_exit:\n"
				"@!__coloc_parker bra __coloc_leave;\n"
				"__coloc_parked:\n"
				"%s"
				"setp.lt.u32 __coloc_done, __coloc_t, __coloc_total;\n"
				"@!__coloc_done bra __coloc_leave;\n"
				"%s"
				"bra __coloc_parked;\n"
				"__coloc_leave:\n"
				"ret;\n",
				k->ptb_restart ? abandon.data : "",
				fresh ? fin.data : "",
				mm ? "ld.acquire.gpu.global.u32 __coloc_t, [__coloc_ctl+4];\n"
				   : "ld.volatile.global.u32 __coloc_t, [__coloc_ctl+4];\nmembar.gl;\n",
				mm ? "nanosleep.u32 1000;\n" : "") < 0)
		goto out;
	if (fresh) {
		k->ptb_fresh = v;
	} else {
		k->variant[PASS_FORM_PTB] = v;
		k->added[PASS_FORM_PTB] = ptb_params;
		k->nadded[PASS_FORM_PTB] = nparams;
	}
	rc = 0;
out:
	coloc_buf_release(&decompose);
	coloc_buf_release(&save);
	coloc_buf_release(&restore);
	coloc_buf_release(&take);
	coloc_buf_release(&abandon);
	coloc_buf_release(&halting);
	coloc_buf_release(&pop);
	coloc_buf_release(&init);
	coloc_buf_release(&fin);
	return rc;
}

int pass_ptb_run(struct ptx_module *m, struct pass_ctx *ctx)
{
	size_t i;

	if (pass_kernels_collect(m, ctx) < 0)
		return -1;
	for (i = 0; i < ctx->nkernels; i++) {
		struct pass_kernel *k = &ctx->kernels[i];

		k->requested[PASS_FORM_PTB] = true;
		pass_kernel_analyze(ctx, k);
		if (k->variant[PASS_FORM_PTB] || pass_refused(ctx, k, PASS_FORM_PTB))
			continue;
		if (ptb_variant(ctx, k, false) < 0)
			return -1;
		/*
		 * The one-block-a-worker variant (ptb_variant), where the workers'
		 * broadcast slots are in shared memory (in the control block there
		 * would be one pair per worker) and the stop word is read by load.
		 */
		if (k->variant[PASS_FORM_PTB] && !k->ptb_global_slots && !k->ptb_read_copy &&
		    ptb_variant(ctx, k, true) < 0)
			return -1;
	}
	return 0;
}
