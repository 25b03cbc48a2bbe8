/*
 * Registers live across a kernel's CTA barriers.
 *
 * A block given up at a stop (ptb.c, --ptb-restart) runs again from its
 * start, so the work it did is lost; a block that could be resumed at the
 * barrier where it stopped would keep it, if each thread saved what it still
 * needs there.  That is the set of registers live just after the barrier:
 * read on some path from it before being written.  This computes it for the
 * original kernel (colocc --explain prints it, with the bytes a thread would
 * save), the first piece of resuming blocks (docs/passes.md).
 *
 * The analysis is a backward data-flow over basic blocks of the flattened
 * body (nested { } scopes in order; a name declared twice counts as one
 * register).  It errs on the side of more live registers, never fewer:
 *  - an instruction writes its first operand only for opcodes known to have
 *    a destination there (a register, a { } vector of them, or p|q); for the
 *    others (branches, barriers without .red, stores, unknown opcodes and
 *    wgmma and tcgen05, which read what they write) every register named is
 *    read;
 *  - a guarded write (@p) does not end the old value's life;
 *  - a register named with a component (%v.x) is read, never written;
 *  - a name declared more than once (a { } scope shadowing another) counts
 *    as one register that no write ends;
 *  - brx.idx through a table not found, any unknown opcode, or a shadowed
 *    name marks the result approximate; such a brx.idx may go to every label.
 * Predicates count 4 bytes (a save would widen them with selp).
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

struct reg_range {
	const char *prefix; /* "%r" for %r<N> */
	size_t len;
	uint32_t count;
	uint32_t base; /* index of %r0 */
};

/* What a save would need to know of each register. */
struct reg_info {
	uint32_t size;
	bool pred, vector;
	bool nested;   /* declared inside a { } scope (in one of its declarations) */
	bool shadowed; /* declared more than once: one name, several registers */
};

struct regs {
	/* Scalar declarations: open addressing by identifier. */
	const struct ptx_ident **keys;
	uint32_t *vals;
	size_t mask;
	struct reg_range *ranges;
	size_t nranges, cap_ranges;
	uint32_t n;      /* registers in all */
	struct reg_info *info;
	size_t cap_info;
	/* Names of range registers are made on demand for the report. */
	const struct ptx_ident **names;
};

struct label_slot {
	const struct ptx_ident *label;
	uint32_t insn; /* index of the instruction it stands before */
};

struct flow {
	struct ptx_module *m;
	struct regs r;
	const struct ptx_stmt **insns;
	size_t ninsns, cap_insns;
	struct label_slot *labels;
	size_t nlabels, cap_labels;
	const struct ptx_stmt **tables; /* .branchtargets */
	size_t ntables, cap_tables;
	size_t words; /* uint64_t per register set */
	uint64_t *shadowed; /* registers a write does not end (reg_info.shadowed) */
	const char *approximate; /* why the sets may hold more than is live, or NULL */
};

static struct reg_info reg_type(const struct ptx_decl *d, unsigned depth)
{
	uint32_t size = 4;
	bool pred = false;

	if (d->type && d->type->kind == PTX_IDENT_DIR) {
		switch (d->type->code) {
		case PTX_DIR_S8: case PTX_DIR_U8: case PTX_DIR_B8:
			size = 1;
			break;
		case PTX_DIR_S16: case PTX_DIR_U16: case PTX_DIR_B16: case PTX_DIR_F16:
		case PTX_DIR_BF16:
			size = 2;
			break;
		case PTX_DIR_S64: case PTX_DIR_U64: case PTX_DIR_B64: case PTX_DIR_F64:
			size = 8;
			break;
		case PTX_DIR_B128:
			size = 16;
			break;
		case PTX_DIR_PRED:
			pred = true;
			break;
		default: /* 32-bit types, f16x2; a predicate is saved as a word */
			size = 4;
			break;
		}
	}
	return (struct reg_info){.size = size * (d->vec ? d->vec : 1), .pred = pred,
				 .vector = d->vec != 0, .nested = depth > 0};
}

static size_t ptr_hash(const void *p, size_t mask)
{
	uintptr_t v = (uintptr_t)p;

	return (size_t)((v >> 4) * 0x9e3779b97f4a7c15ull) & mask;
}

static long range_index(const struct regs *r, const struct ptx_ident *id);

