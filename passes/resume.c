/*
 * Resuming a given-up block where it stopped (colocc --ptb-resume; ptb.c).
 *
 * With --ptb-restart a stopped block is given up at a meeting and run again
 * from its start.  With --ptb-resume, in a launch given a save area (the
 * save parameter), each thread instead stores what it still needs there
 * (the registers live after any of the kernel's barriers, liveness.c, but
 * not those only the kernel's pure prefix writes; and unisync's resume index)
 * and the block's threads copy its static shared memory; the worker that
 * takes the block from the ring runs the pure prefix again, loads both back
 * and meets again at the meeting where it stopped, so nothing is done twice
 * and a block that already wrote to global memory can be given up too.
 *
 * The save area: a busy word per ring position (the ring's capacity, twice
 * the launch's workers, rounded up to 256 bytes), then one slot per ring
 * position: the shared variables (each at a 16-byte boundary), then each
 * thread's registers (thread_bytes apiece, by linear thread index; 8-byte
 * registers first, then 4, then 2; a predicate as a word).  A launch's area
 * is 256-rounded(8 x workers) + 2 x workers x (shared_bytes + threads x
 * thread_bytes) bytes, zeroed (the manifest gives both sizes).
 *
 * This file decides whether a kernel can be resumed and writes the two
 * pieces of PTX that move the state: the address computation and the stores
 * (save), and the address computation and the loads (restore).  ptb.c puts
 * them on the give-up path and after a take from the ring.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* At most this much per thread: a slot for 1024 threads stays within 1 MB. */
#define RESUME_THREAD_BYTES_MAX 1024

struct shared_var {
	const struct ptx_ident *name;
	uint32_t size, align, offset;
};

struct plan {
	struct shared_var *vars;
	size_t nvars, cap;
	uint32_t shared_bytes;
	bool local;          /* .local memory, alloca: state outside registers and shared memory */
	bool nested_shared;  /* a .shared variable in a { } scope: out of the save code's reach */
	bool hidden_shared;  /* module-level .shared the kernel does not name (a callee might) */
};

static bool add_var(struct plan *p, const struct ptx_decl *d, const struct ptx_declarator *dn)
{
	struct ptx_decl one = *d;
	uint32_t align;
	uint32_t size;

	one.names = (struct ptx_declarator *)dn;
	size = pass_param_size(&one, &align);
	for (size_t i = 0; i < p->nvars; i++)
		if (p->vars[i].name == dn->name)
			return true;
	if (!pass_grow((void **)&p->vars, &p->cap, p->nvars + 1, sizeof(*p->vars)))
		return false;
	p->vars[p->nvars++] = (struct shared_var){.name = dn->name, .size = size, .align = align};
	return true;
}

static bool is_shared(const struct ptx_decl *d)
{
	return d->space && d->space->kind == PTX_IDENT_DIR && d->space->code == PTX_DIR_SHARED &&
	       !(d->linkage & PTX_LINK_EXTERN);
}

static bool reserved(const struct ptx_ident *id)
{
	return strncmp(id->str, COLOC_PREFIX, strlen(COLOC_PREFIX)) == 0;
}

/* The kernel's own .shared variables and .local declarations, at any depth. */
static bool scan_decls(struct plan *p, const struct ptx_block *b, unsigned depth)
{
	for (const struct ptx_stmt *s = b->head; s; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK && !scan_decls(p, &s->u.block, depth + 1))
			return false;
		if (s->kind == PTX_STMT_INSN &&
		    (s->u.insn.op == PTX_OP_ALLOCA || s->u.insn.op == PTX_OP_STACKSAVE))
			p->local = true;
		if (s->kind != PTX_STMT_DECL || !s->u.decl->space)
			continue;
		if (s->u.decl->space->kind == PTX_IDENT_DIR && s->u.decl->space->code == PTX_DIR_LOCAL)
			p->local = true;
		if (!is_shared(s->u.decl))
			continue;
		if (depth > 0) {
			p->nested_shared = true;
			continue;
		}
		for (const struct ptx_declarator *dn = s->u.decl->names; dn; dn = dn->next)
			if (!reserved(dn->name) && !add_var(p, s->u.decl, dn))
				return false;
	}
	return true;
}

struct uses {
	const struct ptx_stmt *decl;
	const struct ptx_declarator *dn;
	bool used;
};

static void note_use(const struct ptx_expr *e, void *arg)
{
	struct uses *u = arg;

	if (e->u.name.id == u->dn->name)
		u->used = true;
}

