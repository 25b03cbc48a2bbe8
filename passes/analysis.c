/*
 * Kernel analysis: what each transformation relies on, and what rules it
 * out.
 *
 * For every .entry it records which dimensions of %ctaid and %nctaid the
 * kernel reads, each CTA barrier by form, each ret/exit, each call (and,
 * through the call graph, whether a callee reads block indices, synchronizes
 * the CTA or exits), cluster and cooperative-launch markers, dynamic shared
 * memory and the size of the parameter list.  From these facts it decides,
 * per form, "apply" or "refuse because ...":
 *
 *   slice    needs every block-index read in the kernel itself (callees are
 *            not rewritten), no cluster launch, no grid-wide sync, no
 *            spin-wait on memory written by other blocks (a block waiting for
 *            a later slice would never finish), and room for 24 bytes of
 *            parameters;
 *   unisync  needs every CTA barrier to be a plain barrier 0 across the whole
 *            CTA, written in the kernel at function level and not predicated
 *            (named or partial barriers, bar.arrive and barriers with a
 *            reduction are refused);
 *   ptb      needs what slice needs, plus unisync when the kernel has
 *            barriers, no exit in callees, and no setmaxnreg (a worker runs
 *            many blocks and would grow its registers each time).
 *
 * Tally (ASPLOS '25, section 3) applies its rewrites by pattern matching;
 * its public code misses predicated returns, barrier spellings other than
 * "bar.sync N;", named barriers and callees that read %ctaid.  Here those
 * are either handled by the passes or refused with the reason.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* Facts about a .func, for calls. */
struct callee {
	const struct ptx_ident *name;
	const struct ptx_func *func;
	bool done, visiting;
	bool reads_ids;   /* %ctaid or %nctaid */
	bool cluster;
	bool grid_sync;
	bool barrier;     /* any bar/barrier at CTA level */
	bool exits;
	bool setmaxnreg;
	/* Defined outside the module (-rdc, or a runtime library): its own name, or the
	   name of the outside function it calls. */
	const struct ptx_ident *external;
	const char *why;  /* the first fact found, for messages */
};

struct analysis {
	struct pass_ctx *ctx;
	struct pass_kernel *k;
	struct callee *callees;
	size_t ncallees;
	const struct ptx_ident *dynamic_shared[64];
	unsigned ndynamic_shared;
	uint32_t param_limit;
};

static bool has_mod(const struct ptx_insn *in, const char *mod)
{
	return ptx_insn_has_mod(in, mod);
}

static bool mod_contains(const struct ptx_insn *in, const char *part)
{
	uint32_t i;

	for (i = 0; i < in->nmods; i++)
		if (strstr(in->mods[i]->str, part))
			return true;
	return false;
}

static bool is_cluster_sreg(unsigned code)
{
	switch (code) {
	case PTX_SREG_CLUSTERID:
	case PTX_SREG_NCLUSTERID:
	case PTX_SREG_CLUSTER_CTAID:
	case PTX_SREG_CLUSTER_NCTAID:
	case PTX_SREG_CLUSTER_CTARANK:
	case PTX_SREG_CLUSTER_NCTARANK:
	case PTX_SREG_IS_EXPLICIT_CLUSTER:
		return true;
	default:
		return false;
	}
}

/* Operand facts: block indices, cluster registers, the grid-sync workspace. */
struct operand_facts {
	unsigned ctaid, nctaid;
	bool cluster, grid_sync, dynamic_shared;
};

struct scan {
	const struct analysis *a;
	struct operand_facts *f;
};

static void scan_name(const struct ptx_expr *e, void *arg)
{
	const struct scan *sc = arg;
	const struct analysis *a = sc->a;
	struct operand_facts *f = sc->f;
	unsigned i;

	if (e->u.name.id->kind == PTX_IDENT_SREG) {
		unsigned code = e->u.name.id->code;
		unsigned bit = e->u.name.comp ? 1u << (e->u.name.comp->str[1] - 'x') : 7u;

		if (code == PTX_SREG_CTAID)
			f->ctaid |= bit & 7;
		else if (code == PTX_SREG_NCTAID)
			f->nctaid |= bit & 7;
		else if (is_cluster_sreg(code))
			f->cluster = true;
		else if (code == PTX_SREG_ENVREG1 || code == PTX_SREG_ENVREG2)
			f->grid_sync = true; /* cooperative groups' grid workspace */
		else if (code == PTX_SREG_DYNAMIC_SMEM_SIZE)
			f->dynamic_shared = true;
		return;
	}
	for (i = 0; a && i < a->ndynamic_shared; i++)
		if (a->dynamic_shared[i] == e->u.name.id)
			f->dynamic_shared = true;
}