static bool scalar_add(struct flow *fl, const struct ptx_ident *id, struct reg_info info)
{
	struct regs *r = &fl->r;
	long in_range = range_index(r, id);
	size_t i;

	/* A name a range already declares (%r1 of %r<4>), declared again: one register, shadowed. */
	if (in_range >= 0) {
		r->info[in_range].nested |= info.nested;
		r->info[in_range].shadowed = true;
		return true;
	}

	if ((r->n + 1) * 2 > r->mask + 1 || !r->keys) {
		size_t nmask = r->mask ? r->mask * 2 + 1 : 255;
		const struct ptx_ident **nk = calloc(nmask + 1, sizeof(*nk));
		uint32_t *nv = calloc(nmask + 1, sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return false;
		}
		for (i = 0; r->keys && i <= r->mask; i++) {
			size_t j;

			if (!r->keys[i])
				continue;
			for (j = ptr_hash(r->keys[i], nmask); nk[j]; j = (j + 1) & nmask)
				;
			nk[j] = r->keys[i];
			nv[j] = r->vals[i];
		}
		free(r->keys);
		free(r->vals);
		r->keys = nk;
		r->vals = nv;
		r->mask = nmask;
	}
	for (i = ptr_hash(id, r->mask); r->keys[i]; i = (i + 1) & r->mask)
		if (r->keys[i] == id) {
			/*
			 * Declared again in another scope: counted as one register,
			 * which a write then never ends (the write may be to the other).
			 */
			r->info[r->vals[i]].nested |= info.nested;
			r->info[r->vals[i]].shadowed = true;
			return true;
		}
	r->keys[i] = id;
	r->vals[i] = r->n;
	if (!pass_grow((void **)&r->info, &r->cap_info, r->n + 1, sizeof(*r->info)))
		return false;
	r->info[r->n++] = info;
	return true;
}

/* Index of the register an operand names, or -1 (not a register). */
static long reg_index(const struct regs *r, const struct ptx_ident *id)
{
	size_t i;

	if (r->keys)
		for (i = ptr_hash(id, r->mask); r->keys[i]; i = (i + 1) & r->mask)
			if (r->keys[i] == id)
				return r->vals[i];
	return range_index(r, id);
}

/* Index of the register a name is in a declared range (%r3 of %r<4>), or -1. */
static long range_index(const struct regs *r, const struct ptx_ident *id)
{
	size_t i, k, len;
	uint64_t n = 0;

	len = id->len;
	for (k = len; k > 0 && id->str[k - 1] >= '0' && id->str[k - 1] <= '9'; k--)
		;
	if (k == len || len - k > 9 || (len - k > 1 && id->str[k] == '0'))
		return -1;
	for (i = k; i < len; i++)
		n = n * 10 + (uint64_t)(id->str[i] - '0');
	for (i = 0; i < r->nranges; i++)
		if (r->ranges[i].len == k && memcmp(r->ranges[i].prefix, id->str, k) == 0 &&
		    n < r->ranges[i].count)
			return (long)(r->ranges[i].base + n);
	return -1;
}

static bool declare(struct flow *fl, const struct ptx_decl *d, unsigned depth)
{
	const struct ptx_declarator *dn;

	if (!d->space || strcmp(d->space->str, ".reg") != 0)
		return true;
	for (dn = d->names; dn; dn = dn->next) {
		struct reg_info info = reg_type(d, depth);

		if (dn->range < 0) {
			if (!scalar_add(fl, dn->name, info))
				return false;
			continue;
		}
		/* A range again under a prefix already declared: its names are the first range's. */
		for (size_t j = 0; j < fl->r.nranges; j++) {
			const struct reg_range *o = &fl->r.ranges[j];

			if (o->len != dn->name->len || memcmp(o->prefix, dn->name->str, o->len) != 0)
				continue;
			for (uint32_t x = 0; x < o->count && x < (uint64_t)dn->range; x++) {
				fl->r.info[o->base + x].nested |= info.nested;
				fl->r.info[o->base + x].shadowed = true;
			}
		}
		if (!pass_grow((void **)&fl->r.ranges, &fl->r.cap_ranges, fl->r.nranges + 1,
			  sizeof(*fl->r.ranges)) ||
		    !pass_grow((void **)&fl->r.info, &fl->r.cap_info, fl->r.n + (size_t)dn->range,
			  sizeof(*fl->r.info)))
			return false;
		fl->r.ranges[fl->r.nranges++] = (struct reg_range){
			.prefix = dn->name->str, .len = dn->name->len, .count = (uint32_t)dn->range,
			.base = fl->r.n};
		for (int64_t j = 0; j < dn->range; j++)
			fl->r.info[fl->r.n++] = info;
		/*
		 * Scalars declared before under names the range has: operands name
		 * the scalar (reg_index looks there first), so it is the one shadowed.
		 */
		for (size_t j = 0; fl->r.keys && j <= fl->r.mask; j++)
			if (fl->r.keys[j] && range_index(&fl->r, fl->r.keys[j]) >= 0) {
				fl->r.info[fl->r.vals[j]].nested |= info.nested;
				fl->r.info[fl->r.vals[j]].shadowed = true;
			}
	}
	return true;
}