static bool names_var(const struct ptx_block *b, struct uses *u)
{
	for (const struct ptx_stmt *s = b->head; s && !u->used; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK)
			names_var(&s->u.block, u);
		else if (s->kind == PTX_STMT_INSN)
			for (const struct ptx_expr *x = s->u.insn.operands; x; x = x->next)
				pass_expr_names(x, note_use, u);
	}
	return u->used;
}

/* Module-level .shared variables the kernel names. */
static bool scan_module(struct plan *p, const struct ptx_module *m, const struct ptx_func *f)
{
	for (const struct ptx_stmt *s = m->items.head; s; s = s->next) {
		if (s->kind != PTX_STMT_DECL || !is_shared(s->u.decl))
			continue;
		for (const struct ptx_declarator *dn = s->u.decl->names; dn; dn = dn->next) {
			struct uses u = {.decl = s, .dn = dn};

			if (reserved(dn->name))
				continue;
			if (!names_var(&f->body, &u))
				p->hidden_shared = true;
			else if (!add_var(p, s->u.decl, dn))
				return false;
		}
	}
	return true;
}

static const char *width(uint32_t size)
{
	return size == 8 ? "b64" : size == 4 ? "b32" : "b16";
}

/*
 * __coloc_svg: the slot of ring position __coloc_rs; __coloc_sva: this
 * thread's registers in it.
 */
static void address(struct coloc_buf *b, uint32_t thread_bytes, uint32_t shared_bytes)
{
	coloc_buf_printf(b,
			 "mul.lo.u32 __coloc_ci, __coloc_cap, 4;\n"
			 "add.u32 __coloc_ci, __coloc_ci, 255;\n"
			 "and.b32 __coloc_ci, __coloc_ci, -256;\n"
			 "cvt.u64.u32 __coloc_sva, __coloc_ci;\n"
			 "add.s64 __coloc_sva, __coloc_sva, __coloc_savep;\n"
			 "mul.lo.u32 __coloc_cv, __coloc_nthr, %u;\n"
			 "add.u32 __coloc_cv, __coloc_cv, %u;\n"
			 "mul.wide.u32 __coloc_svg, __coloc_rs, __coloc_cv;\n"
			 "add.s64 __coloc_svg, __coloc_svg, __coloc_sva;\n"
			 "mul.wide.u32 __coloc_sva, __coloc_tl, %u;\n"
			 "add.s64 __coloc_sva, __coloc_sva, __coloc_svg;\n"
			 "add.s64 __coloc_sva, __coloc_sva, %u;\n",
			 thread_bytes, shared_bytes, thread_bytes, shared_bytes);
}

/* The block's threads copy each shared variable, by words where it can. */
static void copy_shared(struct coloc_buf *b, const struct plan *p, bool save)
{
	for (size_t i = 0; i < p->nvars; i++) {
		const struct shared_var *v = &p->vars[i];
		uint32_t unit = v->size % 4 == 0 && v->align >= 4 ? 4 : 1;
		const char *ty = unit == 4 ? "b32" : "u8";
		char tag = save ? 's' : 'r';

		if (!v->size)
			continue;
		coloc_buf_printf(b,
				 "mov.u32 __coloc_ci, __coloc_tl;\n"
				 "__coloc_sv%zu%c:\n"
				 "setp.ge.u32 __coloc_cq, __coloc_ci, %u;\n"
				 "@__coloc_cq bra __coloc_sv%zu%c_done;\n"
				 "mov.u32 __coloc_cs, %s;\n"
				 "mad.lo.u32 __coloc_cs, __coloc_ci, %u, __coloc_cs;\n"
				 "mul.wide.u32 __coloc_sga, __coloc_ci, %u;\n"
				 "add.s64 __coloc_sga, __coloc_sga, __coloc_svg;\n",
				 i, tag, v->size / unit, i, tag, v->name->str, unit, unit);
		if (save)
			coloc_buf_printf(b,
					 "ld.shared.%s __coloc_cv, [__coloc_cs];\n"
					 "st.global.%s [__coloc_sga+%u], __coloc_cv;\n",
					 ty, ty, v->offset);
		else
			coloc_buf_printf(b,
					 "ld.global.%s __coloc_cv, [__coloc_sga+%u];\n"
					 "st.shared.%s [__coloc_cs], __coloc_cv;\n",
					 ty, v->offset, ty);
		coloc_buf_printf(b,
				 "add.u32 __coloc_ci, __coloc_ci, __coloc_nthr;\n"
				 "bra __coloc_sv%zu%c;\n"
				 "__coloc_sv%zu%c_done:\n",
				 i, tag, i, tag);
	}
}

