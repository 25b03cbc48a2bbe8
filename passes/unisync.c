/*
 * unisync: one synchronization point for every return and every barrier.
 *
 * In the persistent form (ptb.c) a thread that returns does not exit: it
 * goes back to take the next block.  If some threads of a block return
 * early (a bounds check) while the others reach __syncthreads(), the two
 * groups wait at different barriers and the block hangs, where the original
 * kernel was fine because exited threads leave the barrier.  Tally (ASPLOS
 * '25, section 3.3) fixes this by sending every return and every barrier to
 * one barrier with an OR reduction that tells whether anyone is at a real
 * barrier:
 *
 *   before                    after (__coloc_unisync_K)
 *   @%p1 ret;                 @%p1 bra __coloc_ret;
 *   ...                       ...
 *   bar.sync 0;               mov.u32 __coloc_resume, 1;
 *   ...                       mov.pred __coloc_is_sync, 1;
 *   ret;                      bra __coloc_sync;
 *                             __coloc_resume_1:
 *                             ...
 *                             bra __coloc_ret;
 *                             __coloc_ret:
 *                             mov.u32 __coloc_resume, 0;
 *                             mov.pred __coloc_is_sync, 0;
 *                             __coloc_sync:
 *                             barrier.red.or.pred __coloc_any_sync, 0, __coloc_is_sync;
 *                             @!__coloc_any_sync bra __coloc_return;
 *                             __coloc_targets: .branchtargets __coloc_ret, __coloc_resume_1;
 *                             brx.idx __coloc_resume, __coloc_targets;
 *                             __coloc_return:
 *                             ret;
 *
 * While any thread is at a real barrier, all threads meet at the reduction
 * and go back where they came from: barrier threads continue after their
 * barrier, returned threads come back to the reduction.  When every thread
 * has returned, the block returns at once through the single ret, which the
 * ptb pass turns into its loop back-edge.
 *
 * Two changes from the public Tally code: the reduction is the non-aligned
 * barrier.red (threads of one warp arrive from different sites, so the
 * .aligned form that bar.red implies would be undefined), and all returns
 * share one resume target, so a return inside a nested { } scope needs no
 * label that the function-level .branchtargets list could not see.
 *
 * ptb may add code around the reduction (struct unisync_halt): with
 * --ptb-restart, the decision to give a stopped block up (ptb.c).
 *
 * Needs (analysis.c): every CTA barrier is barrier 0 without a thread count,
 * at function level, not predicated, with no arrive or reduction; callees
 * do not synchronize.  A kernel without barriers needs no rewrite.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pass.h"

int pass_returns_to_branch(struct ptx_module *m, struct ptx_block *b, const char *label)
{
	const struct ptx_ident *bra = ptx_intern_cstr(m, "bra");
	const struct ptx_ident *target = ptx_intern_cstr(m, label);
	struct ptx_stmt *s;

	if (!bra || !target)
		return -1;
	for (s = b->head; s; s = s->next) {
		struct ptx_insn *in;

		if (s->kind == PTX_STMT_BLOCK) {
			if (pass_returns_to_branch(m, &s->u.block, label) < 0)
				return -1;
			continue;
		}
		if (s->kind != PTX_STMT_INSN)
			continue;
		in = &s->u.insn;
		if (in->op != PTX_OP_RET && in->op != PTX_OP_EXIT)
			continue;
		/* Keep the guard: "@%p ret;" becomes "@%p bra label;". */
		in->operands = ptx_expr_new(m, PTX_EXPR_NAME, s->loc);
		if (!in->operands)
			return -1;
		in->operands->u.name.id = target;
		in->noperands = 1;
		in->opcode = bra;
		in->op = PTX_OP_BRA;
		in->mods = NULL;
		in->nmods = 0;
	}
	return 0;
}

/* A CTA barrier: a meeting site (analysis.c has them all at function level). */
static bool cta_barrier(const struct ptx_stmt *s)
{
	const struct ptx_insn *in = &s->u.insn;

	return s->kind == PTX_STMT_INSN && (in->op == PTX_OP_BAR || in->op == PTX_OP_BARRIER) &&
	       !ptx_insn_has_mod(in, ".warp") && !ptx_insn_has_mod(in, ".cluster");
}

/*
 * Whether the code after site `s` runs straight to the next site: no branch,
 * return, exit, call, trap or nested block before it (labels are fine: what
 * enters there does not change where this path goes).
 */
static bool straight_to_next_site(const struct ptx_stmt *s)
{
	for (s = s->next; s; s = s->next) {
		if (cta_barrier(s))
			return true;
		if (s->kind == PTX_STMT_BLOCK)
			return false;
		if (s->kind == PTX_STMT_INSN &&
		    ((ptx_op_table[s->u.insn.op].flags &
		      (PTX_OPF_BRANCH | PTX_OPF_CALL | PTX_OPF_RET | PTX_OPF_EXIT)) ||
		     s->u.insn.op == PTX_OP_TRAP))
			return false;
	}
	return false;
}

/*
 * halt->site_read goes after the sites where the block's next meeting is not
 * certain to be one that reads: all but those whose code runs straight to
 * the next site, when that one reads (the last site reads).  In read[], one
 * per site in order.
 */