static bool collect(struct flow *fl, const struct ptx_block *b, unsigned depth)
{
	for (const struct ptx_stmt *s = b->head; s; s = s->next) {
		switch (s->kind) {
		case PTX_STMT_BLOCK:
			if (!collect(fl, &s->u.block, depth + 1))
				return false;
			break;
		case PTX_STMT_DECL:
			if (!declare(fl, s->u.decl, depth))
				return false;
			break;
		case PTX_STMT_LABEL:
			if (!pass_grow((void **)&fl->labels, &fl->cap_labels, fl->nlabels + 1,
				  sizeof(*fl->labels)))
				return false;
			fl->labels[fl->nlabels++] =
				(struct label_slot){.label = s->u.label, .insn = (uint32_t)fl->ninsns};
			break;
		case PTX_STMT_BRANCHTARGETS:
			if (!pass_grow((void **)&fl->tables, &fl->cap_tables, fl->ntables + 1,
				  sizeof(*fl->tables)))
				return false;
			fl->tables[fl->ntables++] = s;
			break;
		case PTX_STMT_INSN:
			if (!pass_grow((void **)&fl->insns, &fl->cap_insns, fl->ninsns + 1,
				  sizeof(*fl->insns)))
				return false;
			fl->insns[fl->ninsns++] = s;
			break;
		default:
			break;
		}
	}
	return true;
}

/* ------------------------------------------------------------ effects */

static void set_bit(uint64_t *set, long i)
{
	if (i >= 0)
		set[i / 64] |= 1ull << (i % 64);
}

struct read_ctx {
	const struct regs *r;
	uint64_t *use;
};

static void read_name(const struct ptx_expr *e, void *arg)
{
	struct read_ctx *rc = arg;

	set_bit(rc->use, reg_index(rc->r, e->u.name.id));
}

/* Every register an expression names, as read. */
static void reads(const struct regs *r, const struct ptx_expr *e, uint64_t *use)
{
	struct read_ctx rc = {r, use};

	pass_expr_names(e, read_name, &rc);
}

/* Does the opcode write its first operand (when that is a register)? */
static bool writes_first(const struct ptx_insn *in)
{
	switch (in->op) {
	case PTX_OP_UNKNOWN:
	case PTX_OP_BRA:
	case PTX_OP_BRX:
	case PTX_OP_CALL:
	case PTX_OP_RET:
	case PTX_OP_EXIT:
	case PTX_OP_NANOSLEEP:
	case PTX_OP_PMEVENT:
	case PTX_OP_TRAP:
	case PTX_OP_SETMAXNREG:
	case PTX_OP_STACKRESTORE:
	case PTX_OP_WGMMA:
	case PTX_OP_TCGEN05:
		return false;
	case PTX_OP_BAR:
	case PTX_OP_BARRIER:
		return ptx_insn_has_mod(in, ".red");
	default:
		return true;
	}
}

/* The registers an operand writes: a name, a { } vector of names, p|q. */
static bool write_target(const struct regs *r, const struct ptx_expr *e, uint64_t *def)
{
	switch (e->kind) {
	case PTX_EXPR_NAME:
		if (e->u.name.comp)
			return false;
		set_bit(def, reg_index(r, e->u.name.id)); /* "_" and non-registers: nothing */
		return true;
	case PTX_EXPR_VECTOR:
		for (const struct ptx_expr *x = e->u.list.head; x; x = x->next)
			if (!write_target(r, x, def))
				return false;
		return true;
	case PTX_EXPR_BINARY:
		return e->op == PTX_BINOP_OR && write_target(r, e->u.sub.a, def) &&
		       write_target(r, e->u.sub.b, def);
	default:
		return false;
	}
}

/*
 * One instruction's effect on a live set, going backward:
 * live = use | (live & ~def).
 */
static void step_back(struct flow *fl, const struct ptx_insn *in, uint64_t *live, uint64_t *scratch)
{
	const struct ptx_expr *first = in->operands;
	size_t w;

	if (in->op == PTX_OP_UNKNOWN && !fl->approximate)
		fl->approximate = "the kernel has instructions colocc does not know";
	memset(scratch, 0, fl->words * sizeof(*scratch));
	if (first && writes_first(in) && write_target(&fl->r, first, scratch)) {
		/*
		 * Guarded: the destinations keep their old values when it does not
		 * run.  A shadowed name may be another register than the one live.
		 */
		for (w = 0; !in->guard && w < fl->words; w++)
			live[w] &= ~(scratch[w] & ~fl->shadowed[w]);
		first = first->next;
	}
	for (const struct ptx_expr *x = first; x; x = x->next)
		reads(&fl->r, x, live);
	if (in->guard)
		set_bit(live, reg_index(&fl->r, in->guard));
}

/* ------------------------------------------------------------- prefix */

static long label_insn(const struct flow *fl, const struct ptx_ident *label);

/*
 * The kernel's prefix: its first instructions, those a resumed block can
 * run again without effect (pure_prefix below says how far it goes).  ptb.c
 * puts the restore after it, so a register that only the prefix writes, as a
 * pure function of the block's identity, the kernel's parameters and what the
 * prefix computed before, needs no saving: its value there is the value it
 * had.  Besides the bytes saved, ptxas can then keep such values
 * (addresses from parameters, thread indices) as it would without the restore
 * path: a register loaded back from the save area is one more value it must
 * hold in a register wherever the block can resume.
 *
 * Run again without effect: loads (the registers they write are saved) and
 * stores to the block's shared variables (restored after the prefix), both
 * at pure addresses under pure guards.
 *
 * Pure: integer, floating-point, logic, comparison, selection, mov, cvt and
 * cvta; loads from .param and .const; special registers that name the thread
 * and the block (%tid, %ntid, %laneid, %lanemask_*, %ctaid, %nctaid, the
 * shared memory sizes).  Not pure: any other load, anything that writes
 * memory, warp-wide operations, %smid, %clock and the like, addc/subc/madc
 * (the carry is state outside the registers).
 */