static void scan_expr(const struct analysis *a, const struct ptx_expr *e, struct operand_facts *f)
{
	struct scan sc = {a, f};

	pass_expr_names(e, scan_name, &sc);
}

static bool is_cluster_insn(const struct ptx_insn *in)
{
	/*
	 * Not the .shared::cluster qualifier alone: without a cluster launch a
	 * block is a cluster of one, and nvcc writes bulk copies into a block's
	 * own shared memory that way on sm_90.
	 */
	return (in->op == PTX_OP_BARRIER && has_mod(in, ".cluster")) || in->op == PTX_OP_MAPA ||
	       in->op == PTX_OP_GETCTARANK || mod_contains(in, ".multicast::cluster");
}

/* Is this a CTA-level barrier (as opposed to bar.warp.sync or a cluster barrier)? */
static bool is_cta_barrier(const struct ptx_insn *in)
{
	return (in->op == PTX_OP_BAR || in->op == PTX_OP_BARRIER) && !has_mod(in, ".warp") &&
	       !has_mod(in, ".cluster");
}

/* ------------------------------------------------------------ call graph */

static struct callee *callee_of(struct analysis *a, const struct ptx_ident *name);

static void callee_scan_block(struct analysis *a, struct callee *c, const struct ptx_block *b)
{
	const struct ptx_stmt *s;

	for (s = b->head; s; s = s->next) {
		const struct ptx_insn *in;
		struct operand_facts f = {0};
		const struct ptx_expr *e;

		if (s->kind == PTX_STMT_BLOCK) {
			callee_scan_block(a, c, &s->u.block);
			continue;
		}
		if (s->kind != PTX_STMT_INSN)
			continue;
		in = &s->u.insn;
		for (e = in->operands; e; e = e->next)
			scan_expr(NULL, e, &f);
		if ((f.ctaid || f.nctaid) && !c->reads_ids) {
			c->reads_ids = true;
			c->why = c->why ? c->why : "reads %ctaid or %nctaid";
		}
		c->cluster |= f.cluster || is_cluster_insn(in);
		c->grid_sync |= f.grid_sync;
		if (is_cta_barrier(in))
			c->barrier = true;
		if (in->op == PTX_OP_EXIT)
			c->exits = true;
		if (in->op == PTX_OP_SETMAXNREG)
			c->setmaxnreg = true;
		if (in->op == PTX_OP_CALL) {
			/* call [(rets),] callee ... */
			const struct ptx_expr *t = in->operands;
			struct callee *d;

			if (t && t->kind == PTX_EXPR_PAREN)
				t = t->next;
			d = t && t->kind == PTX_EXPR_NAME ? callee_of(a, t->u.name.id) : NULL;
			if (d) {
				c->reads_ids |= d->reads_ids;
				c->cluster |= d->cluster;
				c->grid_sync |= d->grid_sync;
				c->barrier |= d->barrier;
				c->exits |= d->exits;
				c->setmaxnreg |= d->setmaxnreg;
				if (!c->external)
					c->external = d->external;
			}
		}
	}
}

/*
 * A function defined outside the module.  CUDA's device runtime provides
 * some: printf, malloc, assert are leaves that neither read the block index
 * nor synchronize; cudaCG* is the grid-wide synchronization that Numba
 * calls for this_grid().sync().  Any other (a function of another -rdc
 * translation unit, dynamic parallelism) cannot be checked.
 */
static void external_facts(struct callee *c)
{
	static const char *const leaves[] = {"vprintf", "malloc", "free", "__assertfail"};
	const char *name = c->name->str;
	size_t i;

	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
		if (strcmp(name, leaves[i]) == 0)
			return;
	if (strncmp(name, "cudaCG", 6) == 0) {
		c->grid_sync = true;
		c->why = "is CUDA's grid-wide synchronization";
		return;
	}
	c->external = c->name;
}

/* Facts of the .func called `name` (NULL when it is not a function here). */
static struct callee *callee_of(struct analysis *a, const struct ptx_ident *name)
{
	size_t i;

	for (i = 0; i < a->ncallees; i++) {
		struct callee *c = &a->callees[i];

		if (c->name != name)
			continue;
		if (!c->done && !c->visiting && c->func->has_body) {
			c->visiting = true; /* recursion: what is known so far */
			callee_scan_block(a, c, &c->func->body);
			c->visiting = false;
		}
		c->done = true;
		return c;
	}
	return NULL;
}