/*
 * Registers by size, largest first, so that each is aligned in the thread's
 * area; returns the area's size, a multiple of 8.  b NULL: only the size.
 */
static uint32_t move_regs(struct coloc_buf *b, const struct pass_live *live, bool save)
{
	uint32_t off = 0;

	/* unisync's resume index: where each thread goes on from the meeting. */
	if (b)
		coloc_buf_printf(b, save ? "st.global.b32 [__coloc_sva], __coloc_resume;\n"
					 : "ld.global.b32 __coloc_resume, [__coloc_sva];\n");
	off = 4;
	for (uint32_t size = 8; size >= 2; size /= 2) {
		for (unsigned i = 0; i < live->nregs; i++) {
			const struct pass_live_reg *r = &live->regs[i];

			if (r->size != size || r->recomputed)
				continue;
			off = (off + size - 1) / size * size;
			if (!b)
				;
			else if (r->pred && save)
				coloc_buf_printf(b,
						 "selp.u32 __coloc_cv, 1, 0, %s;\n"
						 "st.global.b32 [__coloc_sva+%u], __coloc_cv;\n",
						 r->name->str, off);
			else if (r->pred)
				coloc_buf_printf(b,
						 "ld.global.b32 __coloc_cv, [__coloc_sva+%u];\n"
						 "setp.ne.u32 %s, __coloc_cv, 0;\n",
						 off, r->name->str);
			else if (save)
				coloc_buf_printf(b, "st.global.%s [__coloc_sva+%u], %s;\n", width(size),
						 off, r->name->str);
			else
				coloc_buf_printf(b, "ld.global.%s %s, [__coloc_sva+%u];\n", width(size),
						 r->name->str, off);
			off += size;
		}
	}
	return (off + 7) / 8 * 8;
}

int pass_resume_code(struct pass_ctx *ctx, struct pass_kernel *k, struct coloc_buf *save,
		     struct coloc_buf *restore)
{
	struct pass_live live;
	struct plan p = {0};
	uint32_t thread_bytes, off = 0;
	int rc = -1;

	k->ptb_resume_why = NULL;
	if (pass_live_across_barriers(ctx->module, k->func, &live) < 0)
		return -1;
	if (!scan_decls(&p, &k->func->body, 0) || !scan_module(&p, ctx->module, k->func))
		goto out;
	if (p.local || p.nested_shared || (p.hidden_shared && k->facts.calls) ||
	    k->facts.async_proxy) {
		k->ptb_resume_why =
			p.local ? "the kernel keeps state in local memory (.local, alloca), which a "
				  "save would not carry"
			: p.nested_shared ? "a .shared variable is declared inside a { } scope"
			: k->facts.async_proxy
				? "the kernel uses the async proxy (bulk copies, TMA, wgmma), whose "
				  "operations in flight a save would not wait for"
				: "a function it calls may use module-level shared memory that the "
				  "kernel does not name";
		rc = 0;
		goto out;
	}
	for (unsigned i = 0; i < live.nregs; i++) {
		const struct pass_live_reg *r = &live.regs[i];

		if (r->recomputed)
			continue;
		if (r->nested || r->vector || (r->size != 2 && r->size != 4 && r->size != 8)) {
			k->ptb_resume_why = r->nested ? "a register live after a barrier is declared "
							"inside a { } scope"
					    : "a register live after a barrier is a vector or not 2, 4 "
					      "or 8 bytes";
			rc = 0;
			goto out;
		}
	}
	thread_bytes = move_regs(NULL, &live, true);
	if (thread_bytes > RESUME_THREAD_BYTES_MAX) {
		k->ptb_resume_why = "more than 1024 bytes of registers live after a barrier";
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < p.nvars; i++) {
		p.vars[i].offset = off;
		off += (p.vars[i].size + 15) / 16 * 16;
	}
	p.shared_bytes = off;
	address(save, thread_bytes, p.shared_bytes);
	move_regs(save, &live, true);
	copy_shared(save, &p, true);
	address(restore, thread_bytes, p.shared_bytes);
	move_regs(restore, &live, false);
	/* The prefix, run again, stored to shared memory: every thread has, before any restores it. */
	if (live.prefix_writes_shared)
		coloc_buf_puts(restore, "barrier.sync 0;\n");
	copy_shared(restore, &p, false);
	k->resume_thread_bytes = thread_bytes;
	k->resume_prefix_insns = live.prefix_insns;
	k->resume_before_label = live.prefix_before_label;
	k->resume_shared_bytes = p.shared_bytes;
	rc = save->failed || restore->failed ? -1 : 1;
out:
	pass_live_release(&live);
	free(p.vars);
	return rc;
}