static void check_sreg(const struct ptx_expr *e, void *arg)
{
	bool *pure = arg;

	if (e->u.name.id->kind != PTX_IDENT_SREG)
		return;
	switch (e->u.name.id->code) {
	case PTX_SREG_TID:
	case PTX_SREG_NTID:
	case PTX_SREG_LANEID:
	case PTX_SREG_CTAID:
	case PTX_SREG_NCTAID:
	case PTX_SREG_LANEMASK_EQ:
	case PTX_SREG_LANEMASK_LE:
	case PTX_SREG_LANEMASK_LT:
	case PTX_SREG_LANEMASK_GE:
	case PTX_SREG_LANEMASK_GT:
	case PTX_SREG_TOTAL_SMEM_SIZE:
	case PTX_SREG_DYNAMIC_SMEM_SIZE:
		return;
	default:
		*pure = false;
	}
}

enum prefix_class {
	PREFIX_STOP,     /* ends the prefix: writes memory, synchronizes, calls... */
	PREFIX_PURE,     /* its result is a function of its inputs */
	PREFIX_HARMLESS, /* runs again without effect, but its result may differ */
};

static enum prefix_class classify(const struct ptx_insn *in)
{
	bool pure = true;

	switch (in->op) {
	case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD:
	case PTX_OP_MUL24: case PTX_OP_MAD24: case PTX_OP_SAD: case PTX_OP_DIV:
	case PTX_OP_REM: case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MIN:
	case PTX_OP_MAX: case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BFIND:
	case PTX_OP_FNS: case PTX_OP_BREV: case PTX_OP_BFE: case PTX_OP_BFI:
	case PTX_OP_BMSK: case PTX_OP_SZEXT: case PTX_OP_DP4A: case PTX_OP_DP2A:
	case PTX_OP_TESTP: case PTX_OP_COPYSIGN: case PTX_OP_RCP: case PTX_OP_SQRT:
	case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_LG2:
	case PTX_OP_EX2: case PTX_OP_TANH: case PTX_OP_FMA: case PTX_OP_SET:
	case PTX_OP_SETP: case PTX_OP_SELP: case PTX_OP_SLCT: case PTX_OP_AND:
	case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_CNOT:
	case PTX_OP_LOP3: case PTX_OP_SHF: case PTX_OP_SHL: case PTX_OP_SHR:
	case PTX_OP_MOV: case PTX_OP_PRMT: case PTX_OP_CVTA: case PTX_OP_CVT:
		break;
	case PTX_OP_LD:
	case PTX_OP_LDU:
		if (ptx_insn_has_mod(in, ".volatile") || ptx_insn_has_mod(in, ".mmio") ||
		    ptx_insn_has_mod(in, ".local"))
			return PREFIX_STOP;
		if (!ptx_insn_has_mod(in, ".param") && !ptx_insn_has_mod(in, ".const"))
			return PREFIX_HARMLESS;
		break;
	default:
		return PREFIX_STOP;
	}
	for (const struct ptx_expr *x = in->operands; x && pure; x = x->next)
		pass_expr_names(x, check_sreg, &pure);
	return pure ? PREFIX_PURE : PREFIX_HARMLESS;
}

/*
 * Registers an instruction may write, for the instructions after the
 * prefix: exactly its destination where the opcode has one there, none for
 * those that write no register or write memory there (an address first), and
 * every register it names otherwise (calls, unknown opcodes).
 */
static void may_write(const struct flow *fl, const struct ptx_insn *in, uint64_t *def)
{
	switch (in->op) {
	case PTX_OP_BRA: case PTX_OP_BRX: case PTX_OP_RET: case PTX_OP_EXIT:
	case PTX_OP_NANOSLEEP: case PTX_OP_PMEVENT: case PTX_OP_TRAP:
	case PTX_OP_SETMAXNREG: case PTX_OP_STACKRESTORE:
		return;
	case PTX_OP_BAR:
	case PTX_OP_BARRIER:
		if (!ptx_insn_has_mod(in, ".red"))
			return;
		break;
	default:
		break;
	}
	if (writes_first(in) && in->operands) {
		if (in->operands->kind == PTX_EXPR_ADDR) /* st, red, cp.async: memory */
			return;
		if (write_target(&fl->r, in->operands, def))
			return;
		reads(&fl->r, in->operands, def); /* a form not understood: all it names */
		return;
	}
	for (const struct ptx_expr *x = in->operands; x; x = x->next)
		reads(&fl->r, x, def);
}

/* A forward branch of the prefix not yet joined: where to, and whether its guard is pure. */
struct pending {
	long target;
	bool pure;
};