/* --------------------------------------------------------------- params */

static uint32_t type_size(const struct ptx_ident *t)
{
	if (!t || t->kind != PTX_IDENT_DIR)
		return 4;
	switch (t->code) {
	case PTX_DIR_S8: case PTX_DIR_U8: case PTX_DIR_B8:
		return 1;
	case PTX_DIR_S16: case PTX_DIR_U16: case PTX_DIR_B16: case PTX_DIR_F16: case PTX_DIR_BF16:
		return 2;
	case PTX_DIR_S64: case PTX_DIR_U64: case PTX_DIR_B64: case PTX_DIR_F64:
	case PTX_DIR_TEXREF: case PTX_DIR_SAMPLERREF: case PTX_DIR_SURFREF:
		return 8;
	case PTX_DIR_B128:
		return 16;
	default:
		return 4;
	}
}

/* Bytes and alignment of one declared parameter (arrays, vectors, .align). */
uint32_t pass_param_size(const struct ptx_decl *d, uint32_t *align_out)
{
	uint32_t elem = type_size(d->type) * (d->vec ? d->vec : 1);
	uint64_t n = elem;
	uint32_t align = d->align ? d->align : elem;
	const struct ptx_dim *dim;

	if (d->names)
		for (dim = d->names->dims; dim; dim = dim->next)
			n *= dim->size && dim->size->kind == PTX_EXPR_INT ? dim->size->u.num.value : 0;
	if (align_out)
		*align_out = align ? align : 1;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Bytes of .shared declared in a body (nested blocks too), extern arrays aside. */
static uint64_t shared_bytes(const struct ptx_block *b)
{
	const struct ptx_stmt *s;
	uint64_t n = 0;

	for (s = b->head; s; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK)
			n += shared_bytes(&s->u.block);
		if (s->kind == PTX_STMT_DECL && s->u.decl->space->code == PTX_DIR_SHARED &&
		    !(s->u.decl->linkage & PTX_LINK_EXTERN)) {
			const struct ptx_declarator *d;

			for (d = s->u.decl->names; d; d = d->next) {
				struct ptx_decl one = *s->u.decl;
				uint32_t align;

				one.names = (struct ptx_declarator *)d;
				n += pass_param_size(&one, &align);
			}
		}
		if (s == b->tail)
			break;
	}
	return n;
}

static uint32_t params_bytes(const struct ptx_decl *d)
{
	uint64_t off = 0;

	for (; d; d = d->next) {
		uint32_t align, size = pass_param_size(d, &align);

		off = (off + align - 1) / align * align + size;
	}
	return off > UINT32_MAX ? UINT32_MAX : (uint32_t)off;
}

/* ------------------------------------------------------------- the kernel */

/*
 * Waits on other blocks.  A loop (a label and a later branch back to it in
 * the same block) waits when one of its branches depends on a value read
 * with volatile, relaxed or acquire semantics outside shared memory, or
 * returned by atom.cas/atom.exch: "while (status[tile - 1] == EMPTY)" in a
 * decoupled look-back, a hand-written grid barrier, a lock (with or without a
 * nanosleep back-off).  A loop that sleeps while it waits on its own block
 * (an mbarrier in shared memory) is not such a wait.  Neither are two other
 * shapes: a
 * lock-free compare-and-swap retry, whose compare operand comes from the
 * previous attempt, so the loop ends as soon as no other thread interferes;
 * and a loop that merely reads such memory while its exit depends on
 * something else (a counted loop over partial sums).
 */
static bool strong_load(const struct ptx_insn *in)
{
	if (in->op != PTX_OP_LD && in->op != PTX_OP_ATOM && in->op != PTX_OP_LDU)
		return false;
	if (mod_contains(in, ".shared") || has_mod(in, ".local") || has_mod(in, ".param") ||
	    has_mod(in, ".const"))
		return false;
	if (in->op == PTX_OP_ATOM)
		return has_mod(in, ".cas") || has_mod(in, ".exch");
	return has_mod(in, ".volatile") || has_mod(in, ".acquire") || has_mod(in, ".relaxed");
}

#define MAX_TAINT 256

struct taint {
	const struct ptx_ident *regs[MAX_TAINT];
	unsigned n;
	bool full; /* too many to track: treat every branch as dependent */
};

static bool tainted(const struct taint *t, const struct ptx_ident *id)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->regs[i] == id)
			return true;
	return false;
}