static void plan_site_reads(struct ptx_stmt *const *sites, unsigned n, bool *read)
{
	for (unsigned i = n; i-- > 0;)
		read[i] = i + 1 == n || !read[i + 1] || !straight_to_next_site(sites[i]);
}

int pass_unisync_apply(struct pass_ctx *ctx, struct pass_kernel *k, struct ptx_func *f,
		       const struct unisync_halt *halt)
{
	struct ptx_module *m = ctx->module;
	struct ptx_stmt *s, **sites = NULL;
	const char *site_read = halt && halt->site_read ? halt->site_read : "";
	struct coloc_buf targets;
	unsigned site = 0, nsites = 0;
	bool *read = NULL;
	int rc = -1;

	(void)k;
	if (pass_need_barrier_isa(m) < 0) /* barrier.red, non-aligned */
		return -1;
	coloc_buf_init(&targets);
	coloc_buf_puts(&targets, "__coloc_ret");
	/* Barriers are at function level (analysis.c refuses the others). */
	for (s = f->body.head; s; s = s->next)
		nsites += cta_barrier(s);
	if (nsites && (!(sites = calloc(nsites, sizeof(*sites))) ||
		       !(read = calloc(nsites, sizeof(*read))))) {
		coloc_error(ctx->diag, PTX_NOLOC, "out of memory");
		goto out;
	}
	for (s = f->body.head; s; s = s->next)
		if (cta_barrier(s))
			sites[site++] = s;
	if (nsites)
		plan_site_reads(sites, nsites, read);
	for (site = 0; site < nsites; site++) {
		s = sites[site];
		coloc_buf_printf(&targets, ", __coloc_resume_%u", site + 1);
		if (pass_insert_snippet(ctx, &f->body, s,
					"mov.u32 __coloc_resume, %u;\n"
					"mov.pred __coloc_is_sync, 1;\n"
					"bra __coloc_sync;\n"
					"__coloc_resume_%u:\n"
					"%s",
					site + 1, site + 1, read[site] ? site_read : "") < 0)
			goto out;
		ptx_block_remove(&f->body, s);
	}
	if (pass_returns_to_branch(m, &f->body, "__coloc_ret") < 0)
		goto out;
	if (!coloc_buf_cstr(&targets))
		goto out;
	if (pass_insert_snippet(ctx, &f->body, f->body.head,
				".reg .b32 __coloc_resume;\n"
				".reg .pred __coloc_is_sync, __coloc_any_sync;\n") < 0)
		goto out;
	if (halt) {
		if (pass_insert_snippet(ctx, &f->body, NULL,
					"__coloc_ret:\n"
					"%s"
					"mov.u32 __coloc_resume, 0;\n"
					"mov.pred __coloc_is_sync, 0;\n"
					"__coloc_sync:\n"
					"%s"
					"barrier.red.or.pred __coloc_any_sync, 0, __coloc_is_sync;\n"
					"@!__coloc_any_sync bra __coloc_return;\n"
					"%s"
					"__coloc_targets: .branchtargets %s;\n"
					"__coloc_dispatch:\n"
					"brx.idx __coloc_resume, __coloc_targets;\n"
					"__coloc_halting:\n"
					"%s"
					"__coloc_return:\n"
					"ret;\n",
					site_read, halt->before, halt->after, targets.data,
					halt->halting) < 0)
			goto out;
	} else if (pass_insert_snippet(ctx, &f->body, NULL,
				"__coloc_ret:\n"
				"mov.u32 __coloc_resume, 0;\n"
				"mov.pred __coloc_is_sync, 0;\n"
				"__coloc_sync:\n"
				"barrier.red.or.pred __coloc_any_sync, 0, __coloc_is_sync;\n"
				"@!__coloc_any_sync bra __coloc_return;\n"
				"__coloc_targets: .branchtargets %s;\n"
				"brx.idx __coloc_resume, __coloc_targets;\n"
				"__coloc_return:\n"
				"ret;\n",
				targets.data) < 0)
		goto out;
	rc = 0;
out:
	free(sites);
	free(read);
	coloc_buf_release(&targets);
	return rc;
}

int pass_unisync_run(struct ptx_module *m, struct pass_ctx *ctx)
{
	size_t i;

	if (pass_kernels_collect(m, ctx) < 0)
		return -1;
	for (i = 0; i < ctx->nkernels; i++) {
		struct pass_kernel *k = &ctx->kernels[i];
		struct ptx_stmt *v;

		k->requested[PASS_FORM_UNISYNC] = true;
		pass_kernel_analyze(ctx, k);
		if (!k->unisync_needed || k->variant[PASS_FORM_UNISYNC] ||
		    pass_refused(ctx, k, PASS_FORM_UNISYNC))
			continue;
		v = pass_clone_kernel(ctx, k, k->func, "unisync");
		if (!v || pass_unisync_apply(ctx, k, v->u.func, NULL) < 0)
			return -1;
		k->variant[PASS_FORM_UNISYNC] = v;
	}
	return 0;
}