/*
 * The prefix: from the kernel's start, statements at its top level that do
 * nothing a second run could tell (classify), with forward branches among
 * them (an if without a loop), up to the first loop header (a label a later
 * branch goes back to), the first instruction that ends it, or the first
 * load whose address is not pure.  Its length is in instructions, and ends
 * where no forward branch is pending, so that every path comes through the
 * restore placed there.  In `only` the registers whose every write is in it,
 * pure, from pure inputs, under guards and branches that are pure: run
 * again, the block takes the same path through the prefix and computes the
 * same values.  A write that may not run (guarded, or on a path a branch may
 * skip) counts only where the value it may leave in place is pure too, or
 * there is none (a path that leaves a register unwritten would have the
 * original read an undefined value).  A load under a guard or branch
 * that is not pure ends it: run again, it might take a path the block never
 * took, to an address it never read.
 */
static size_t pure_prefix(const struct flow *fl, const struct ptx_func *f, uint64_t *only,
			  uint64_t *scratch, bool *before_label, bool *writes_shared)
{
	struct pending *pend = NULL;
	size_t npend = 0, cap = 0, k = 0, clean = 0, i, w;
	bool shared_at_clean = false;
	uint64_t *at_clean = calloc(fl->words ? fl->words : 1, sizeof(*at_clean));
	uint64_t *written = calloc(fl->words ? fl->words : 1, sizeof(*written));
	bool *header = calloc(fl->ninsns + 1, sizeof(*header));

	if (!at_clean || !written || !header)
		goto done;
	/* Loop headers: labels a branch at or after them goes to; brx tables' labels. */
	for (i = 0; i < fl->ninsns; i++) {
		const struct ptx_insn *in = &fl->insns[i]->u.insn;
		long t;

		if (in->op != PTX_OP_BRA || !in->operands || in->operands->kind != PTX_EXPR_NAME)
			continue;
		t = label_insn(fl, in->operands->u.name.id);
		if (t >= 0 && (size_t)t <= i)
			header[t] = true;
	}
	for (i = 0; i < fl->ntables; i++)
		for (const struct ptx_expr *a = fl->tables[i]->u.dir.args; a; a = a->next) {
			long t = a->kind == PTX_EXPR_NAME ? label_insn(fl, a->u.name.id) : -1;

			if (t >= 0)
				header[t] = true;
		}
	for (const struct ptx_stmt *s = f->body.head; s; s = s->next) {
		const struct ptx_insn *in;
		const struct ptx_expr *src;
		enum prefix_class cls;
		bool inputs = true, guard_pure, branches_pure = true;
		size_t j, kept;

		if (s->kind == PTX_STMT_DECL || s->kind == PTX_STMT_LOC)
			continue;
		if (s->kind == PTX_STMT_LABEL) {
			long t = label_insn(fl, s->u.label);

			if (t < 0 || header[t]) {
				/* A loop's head: the restore can go just before it if nothing is pending. */
				if (!npend && k > clean) {
					clean = k;
					memcpy(at_clean, only, fl->words * sizeof(*only));
					*before_label = true;
					shared_at_clean = *writes_shared;
				}
				break;
			}
			continue;
		}
		if (s->kind != PTX_STMT_INSN || k >= fl->ninsns || fl->insns[k] != s)
			break;
		/* Branches that join here are done; with none pending, every path is here. */
		for (j = kept = 0; j < npend; j++)
			if (pend[j].target > (long)k)
				pend[kept++] = pend[j];
		npend = kept;
		if (!npend) {
			clean = k;
			memcpy(at_clean, only, fl->words * sizeof(*only));
			*before_label = false;
			shared_at_clean = *writes_shared;
		}
		for (j = 0; j < npend; j++)
			branches_pure &= pend[j].pure;
		in = &s->u.insn;
		if (in->guard) {
			long g = reg_index(&fl->r, in->guard);

			guard_pure = g >= 0 && (only[g / 64] >> (g % 64) & 1);
		} else {
			guard_pure = true;
		}
		if (in->op == PTX_OP_BRA) {
			long t = in->operands && in->operands->kind == PTX_EXPR_NAME
					 ? label_insn(fl, in->operands->u.name.id)
					 : -1;

			if (t <= (long)k ||
			    !pass_grow((void **)&pend, &cap, npend + 1, sizeof(*pend)))
				break;
			pend[npend++] = (struct pending){.target = t, .pure = guard_pure};
			k++;
			continue;
		}
		/*
		 * A store to shared memory runs again harmlessly: the restore writes
		 * the block's shared variables over it (after a barrier, so that no
		 * thread's store lands on restored data).  At the address it had.
		 */
		if (in->op == PTX_OP_ST && ptx_insn_has_mod(in, ".shared") &&
		    !ptx_insn_has_mod(in, ".shared::cluster") && !ptx_insn_has_mod(in, ".volatile") &&
		    in->operands && in->operands->kind == PTX_EXPR_ADDR) {
			memset(scratch, 0, fl->words * sizeof(*scratch));
			reads(&fl->r, in->operands, scratch);
			for (w = 0; w < fl->words; w++)
				if (scratch[w] & ~only[w])
					inputs = false;
			if (!inputs || !guard_pure || !branches_pure)
				break;
			*writes_shared = true;
			k++;
			continue;
		}
		cls = classify(in);
		if (cls == PREFIX_STOP || !in->operands || !writes_first(in))
			break;
		memset(scratch, 0, fl->words * sizeof(*scratch));
		for (src = in->operands->next; src; src = src->next)
			reads(&fl->r, src, scratch);
		for (w = 0; w < fl->words; w++)
			if (scratch[w] & ~only[w])
				inputs = false;
		/* A load runs again only where it ran before, at the address it had. */
		if ((in->op == PTX_OP_LD || in->op == PTX_OP_LDU) &&
		    (!inputs || !guard_pure || !branches_pure))
			break;
		memset(scratch, 0, fl->words * sizeof(*scratch));
		if (!write_target(&fl->r, in->operands, scratch))
			break;
		for (w = 0; w < fl->words; w++) {
			uint64_t keep = scratch[w];

			/*
			 * A write that may not run (guarded, or on a path a forward
			 * branch may skip) leaves the value before it on the other
			 * path: pure only where that one is too, or there was none.
			 */
			if (in->guard || npend)
				keep &= only[w] | ~written[w];
			if (cls == PREFIX_PURE && inputs && guard_pure && branches_pure)
				only[w] = (only[w] & ~scratch[w]) | keep;
			else
				only[w] &= ~scratch[w];
			written[w] |= scratch[w];
		}
		k++;
	}
	memcpy(only, at_clean, fl->words * sizeof(*only));
	*writes_shared = shared_at_clean;
	/* Written again after it, or a name for several registers: saved. */
	for (i = clean; i < fl->ninsns; i++) {
		memset(scratch, 0, fl->words * sizeof(*scratch));
		may_write(fl, &fl->insns[i]->u.insn, scratch);
		for (w = 0; w < fl->words; w++)
			only[w] &= ~scratch[w];
	}
	for (w = 0; w < fl->words; w++)
		only[w] &= ~fl->shadowed[w];
done:
	if (!at_clean || !written || !header) {
		memset(only, 0, fl->words * sizeof(*only)); /* out of memory: save everything */
		clean = 0;
		*before_label = false;
		*writes_shared = false;
	}
	free(pend);
	free(at_clean);
	free(written);
	free(header);
	return clean;
}