static bool taint_add(struct taint *t, const struct ptx_ident *id)
{
	if (tainted(t, id))
		return false;
	if (t->n == MAX_TAINT) {
		t->full = true;
		return false;
	}
	t->regs[t->n++] = id;
	return true;
}

static bool expr_tainted(const struct taint *t, const struct ptx_expr *e)
{
	const struct ptx_expr *c;

	switch (e->kind) {
	case PTX_EXPR_NAME:
		return tainted(t, e->u.name.id);
	case PTX_EXPR_UNARY:
	case PTX_EXPR_CAST:
		return expr_tainted(t, e->u.sub.a);
	case PTX_EXPR_BINARY:
	case PTX_EXPR_INDEX:
		return expr_tainted(t, e->u.sub.a) || expr_tainted(t, e->u.sub.b);
	case PTX_EXPR_COND:
		return expr_tainted(t, e->u.sub.a) || expr_tainted(t, e->u.sub.b) ||
		       expr_tainted(t, e->u.sub.c);
	case PTX_EXPR_PAREN:
	case PTX_EXPR_VECTOR:
		for (c = e->u.list.head; c; c = c->next)
			if (expr_tainted(t, c))
				return true;
		return false;
	default:
		return false; /* an address reads memory, which is not followed */
	}
}

/* Marks the registers an instruction writes: its first operand (d, {a, b}, p|q). */
static bool taint_dest(struct taint *t, const struct ptx_expr *d)
{
	const struct ptx_expr *c;
	bool changed = false;

	if (!d)
		return false;
	switch (d->kind) {
	case PTX_EXPR_NAME:
		return taint_add(t, d->u.name.id);
	case PTX_EXPR_BINARY:
		changed |= taint_dest(t, d->u.sub.a);
		changed |= taint_dest(t, d->u.sub.b);
		return changed;
	case PTX_EXPR_VECTOR:
		for (c = d->u.list.head; c; c = c->next)
			changed |= taint_dest(t, c);
		return changed;
	default:
		return false;
	}
}

/* atom.cas d, [a], b, c whose compare operand b is d itself or copied from it in the loop. */
static bool cas_retry(const struct ptx_insn *in, const struct ptx_stmt *from, const struct ptx_stmt *to)
{
	const struct ptx_expr *d = in->operands, *b = d ? d->next ? d->next->next : NULL : NULL;
	const struct ptx_stmt *s;

	if (in->op != PTX_OP_ATOM || !has_mod(in, ".cas") || !d || !b || d->kind != PTX_EXPR_NAME ||
	    b->kind != PTX_EXPR_NAME)
		return false;
	if (b->u.name.id == d->u.name.id)
		return true;
	for (s = from; s; s = s->next) {
		const struct ptx_insn *m = &s->u.insn;

		if (s->kind == PTX_STMT_INSN && m->op == PTX_OP_MOV && m->noperands == 2 &&
		    m->operands->kind == PTX_EXPR_NAME && m->operands->u.name.id == b->u.name.id &&
		    m->operands->next->kind == PTX_EXPR_NAME &&
		    m->operands->next->u.name.id == d->u.name.id)
			return true;
		if (s == to)
			break;
	}
	return false;
}

/* Instructions of [from, to], nested blocks included, in order. */
static void taint_range(struct taint *t, const struct ptx_stmt *from, const struct ptx_stmt *to,
			const struct ptx_stmt *loop_from, const struct ptx_stmt *loop_to, bool *changed,
			const struct ptx_stmt **source)
{
	const struct ptx_stmt *s;

	for (s = from; s; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK && s->u.block.head)
			taint_range(t, s->u.block.head, s->u.block.tail, loop_from, loop_to, changed, source);
		if (s->kind == PTX_STMT_INSN) {
			const struct ptx_insn *in = &s->u.insn;
			const struct ptx_expr *e;
			bool src = false;

			if (strong_load(in) && !cas_retry(in, loop_from, loop_to)) {
				src = true;
				if (!*source)
					*source = s;
			}
			for (e = in->operands ? in->operands->next : NULL; e && !src; e = e->next)
				src = expr_tainted(t, e);
			if (src && in->op != PTX_OP_ST && in->op != PTX_OP_BRA)
				*changed |= taint_dest(t, in->operands);
		}
		if (s == to)
			break;
	}
}