/* ------------------------------------------------------------- blocks */

static int label_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct label_slot *)a)->label;
	uintptr_t y = (uintptr_t)((const struct label_slot *)b)->label;

	return x < y ? -1 : x > y;
}

/* The instruction a label stands before (labels sorted by label_cmp), or -1. */
static long label_insn(const struct flow *fl, const struct ptx_ident *label)
{
	struct label_slot key = {.label = label};
	const struct label_slot *hit =
		bsearch(&key, fl->labels, fl->nlabels, sizeof(*fl->labels), label_cmp);

	return hit ? (long)hit->insn : -1;
}

static const struct ptx_stmt *table_of(const struct flow *fl, const struct ptx_ident *name)
{
	for (size_t i = 0; i < fl->ntables; i++)
		if (fl->tables[i]->u.dir.name == name)
			return fl->tables[i];
	return NULL;
}

static bool ends_flow(const struct ptx_insn *in)
{
	return !in->guard && (in->op == PTX_OP_BRA || in->op == PTX_OP_BRX || in->op == PTX_OP_RET ||
			      in->op == PTX_OP_EXIT || in->op == PTX_OP_TRAP);
}

struct bb {
	uint32_t first, last; /* instruction indices, inclusive */
	uint32_t *succ;
	uint32_t nsucc, cap;
	uint64_t *in, *out;
};

static bool add_succ(struct bb *b, uint32_t s)
{
	size_t cap = b->cap;

	for (uint32_t i = 0; i < b->nsucc; i++)
		if (b->succ[i] == s)
			return true;
	if (!pass_grow((void **)&b->succ, &cap, b->nsucc + 1, sizeof(*b->succ)))
		return false;
	b->cap = (uint32_t)cap;
	b->succ[b->nsucc++] = s;
	return true;
}

/* The barrier sites unisync rewrites: bar/barrier, not .warp or .cluster. */
static bool is_site(const struct ptx_insn *in)
{
	return (in->op == PTX_OP_BAR || in->op == PTX_OP_BARRIER) && !ptx_insn_has_mod(in, ".warp") &&
	       !ptx_insn_has_mod(in, ".cluster");
}