static const struct ptx_stmt *branch_on_taint(const struct taint *t, const struct ptx_stmt *from,
					      const struct ptx_stmt *to)
{
	const struct ptx_stmt *s, *w;

	for (s = from; s; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK && s->u.block.head &&
		    (w = branch_on_taint(t, s->u.block.head, s->u.block.tail)))
			return w;
		if (s->kind == PTX_STMT_INSN && (s->u.insn.op == PTX_OP_BRA || s->u.insn.op == PTX_OP_BRX) &&
		    s->u.insn.guard && (t->full || tainted(t, s->u.insn.guard)))
			return s;
		if (s->kind == PTX_STMT_INSN && s->u.insn.op == PTX_OP_BRX && s->u.insn.operands &&
		    expr_tainted(t, s->u.insn.operands))
			return s;
		if (s == to)
			break;
	}
	return NULL;
}

/* The instruction a loop [from, to] waits on, or NULL. */
static const struct ptx_stmt *loop_wait(const struct ptx_stmt *from, const struct ptx_stmt *to)
{
	struct taint *t = calloc(1, sizeof(*t));
	const struct ptx_stmt *source = NULL, *w;
	bool changed = true;
	unsigned round;

	if (!t)
		return from;
	/* Twice around at least: values carried from one iteration to the next. */
	for (round = 0; changed && round < 8; round++) {
		changed = false;
		taint_range(t, from, to, from, to, &changed, &source);
	}
	w = source && branch_on_taint(t, from, to) ? source : NULL;
	free(t);
	return w;
}

/*
 * Loops are found in one walk over the body: each label is remembered with
 * its block and the number of strong loads before it, so that a branch back
 * to it names a loop, and the loop holds a strong load exactly when the
 * count grew in between.  Only those loops can wait; the others are not
 * analyzed.
 */
struct loop_label {
	const struct ptx_ident *name; /* NULL: free slot */
	const struct ptx_stmt *stmt;
	const struct ptx_block *block;
	size_t strong; /* strong loads before the label */
};

struct loop_finder {
	struct loop_label *slot;
	size_t nslots, n;
	size_t strong;
	bool failed; /* out of memory: every loop is analyzed */
	const struct ptx_stmt *wait;
};

static size_t label_hash(const struct ptx_ident *id, size_t mask)
{
	return (size_t)(((uintptr_t)id >> 4) * 0x9E3779B97F4A7C15u) & mask;
}

static struct loop_label *label_find(struct loop_finder *f, const struct ptx_ident *id)
{
	size_t mask = f->nslots - 1, i;

	if (!f->nslots)
		return NULL;
	for (i = label_hash(id, mask); f->slot[i].name; i = (i + 1) & mask)
		if (f->slot[i].name == id)
			return &f->slot[i];
	return NULL;
}

static void label_add(struct loop_finder *f, const struct ptx_stmt *s, const struct ptx_block *b)
{
	size_t mask, i;

	if (f->failed)
		return;
	if ((f->n + 1) * 2 > f->nslots) {
		struct loop_finder g = *f;

		g.nslots = f->nslots ? f->nslots * 2 : 64;
		g.slot = calloc(g.nslots, sizeof(*g.slot));
		if (!g.slot) {
			f->failed = true;
			return;
		}
		for (i = 0; i < f->nslots; i++) {
			if (!f->slot[i].name)
				continue;
			size_t j = label_hash(f->slot[i].name, g.nslots - 1);

			while (g.slot[j].name)
				j = (j + 1) & (g.nslots - 1);
			g.slot[j] = f->slot[i];
		}
		free(f->slot);
		f->slot = g.slot;
		f->nslots = g.nslots;
	}
	mask = f->nslots - 1;
	for (i = label_hash(s->u.label, mask); f->slot[i].name; i = (i + 1) & mask)
		if (f->slot[i].name == s->u.label)
			return; /* a duplicate label: the verifier reports it */
	f->slot[i] = (struct loop_label){s->u.label, s, b, f->strong};
	f->n++;
}

static void loops_walk(struct loop_finder *f, const struct ptx_block *b)
{
	const struct ptx_stmt *s;

	for (s = b->head; s && !f->wait; s = s->next) {
		const struct ptx_insn *in = &s->u.insn;
		const struct loop_label *l;

		if (s->kind == PTX_STMT_BLOCK) {
			loops_walk(f, &s->u.block);
			continue;
		}
		if (s->kind == PTX_STMT_LABEL) {
			label_add(f, s, b);
			continue;
		}
		if (s->kind != PTX_STMT_INSN)
			continue;
		if (strong_load(in))
			f->strong++;
		if (in->op != PTX_OP_BRA || !in->operands || in->operands->kind != PTX_EXPR_NAME)
			continue;
		/* A branch back to a label of its own block that has strong loads in between. */
		l = label_find(f, in->operands->u.name.id);
		if (l && l->block == b && (f->failed || f->strong > l->strong))
			f->wait = loop_wait(l->stmt, s);
		else if (f->failed && !l)
			for (const struct ptx_stmt *p = s->prev; p; p = p->prev)
				if (p->kind == PTX_STMT_LABEL && p->u.label == in->operands->u.name.id) {
					f->wait = loop_wait(p, s);
					break;
				}
	}
}

static const struct ptx_stmt *spin_wait(const struct ptx_block *body)
{
	struct loop_finder f = {0};

	loops_walk(&f, body);
	free(f.slot);
	return f.wait;
}

static void refuse_blocked(struct analysis *a, struct ptx_loc loc, const char *fmt, const char *arg)
{
	pass_refuse(a->ctx, a->k, PASS_FORM_SLICE, loc, fmt, arg);
	pass_refuse(a->ctx, a->k, PASS_FORM_PTB, loc, fmt, arg);
}

static void check_barrier(struct analysis *a, const struct ptx_stmt *s, unsigned depth)
{
	const struct ptx_insn *in = &s->u.insn;
	const struct ptx_expr *id = in->operands;
	const char *form = NULL;

	a->k->facts.barriers++;
	if (has_mod(in, ".arrive"))
		form = "split barriers (bar.arrive)";
	else if (has_mod(in, ".red"))
		form = "barriers with a reduction (__syncthreads_count/and/or)";
	else if (!has_mod(in, ".sync") && in->op == PTX_OP_BAR)
		form = "barrier forms other than sync";
	else if (in->guard)
		form = "predicated barriers";
	else if (!id || id->kind != PTX_EXPR_INT || id->u.num.value != 0)
		form = "named barriers (only barrier 0 is handled)";
	else if (in->noperands > 1)
		form = "barriers with a thread count (only whole-CTA barriers are handled)";
	else if (depth > 0)
		form = "barriers inside a nested { } scope";
	if (!form)
		return;
	pass_refuse(a->ctx, a->k, PASS_FORM_UNISYNC, s->loc, "%s%s: %s are not supported", in->opcode->str,
		    in->nmods ? in->mods[0]->str : "", form);
	pass_refuse(a->ctx, a->k, PASS_FORM_PTB, s->loc, "%s%s: %s are not supported by unisync",
		    in->opcode->str, in->nmods ? in->mods[0]->str : "", form);
}

/* What an outside function does is unknown: it may read the block index or wait on other blocks. */
static void refuse_external(struct analysis *a, const struct ptx_stmt *s, const struct callee *c)
{
	char what[256];

	if (c->external == c->name)
		snprintf(what, sizeof(what), "callee '%s' is defined outside this module", c->name->str);
	else
		snprintf(what, sizeof(what), "callee '%s' calls '%s', defined outside this module",
			 c->name->str, c->external->str);
	refuse_blocked(a, s->loc, "%s (separate compilation, or the device runtime): whether it reads "
		       "the block index or waits on other blocks cannot be checked", what);
}