static const struct ptx_ident *reg_name(struct flow *fl, uint32_t i)
{
	struct regs *r = &fl->r;
	char buf[256];

	if (!r->names) {
		r->names = calloc(r->n ? r->n : 1, sizeof(*r->names));
		if (!r->names)
			return NULL;
		for (size_t j = 0; r->keys && j <= r->mask; j++)
			if (r->keys[j])
				r->names[r->vals[j]] = r->keys[j];
	}
	if (r->names[i])
		return r->names[i];
	for (size_t j = 0; j < r->nranges; j++)
		if (i >= r->ranges[j].base && i < r->ranges[j].base + r->ranges[j].count) {
			snprintf(buf, sizeof(buf), "%.*s%u", (int)r->ranges[j].len, r->ranges[j].prefix,
				 i - r->ranges[j].base);
			r->names[i] = ptx_intern_cstr(fl->m, buf);
			return r->names[i];
		}
	return NULL;
}

static int report(struct flow *fl, const struct bb *bbs, const uint32_t *block_of,
		  const uint64_t *only, struct pass_live *out)
{
	uint64_t *live = calloc(fl->words ? fl->words : 1, sizeof(*live));
	uint64_t *scratch = calloc(fl->words ? fl->words : 1, sizeof(*scratch));
	uint64_t *all = calloc(fl->words ? fl->words : 1, sizeof(*all));
	size_t cap = 0;
	int rc = -1;

	if (!live || !scratch || !all)
		goto done;
	for (size_t i = 0; i < fl->ninsns; i++) {
		const struct bb *b = &bbs[block_of[i]];
		struct pass_live_site *site;

		if (!is_site(&fl->insns[i]->u.insn))
			continue;
		memcpy(live, b->out, fl->words * sizeof(*live));
		for (size_t j = b->last; j > i; j--)
			step_back(fl, &fl->insns[j]->u.insn, live, scratch);
		if (!pass_grow((void **)&out->sites, &cap, out->nsites + 1, sizeof(*out->sites)))
			goto done;
		site = &out->sites[out->nsites++];
		memset(site, 0, sizeof(*site));
		site->loc = fl->insns[i]->loc;
		for (uint32_t k = 0; k < fl->r.n; k++)
			if (live[k / 64] >> (k % 64) & 1)
				site->nregs++;
		for (size_t w = 0; w < fl->words; w++)
			all[w] |= live[w];
		site->regs = calloc(site->nregs ? site->nregs : 1, sizeof(*site->regs));
		if (!site->regs)
			goto done;
		site->nregs = 0;
		for (uint32_t k = 0; k < fl->r.n; k++) {
			if (!(live[k / 64] >> (k % 64) & 1))
				continue;
			site->regs[site->nregs] = reg_name(fl, k);
			if (!site->regs[site->nregs])
				goto done;
			site->nregs++;
			site->bytes += fl->r.info[k].size;
		}
	}
	for (uint32_t k = 0; k < fl->r.n; k++)
		out->nregs += all[k / 64] >> (k % 64) & 1;
	out->regs = calloc(out->nregs ? out->nregs : 1, sizeof(*out->regs));
	if (!out->regs)
		goto done;
	out->nregs = 0;
	for (uint32_t k = 0; k < fl->r.n; k++) {
		struct pass_live_reg *r = &out->regs[out->nregs];

		if (!(all[k / 64] >> (k % 64) & 1))
			continue;
		r->name = reg_name(fl, k);
		if (!r->name)
			goto done;
		r->size = fl->r.info[k].size;
		r->pred = fl->r.info[k].pred;
		r->vector = fl->r.info[k].vector;
		r->nested = fl->r.info[k].nested;
		r->recomputed = only[k / 64] >> (k % 64) & 1;
		out->nregs++;
	}
	rc = 0;
done:
	free(live);
	free(scratch);
	free(all);
	return rc;
}