static void scan_kernel_block(struct analysis *a, const struct ptx_block *b, unsigned depth)
{
	struct kernel_facts *kf = &a->k->facts;
	const struct ptx_stmt *s;

	for (s = b->head; s; s = s->next) {
		const struct ptx_insn *in;
		struct operand_facts f = {0};
		const struct ptx_expr *e;

		if (s->kind == PTX_STMT_BLOCK) {
			scan_kernel_block(a, &s->u.block, depth + 1);
			continue;
		}
		if (s->kind != PTX_STMT_INSN)
			continue;
		in = &s->u.insn;
		for (e = in->operands; e; e = e->next)
			scan_expr(a, e, &f);
		kf->ctaid_dims |= f.ctaid;
		kf->nctaid_dims |= f.nctaid;
		kf->dynamic_shared |= f.dynamic_shared;
		if (f.cluster || is_cluster_insn(in)) {
			kf->cluster = true;
			refuse_blocked(a, s->loc, "%s: cluster kernels are not transformed (blocks of a "
				       "cluster must run together)", in->opcode->str);
		}
		if (f.grid_sync) {
			kf->grid_sync = true;
			refuse_blocked(a, s->loc, "%s: reads %%envreg1/%%envreg2, the workspace of "
				       "grid-wide synchronization (a cooperative launch needs every block "
				       "resident at once)", in->opcode->str);
		}
		if (is_cta_barrier(in))
			check_barrier(a, s, depth);
		if (in->op == PTX_OP_RET || in->op == PTX_OP_EXIT) {
			kf->returns++;
			kf->predicated_returns += in->guard != NULL;
		}
		if ((in->op == PTX_OP_CP && mod_contains(in, ".bulk")) || in->op == PTX_OP_WGMMA ||
		    in->op == PTX_OP_TCGEN05 || ((in->op == PTX_OP_ST || in->op == PTX_OP_RED) &&
						 has_mod(in, ".async")))
			kf->async_proxy = true;
		if (in->op == PTX_OP_SETMAXNREG)
			pass_refuse(a->ctx, a->k, PASS_FORM_PTB, s->loc, "%s",
				    "setmaxnreg: a worker would change its register budget once per block");
		if (in->op == PTX_OP_CALL) {
			const struct ptx_expr *t = in->operands;
			struct callee *c;

			kf->calls++;
			if (t && t->kind == PTX_EXPR_PAREN)
				t = t->next;
			c = t && t->kind == PTX_EXPR_NAME ? callee_of(a, t->u.name.id) : NULL;
			if (!c) {
				kf->indirect_calls = true;
				continue;
			}
			if (c->reads_ids)
				refuse_blocked(a, s->loc, "callee '%s' reads %%ctaid or %%nctaid, which "
					       "cannot be rewritten inside called functions", c->name->str);
			if (c->cluster)
				refuse_blocked(a, s->loc, "callee '%s' uses cluster features", c->name->str);
			if (c->grid_sync)
				refuse_blocked(a, s->loc, "callee '%s' synchronizes the whole grid",
					       c->name->str);
			if (c->barrier) {
				kf->callee_sync = true;
				pass_refuse(a->ctx, a->k, PASS_FORM_UNISYNC, s->loc,
					    "callee '%s' synchronizes the CTA", c->name->str);
				pass_refuse(a->ctx, a->k, PASS_FORM_PTB, s->loc,
					    "callee '%s' synchronizes the CTA", c->name->str);
			}
			if (c->exits)
				pass_refuse(a->ctx, a->k, PASS_FORM_PTB, s->loc,
					    "callee '%s' uses exit, which would end a persistent worker",
					    c->name->str);
			if (c->setmaxnreg)
				pass_refuse(a->ctx, a->k, PASS_FORM_PTB, s->loc,
					    "callee '%s' uses setmaxnreg", c->name->str);
			if (c->external)
				refuse_external(a, s, c);
		}
	}
}

/* An indirect call may reach any function of the module. */
static void check_indirect(struct analysis *a)
{
	size_t i;

	for (i = 0; i < a->ncallees; i++) {
		struct callee *c = callee_of(a, a->callees[i].name);

		if (c->reads_ids)
			refuse_blocked(a, a->k->stmt->loc, "an indirect call may reach '%s', which reads "
				       "%%ctaid or %%nctaid", c->name->str);
		if (c->barrier) {
			a->k->facts.callee_sync = true;
			pass_refuse(a->ctx, a->k, PASS_FORM_UNISYNC, a->k->stmt->loc,
				    "an indirect call may reach '%s', which synchronizes the CTA",
				    c->name->str);
			pass_refuse(a->ctx, a->k, PASS_FORM_PTB, a->k->stmt->loc,
				    "an indirect call may reach '%s', which synchronizes the CTA",
				    c->name->str);
		}
		if (c->exits)
			pass_refuse(a->ctx, a->k, PASS_FORM_PTB, a->k->stmt->loc,
				    "an indirect call may reach '%s', which uses exit", c->name->str);
	}
}

static void check_directives(struct analysis *a)
{
	const struct ptx_stmt *d;

	for (d = a->k->func->dirs.head; d; d = d->next) {
		if (d->kind != PTX_STMT_PERF || d->u.dir.name->kind != PTX_IDENT_DIR)
			continue;
		switch (d->u.dir.name->code) {
		case PTX_DIR_EXPLICITCLUSTER:
		case PTX_DIR_REQNCTAPERCLUSTER:
		case PTX_DIR_MAXCLUSTERRANK:
		case PTX_DIR_BLOCKSARECLUSTERS:
			a->k->facts.cluster = true;
			refuse_blocked(a, d->loc, "%s: cluster kernels are not transformed (blocks of a "
				       "cluster must run together)", d->u.dir.name->str);
			break;
		default:
			break;
		}
	}
}

void pass_kernel_analyze(struct pass_ctx *ctx, struct pass_kernel *k)
{
	struct analysis a;
	struct ptx_stmt *s;
	const struct ptx_stmt *w;
	size_t n = 0;
	unsigned major = 0, minor = 0;

	if (k->analyzed)
		return;
	k->analyzed = true;
	memset(&a, 0, sizeof(a));
	a.ctx = ctx;
	a.k = k;

	for (s = ctx->module->items.head; s; s = s->next)
		if (s->kind == PTX_STMT_FUNC && !s->u.func->entry)
			n++;
	a.callees = calloc(n ? n : 1, sizeof(*a.callees));
	if (!a.callees) {
		pass_refuse(ctx, k, PASS_FORM_SLICE, PTX_NOLOC, "out of memory");
		pass_refuse(ctx, k, PASS_FORM_UNISYNC, PTX_NOLOC, "out of memory");
		pass_refuse(ctx, k, PASS_FORM_PTB, PTX_NOLOC, "out of memory");
		return;
	}
	for (s = ctx->module->items.head; s; s = s->next) {
		if (s->kind == PTX_STMT_FUNC && !s->u.func->entry) {
			struct callee *c = &a.callees[a.ncallees++];

			c->name = s->u.func->name;
			c->func = s->u.func;
			/* A prototype without a body (extern, or defined later) counts only once defined. */
			if (!s->u.func->has_body) {
				c->done = true;
				external_facts(c);
			}
		}
		if (s->kind == PTX_STMT_DECL && s->u.decl->space->code == PTX_DIR_SHARED &&
		    (s->u.decl->linkage & PTX_LINK_EXTERN) && s->u.decl->names &&
		    a.ndynamic_shared < sizeof(a.dynamic_shared) / sizeof(a.dynamic_shared[0]))
			a.dynamic_shared[a.ndynamic_shared++] = s->u.decl->names->name;
	}
	/* Prefer the definition when a prototype came first. */
	for (n = 0; n < a.ncallees; n++) {
		size_t j;

		if (a.callees[n].func->has_body)
			continue;
		for (j = 0; j < a.ncallees; j++)
			if (a.callees[j].name == a.callees[n].name && a.callees[j].func->has_body)
				a.callees[n] = a.callees[j];
	}

	check_directives(&a);
	scan_kernel_block(&a, &k->func->body, 0);
	if (k->facts.indirect_calls)
		check_indirect(&a);
	if ((w = spin_wait(&k->func->body)))
		refuse_blocked(&a, w->loc, "%s: the kernel waits in a loop on memory that other blocks "
			       "write (a decoupled look-back or an inter-block lock); running blocks in "
			       "slices or persistent workers could deadlock it", w->u.insn.opcode->str);

	k->facts.param_bytes = params_bytes(k->func->params);
	/* PTX 8.1 (CUDA 12.1) raised the kernel parameter space from 4 KB to 32764 bytes. */
	a.param_limit = 4096;
	if (ptx_module_version(ctx->module, &major, &minor) == 0 && (major > 8 || (major == 8 && minor >= 1)))
		a.param_limit = 32764;
	if (k->facts.param_bytes + 32 > a.param_limit) {
		pass_refuse(ctx, k, PASS_FORM_SLICE, k->stmt->loc, "%u bytes of parameters leave no room "
			    "for 24 more (limit %u)", k->facts.param_bytes, a.param_limit);
		pass_refuse(ctx, k, PASS_FORM_PTB, k->stmt->loc, "%u bytes of parameters leave no room "
			    "for 20 more (limit %u)", k->facts.param_bytes, a.param_limit);
	}
	k->unisync_needed = k->facts.barriers > 0 || k->facts.callee_sync;
	/*
	 * Module-level .shared variables count too: the kernel may use any of
	 * them.  Erring high only moves the ptb slots to global memory.
	 */
	k->facts.static_shared = shared_bytes(&k->func->body);
	for (s = ctx->module->items.head; s; s = s->next)
		if (s->kind == PTX_STMT_DECL && s->u.decl->space->code == PTX_DIR_SHARED &&
		    !(s->u.decl->linkage & PTX_LINK_EXTERN)) {
			struct ptx_block one = {s, s};

			k->facts.static_shared += shared_bytes(&one);
		}
	/*
	 * ptb's two broadcast slots (8 bytes) live in shared memory unless that
	 * could cost the kernel its launch: at the 48 KB static limit, or when it
	 * takes dynamic shared memory, whose size (up to all that is left) is
	 * only known at launch.
	 */
	k->ptb_global_slots = k->facts.dynamic_shared || k->facts.static_shared + 8 > 48 * 1024;
	if (!k->unisync_needed)
		k->refused[PASS_FORM_UNISYNC] = NULL;
	free(a.callees);
}