int pass_live_across_barriers(struct ptx_module *m, const struct ptx_func *f, struct pass_live *out)
{
	struct flow fl = {.m = m};
	struct bb *bbs = NULL;
	uint32_t *block_of = NULL;
	bool *leader = NULL;
	uint64_t *scratch = NULL, *tmp = NULL, *only = NULL;
	size_t nbbs = 0, i, w;
	bool changed;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!collect(&fl, &f->body, 0))
		goto done;
	fl.words = (fl.r.n + 63) / 64;
	fl.shadowed = calloc(fl.words ? fl.words : 1, sizeof(*fl.shadowed));
	if (!fl.shadowed)
		goto done;
	for (i = 0; i < fl.r.n; i++)
		if (fl.r.info[i].shadowed) {
			set_bit(fl.shadowed, (long)i);
			fl.approximate = "a register name is declared more than once";
		}
	leader = calloc(fl.ninsns + 1, sizeof(*leader));
	block_of = calloc(fl.ninsns + 1, sizeof(*block_of));
	scratch = calloc(fl.words ? fl.words : 1, sizeof(*scratch));
	tmp = calloc(fl.words ? fl.words : 1, sizeof(*tmp));
	only = calloc(fl.words ? fl.words : 1, sizeof(*only));
	if (!leader || !block_of || !scratch || !tmp || !only)
		goto done;
	if (fl.ninsns == 0) {
		rc = 0;
		goto done;
	}
	/* Leaders: the first instruction, every label's, every one after a branch. */
	leader[0] = true;
	for (i = 0; i < fl.nlabels; i++)
		leader[fl.labels[i].insn] = true;
	for (i = 0; i < fl.ninsns; i++) {
		const struct ptx_insn *in = &fl.insns[i]->u.insn;

		if (in->op == PTX_OP_BRA || in->op == PTX_OP_BRX || in->op == PTX_OP_RET ||
		    in->op == PTX_OP_EXIT || in->op == PTX_OP_TRAP)
			leader[i + 1] = true;
	}
	for (i = 0; i < fl.ninsns; i++)
		nbbs += leader[i];
	if (fl.nlabels)
		qsort(fl.labels, fl.nlabels, sizeof(*fl.labels), label_cmp);
	bbs = calloc(nbbs, sizeof(*bbs));
	if (!bbs)
		goto done;
	nbbs = 0;
	for (i = 0; i < fl.ninsns; i++) {
		if (leader[i])
			bbs[nbbs++].first = (uint32_t)i;
		bbs[nbbs - 1].last = (uint32_t)i;
		block_of[i] = (uint32_t)(nbbs - 1);
	}
	for (i = 0; i < nbbs; i++) {
		struct bb *b = &bbs[i];
		const struct ptx_insn *in = &fl.insns[b->last]->u.insn;

		b->in = calloc(fl.words ? fl.words : 1, sizeof(*b->in));
		b->out = calloc(fl.words ? fl.words : 1, sizeof(*b->out));
		if (!b->in || !b->out)
			goto done;
		if (!ends_flow(in) && i + 1 < nbbs && !add_succ(b, (uint32_t)(i + 1)))
			goto done;
		if (in->op == PTX_OP_BRA && in->operands && in->operands->kind == PTX_EXPR_NAME) {
			long t = label_insn(&fl, in->operands->u.name.id);

			if (t < 0 || (size_t)t >= fl.ninsns)
				continue; /* a branch past the last instruction: nothing live there */
			if (!add_succ(b, block_of[t]))
				goto done;
		} else if (in->op == PTX_OP_BRX) {
			const struct ptx_expr *tab = in->operands ? in->operands->next : NULL;
			const struct ptx_stmt *t = tab && tab->kind == PTX_EXPR_NAME
							   ? table_of(&fl, tab->u.name.id)
							   : NULL;

			if (!t && !fl.approximate)
				fl.approximate = "a brx.idx table colocc cannot find";
			for (size_t j = 0; j < (t ? t->u.dir.nargs : fl.nlabels); j++) {
				long x;

				if (t) {
					const struct ptx_expr *a = t->u.dir.args;

					for (size_t k = 0; a && k < j; k++)
						a = a->next;
					if (!a || a->kind != PTX_EXPR_NAME) {
						if (!fl.approximate)
							fl.approximate = "a brx.idx table entry colocc cannot read";
						continue;
					}
					x = label_insn(&fl, a->u.name.id);
				} else {
					x = fl.labels[j].insn;
				}
				if (x >= 0 && (size_t)x < fl.ninsns && !add_succ(b, block_of[x]))
					goto done;
			}
		}
	}
	/* Backward to a fixed point: out = union of successors' in; in = use | (out & ~def). */
	do {
		changed = false;
		for (i = nbbs; i-- > 0;) {
			struct bb *b = &bbs[i];

			for (uint32_t s = 0; s < b->nsucc; s++)
				for (w = 0; w < fl.words; w++)
					b->out[w] |= bbs[b->succ[s]].in[w];
			memcpy(scratch, b->out, fl.words * sizeof(*scratch));
			for (size_t j = b->last + 1; j-- > b->first;)
				step_back(&fl, &fl.insns[j]->u.insn, scratch, tmp);
			for (w = 0; w < fl.words; w++)
				if ((scratch[w] | b->in[w]) != b->in[w]) {
					b->in[w] |= scratch[w];
					changed = true;
				}
		}
	} while (changed);
	out->prefix_insns = (unsigned)pure_prefix(&fl, f, only, scratch, &out->prefix_before_label,
						  &out->prefix_writes_shared);
	if (report(&fl, bbs, block_of, only, out) < 0)
		goto done;
	out->approximate = fl.approximate;
	rc = 0;
done:
	for (i = 0; bbs && i < nbbs; i++) {
		free(bbs[i].succ);
		free(bbs[i].in);
		free(bbs[i].out);
	}
	free(bbs);
	free(block_of);
	free(leader);
	free(scratch);
	free(tmp);
	free(only);
	free(fl.insns);
	free(fl.labels);
	free(fl.tables);
	free(fl.r.keys);
	free(fl.r.vals);
	free(fl.r.ranges);
	free(fl.r.info);
	free(fl.shadowed);
	free(fl.r.names);
	if (rc < 0)
		pass_live_release(out);
	return rc;
}

void pass_live_release(struct pass_live *l)
{
	for (unsigned i = 0; l && i < l->nsites; i++)
		free(l->sites[i].regs);
	if (l) {
		free(l->sites);
		free(l->regs);
		memset(l, 0, sizeof(*l));
	}
}
