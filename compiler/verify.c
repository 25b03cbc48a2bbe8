/*
 * Verifier: the facts the passes build on, checked with locations.
 *
 * - the module starts with .version and has a .target;
 * - names resolve with PTX's scoping: module-level names in text order,
 *   parameters, then nested { } blocks in which declarations count from the
 *   point they appear and labels anywhere in their own block;
 * - a label is defined once per block;
 * - registers are declared before use (%r<N> declares %r0 .. %r(N-1));
 * - operand kinds: guards are .pred registers, branch targets are labels,
 *   brx.idx names a .branchtargets list, call has its documented shape,
 *   memory instructions have an address operand, a '.x' component is only
 *   read from a vector register or a special register that has components.
 *
 * Debug-section data is not resolved: it refers across functions by design.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

enum bind_kind {
	BIND_REG,       /* .reg, possibly %name<N> */
	BIND_VAR,       /* any other state space */
	BIND_FUNC,
	BIND_LABEL,
	BIND_BRANCHTARGETS,
	BIND_CALLTARGETS,
	BIND_PROTO,
};

static const char *const bind_names[] = {
	[BIND_REG] = "register",
	[BIND_VAR] = "variable",
	[BIND_FUNC] = "function",
	[BIND_LABEL] = "label",
	[BIND_BRANCHTARGETS] = ".branchtargets list",
	[BIND_CALLTARGETS] = ".calltargets list",
	[BIND_PROTO] = ".callprototype",
};

struct binding {
	const struct ptx_ident *name;
	enum bind_kind kind;
	int64_t range;                  /* BIND_REG declared as name<N>; else -1 */
	uint8_t vec;
	const struct ptx_ident *type;
	struct ptx_loc loc;
	struct binding *shadowed;       /* same name in an enclosing scope */
	struct binding *scope_next;     /* bindings of the same scope */
};

struct slot {
	const struct ptx_ident *key;
	struct binding *top;
};

struct verifier {
	const struct ptx_module *m;
	struct coloc_diag *diag;
	struct coloc_arena arena;
	struct slot *slots;
	size_t mask;
	size_t used;
	struct binding *scopes[PTX_MAX_NESTING + 8];
	unsigned depth;
	unsigned errors;
	int oom;
	const struct ptx_ident *pred_type;
	const struct ptx_ident *sink;
	const struct ptx_ident *warp_sz; /* the predefined constant WARP_SZ */
};

#define verr(v, loc, ...)                                        \
	do {                                                     \
		coloc_error((v)->diag, (loc), __VA_ARGS__);      \
		(v)->errors++;                                   \
	} while (0)

/* ------------------------------------------------------------ symbol table */

static size_t ptr_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;

	x ^= x >> 17;
	x *= 0xed5ad4bbu;
	x ^= x >> 11;
	return (size_t)x;
}

static struct slot *table_find(struct verifier *v, const struct ptx_ident *key, int insert)
{
	size_t i;

	if (!v->slots || (insert && v->used * 2 >= v->mask)) {
		size_t n = v->slots ? (v->mask + 1) * 2 : 4096, j;
		struct slot *slots = calloc(n, sizeof(*slots));

		if (!slots) {
			v->oom = 1;
			return NULL;
		}
		for (j = 0; v->slots && j <= v->mask; j++) {
			if (!v->slots[j].key)
				continue;
			for (i = ptr_hash(v->slots[j].key) & (n - 1); slots[i].key; i = (i + 1) & (n - 1))
				;
			slots[i] = v->slots[j];
		}
		free(v->slots);
		v->slots = slots;
		v->mask = n - 1;
	}
	for (i = ptr_hash(key) & v->mask; v->slots[i].key; i = (i + 1) & v->mask)
		if (v->slots[i].key == key)
			return &v->slots[i];
	if (!insert)
		return NULL;
	v->slots[i].key = key;
	v->used++;
	return &v->slots[i];
}

static struct binding *lookup(struct verifier *v, const struct ptx_ident *name)
{
	struct slot *s = table_find(v, name, 0);

	return s ? s->top : NULL;
}

static struct binding *bind(struct verifier *v, const struct ptx_ident *name, enum bind_kind kind,
			    struct ptx_loc loc)
{
	struct slot *s = table_find(v, name, 1);
	struct binding *b;

	if (!s)
		return NULL;
	/* Redefinition in the same scope. */
	for (b = v->scopes[v->depth]; b; b = b->scope_next) {
		if (b->name != name)
			continue;
		if (kind == BIND_FUNC && b->kind == BIND_FUNC)
			return b; /* a prototype and then the definition */
		verr(v, loc, "'%s' is already defined as a %s in this scope (at %u:%u)", name->str,
		     bind_names[b->kind], b->loc.line, b->loc.col);
		return b;
	}
	b = coloc_arena_alloc(&v->arena, sizeof(*b));
	if (!b) {
		v->oom = 1;
		return NULL;
	}
	b->name = name;
	b->kind = kind;
	b->range = -1;
	b->loc = loc;
	b->shadowed = s->top;
	s->top = b;
	b->scope_next = v->scopes[v->depth];
	v->scopes[v->depth] = b;
	return b;
}

static int scope_push(struct verifier *v)
{
	if (v->depth + 1 >= sizeof(v->scopes) / sizeof(v->scopes[0]))
		return -1;
	v->scopes[++v->depth] = NULL;
	return 0;
}

static void scope_pop(struct verifier *v)
{
	struct binding *b;

	for (b = v->scopes[v->depth]; b; b = b->scope_next) {
		struct slot *s = table_find(v, b->name, 0);

		if (s)
			s->top = b->shadowed;
	}
	v->depth--;
}

/* %r12 against %r<N>: split off the decimal suffix and look the prefix up. */
static struct binding *lookup_ranged(struct verifier *v, const struct ptx_ident *name)
{
	const char *s = name->str;
	size_t n = name->len, i = n;
	const struct ptx_ident *prefix;
	struct binding *b;
	uint64_t index = 0;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i == 0 || n - i > 9)
		return NULL;
	prefix = ptx_lookup(v->m, s, i);
	if (!prefix)
		return NULL;
	b = lookup(v, prefix);
	if (!b || b->kind != BIND_REG || b->range < 0)
		return NULL;
	for (; i < n; i++)
		index = index * 10 + (uint64_t)(s[i] - '0');
	return index < (uint64_t)b->range ? b : NULL;
}

static struct binding *resolve(struct verifier *v, const struct ptx_ident *name)
{
	struct binding *b = lookup(v, name);

	if (b && b->range < 0)
		return b;
	return lookup_ranged(v, name);
}

enum use {
	USE_VALUE,  /* register, variable, function address, label in data */
	USE_LABEL,  /* bra target */
	USE_BTARGETS,
	USE_CALLEE,
	USE_PROTO,  /* .callprototype or .calltargets label */
	USE_FUNC,
};

/* ---------------------------------------------------------- declarations */

static void check_expr(struct verifier *v, const struct ptx_expr *e, int use);

static void declare(struct verifier *v, const struct ptx_decl *d)
{
	const struct ptx_declarator *n;
	enum bind_kind kind = d->space->code == PTX_DIR_REG ? BIND_REG : BIND_VAR;

	for (n = d->names; n; n = n->next) {
		struct binding *b;

		if (n->range >= 0 && (n->dims || n->init))
			verr(v, n->loc, "'%s<%lld>' declares a set of names; it takes no array size or initializer",
			     n->name->str, (long long)n->range);
		if (n->range >= 0 && kind != BIND_REG)
			verr(v, n->loc, "'%s<%lld>' declares registers, but the state space is '%s'",
			     n->name->str, (long long)n->range, d->space->str);
		if (kind == BIND_REG && n->init)
			verr(v, n->loc, "register '%s' cannot have an initializer", n->name->str);
		if (n->name->kind == PTX_IDENT_SREG)
			verr(v, n->loc, "'%s' is a predefined special register and cannot be declared",
			     n->name->str);
		if (n->init)
			check_expr(v, n->init, USE_VALUE);
		b = bind(v, n->name, kind, n->loc);
		if (!b)
			continue;
		b->range = n->range;
		b->vec = d->vec;
		b->type = d->type;
	}
}

static void declare_params(struct verifier *v, const struct ptx_decl *d)
{
	for (; d; d = d->next)
		declare(v, d);
}

/* ------------------------------------------------------------- operands */


static void check_name(struct verifier *v, const struct ptx_expr *e, enum use use)
{
	const struct ptx_ident *id = e->u.name.id;
	struct binding *b;

	if (id == v->sink || id == v->warp_sz)
		return;
	if (id->kind == PTX_IDENT_SREG) {
		unsigned flags = ptx_sreg_table[id->code].flags;

		if (use != USE_VALUE)
			goto wrong;
		if (e->u.name.comp && !(flags & PTX_SRF_VEC))
			verr(v, e->loc, "special register '%s' has no component '%s'", id->str,
			     e->u.name.comp->str);
		if (e->u.name.comp && (flags & PTX_SRF_VEC)) {
			const char *c = e->u.name.comp->str;

			if (strcmp(c, ".x") && strcmp(c, ".y") && strcmp(c, ".z"))
				verr(v, e->loc, "'%s' has components .x, .y and .z, not '%s'", id->str, c);
		}
		return;
	}
	b = resolve(v, id);
	if (!b) {
		verr(v, e->loc, "use of undeclared %s '%s'",
		     use == USE_LABEL ? "label" : id->str[0] == '%' ? "register" : "identifier",
		     id->str);
		return;
	}
	switch (use) {
	case USE_VALUE:
		if (b->kind == BIND_LABEL || b->kind == BIND_BRANCHTARGETS ||
		    b->kind == BIND_CALLTARGETS || b->kind == BIND_PROTO)
			goto wrong;
		break;
	case USE_LABEL:
		if (b->kind != BIND_LABEL)
			goto wrong;
		break;
	case USE_BTARGETS:
		if (b->kind != BIND_BRANCHTARGETS)
			goto wrong;
		break;
	case USE_CALLEE:
		if (b->kind != BIND_FUNC && b->kind != BIND_REG)
			goto wrong;
		break;
	case USE_PROTO:
		if (b->kind != BIND_PROTO && b->kind != BIND_CALLTARGETS)
			goto wrong;
		break;
	case USE_FUNC:
		if (b->kind != BIND_FUNC)
			goto wrong;
		break;
	}
	if (e->u.name.comp) {
		const char *c = e->u.name.comp->str;

		/* Video instructions select bytes and halves: %r1.b0, %r2.h1, %r3.b3210. */
		if (b->kind == BIND_REG && (c[1] == 'b' || c[1] == 'h') && c[2] >= '0' && c[2] <= '9' &&
		    strspn(c + 2, "0123456789") == strlen(c + 2))
			return;
		if (b->kind != BIND_REG || !b->vec)
			verr(v, e->loc, "'%s%s': only vector registers and special registers have components",
			     id->str, c);
		else if (strcmp(c, ".x") && strcmp(c, ".y") && strcmp(c, ".z") && strcmp(c, ".w") &&
			 strcmp(c, ".r") && strcmp(c, ".g") && strcmp(c, ".b") && strcmp(c, ".a"))
			verr(v, e->loc, "'%s' is not a vector component; expected .x, .y, .z or .w", c);
	}
	return;
wrong: {
	static const char *const wanted[] = {
		[USE_VALUE] = "a register or variable",
		[USE_LABEL] = "a label",
		[USE_BTARGETS] = "a .branchtargets label",
		[USE_CALLEE] = "a function or a register holding its address",
		[USE_PROTO] = "a .callprototype or .calltargets label",
		[USE_FUNC] = "a function",
	};

	verr(v, e->loc, "'%s' is %s here, but %s is expected", id->str,
	     id->kind == PTX_IDENT_SREG ? "a special register" :
	     b->kind == BIND_LABEL ? "a label" :
	     b->kind == BIND_REG ? "a register" :
	     b->kind == BIND_VAR ? "a variable" :
	     b->kind == BIND_FUNC ? "a function" : "a directive label",
	     wanted[use]);
}
}

static void check_expr(struct verifier *v, const struct ptx_expr *e, int use)
{
	const struct ptx_expr *c;

	switch (e->kind) {
	case PTX_EXPR_NAME:
		check_name(v, e, (enum use)use);
		break;
	case PTX_EXPR_UNARY:
	case PTX_EXPR_CAST:
		check_expr(v, e->u.sub.a, USE_VALUE);
		break;
	case PTX_EXPR_INDEX:
		check_expr(v, e->u.sub.a, USE_VALUE);
		check_expr(v, e->u.sub.b, USE_VALUE);
		break;
	case PTX_EXPR_BINARY:
		if (e->op == PTX_BINOP_ASSIGN) {
			check_expr(v, e->u.sub.b, USE_VALUE);
			break;
		}
		/* fallthrough */
	case PTX_EXPR_COND:
		check_expr(v, e->u.sub.a, USE_VALUE);
		check_expr(v, e->u.sub.b, USE_VALUE);
		if (e->u.sub.c)
			check_expr(v, e->u.sub.c, USE_VALUE);
		break;
	case PTX_EXPR_CALL:
		/* generic(x), .unified(a, b): the arguments are names or numbers. */
		for (c = e->u.list.head; c; c = c->next)
			check_expr(v, c, USE_VALUE);
		break;
	case PTX_EXPR_PAREN:
	case PTX_EXPR_VECTOR:
	case PTX_EXPR_ADDR:
		for (c = e->u.list.head; c; c = c->next)
			check_expr(v, c, USE_VALUE);
		break;
	default:
		break;
	}
}

static const struct ptx_expr *nth(const struct ptx_expr *e, unsigned n)
{
	while (e && n--)
		e = e->next;
	return e;
}

/*
 * call[.uni] [(rets),] callee[, (args)][, proto-or-targets]
 * The lists are PAREN expressions; a register callee needs the last part.
 */
static void check_call(struct verifier *v, const struct ptx_stmt *s)
{
	const struct ptx_expr *e = s->u.insn.operands, *callee;
	struct binding *b;

	if (e && e->kind == PTX_EXPR_PAREN) {
		const struct ptx_expr *r;

		for (r = e->u.list.head; r; r = r->next)
			check_expr(v, r, USE_VALUE);
		e = e->next;
	}
	callee = e;
	if (!callee || callee->kind != PTX_EXPR_NAME) {
		verr(v, s->loc, "call needs a function name or a register holding its address");
		return;
	}
	check_name(v, callee, USE_CALLEE);
	e = e->next;
	if (e && e->kind == PTX_EXPR_PAREN) {
		const struct ptx_expr *a;

		for (a = e->u.list.head; a; a = a->next)
			check_expr(v, a, USE_VALUE);
		e = e->next;
	}
	b = resolve(v, callee->u.name.id);
	if (e) {
		if (e->kind != PTX_EXPR_NAME || e->next)
			verr(v, e->loc, "unexpected operand after the argument list of call");
		else
			check_name(v, e, USE_PROTO);
	} else if (b && b->kind == BIND_REG) {
		verr(v, callee->loc,
		     "indirect call through '%s' needs a .callprototype or .calltargets label",
		     callee->u.name.id->str);
	}
}

static void check_insn(struct verifier *v, const struct ptx_stmt *s)
{
	const struct ptx_insn *in = &s->u.insn;
	const struct ptx_expr *e;
	unsigned flags = ptx_op_table[in->op].flags;

	if (in->guard) {
		struct binding *b = resolve(v, in->guard);

		if (!b)
			verr(v, s->loc, "use of undeclared predicate '%s'", in->guard->str);
		else if (b->kind != BIND_REG || b->type != v->pred_type)
			verr(v, s->loc, "guard '%s' is not a .pred register", in->guard->str);
	}
	switch (in->op) {
	case PTX_OP_BRA:
		if (in->noperands != 1 || in->operands->kind != PTX_EXPR_NAME) {
			verr(v, s->loc, "bra takes one operand, the label to branch to");
			return;
		}
		check_name(v, in->operands, USE_LABEL);
		return;
	case PTX_OP_BRX:
		if (in->noperands != 2 || nth(in->operands, 1)->kind != PTX_EXPR_NAME) {
			verr(v, s->loc, "brx.idx takes an index and a .branchtargets label");
			return;
		}
		check_expr(v, in->operands, USE_VALUE);
		check_name(v, nth(in->operands, 1), USE_BTARGETS);
		return;
	case PTX_OP_CALL:
		check_call(v, s);
		return;
	default:
		break;
	}
	if (flags & PTX_OPF_MEM) {
		for (e = in->operands; e; e = e->next)
			if (e->kind == PTX_EXPR_ADDR || e->kind == PTX_EXPR_INDEX)
				break;
		if (!e)
			verr(v, s->loc, "'%s' needs an address operand such as [%%rd1] or A[4]",
			     in->opcode->str);
	}
	for (e = in->operands; e; e = e->next)
		check_expr(v, e, USE_VALUE);
}

/* --------------------------------------------------------------- bodies */

/* L<3> in a .branchtargets list stands for L0, L1 and L2. */
static void check_label_range(struct verifier *v, const struct ptx_expr *e)
{
	uint32_t i;
	char name[300];

	if (e->u.name.id->len > 256) {
		verr(v, e->loc, "label name too long in '%s<%u>'", e->u.name.id->str, e->count);
		return;
	}
	for (i = 0; i < e->count; i++) {
		const struct ptx_ident *id;
		struct binding *b;

		snprintf(name, sizeof(name), "%s%u", e->u.name.id->str, i);
		id = ptx_lookup(v->m, name, strlen(name));
		b = id ? resolve(v, id) : NULL;
		if (!b || b->kind != BIND_LABEL) {
			verr(v, e->loc, "'%s<%u>' names label '%s', which is not defined", e->u.name.id->str,
			     e->count, name);
			return;
		}
	}
}

static void collect_labels(struct verifier *v, const struct ptx_block *blk)
{
	const struct ptx_stmt *s;

	for (s = blk->head; s; s = s->next) {
		switch (s->kind) {
		case PTX_STMT_LABEL:
			bind(v, s->u.label, BIND_LABEL, s->loc);
			break;
		case PTX_STMT_BRANCHTARGETS:
			bind(v, s->u.dir.name, BIND_BRANCHTARGETS, s->loc);
			break;
		case PTX_STMT_CALLTARGETS:
			bind(v, s->u.dir.name, BIND_CALLTARGETS, s->loc);
			break;
		case PTX_STMT_CALLPROTO:
			bind(v, s->u.proto->label, BIND_PROTO, s->loc);
			break;
		default:
			break;
		}
	}
}

static void check_block(struct verifier *v, const struct ptx_block *blk)
{
	const struct ptx_stmt *s;
	const struct ptx_expr *e;

	if (scope_push(v) < 0) {
		struct ptx_loc none = {0, 0};

		verr(v, blk->head ? blk->head->loc : none, "blocks nest too deeply");
		return;
	}
	collect_labels(v, blk);
	for (s = blk->head; s && !v->oom; s = s->next) {
		switch (s->kind) {
		case PTX_STMT_INSN:
			check_insn(v, s);
			break;
		case PTX_STMT_DECL:
			declare(v, s->u.decl);
			break;
		case PTX_STMT_BLOCK:
			check_block(v, &s->u.block);
			break;
		case PTX_STMT_BRANCHTARGETS:
			for (e = s->u.dir.args; e; e = e->next)
				if (e->kind == PTX_EXPR_RANGE)
					check_label_range(v, e);
				else
					check_name(v, e, USE_LABEL);
			break;
		case PTX_STMT_CALLTARGETS:
			for (e = s->u.dir.args; e; e = e->next)
				check_name(v, e, USE_FUNC);
			break;
		default:
			break;
		}
	}
	scope_pop(v);
}

static void check_func(struct verifier *v, const struct ptx_stmt *s)
{
	const struct ptx_func *f = s->u.func;
	const struct ptx_stmt *d;

	bind(v, f->name, BIND_FUNC, s->loc);
	for (d = f->dirs.head; d; d = d->next) {
		if (d->kind != PTX_STMT_PERF)
			continue;
		if (d->u.dir.name->kind != PTX_IDENT_DIR)
			continue;
		switch (d->u.dir.name->code) {
		case PTX_DIR_MAXNTID:
		case PTX_DIR_REQNTID:
		case PTX_DIR_REQNCTAPERCLUSTER:
			if (d->u.dir.nargs < 1 || d->u.dir.nargs > 3)
				verr(v, d->loc, "'%s' takes one to three sizes", d->u.dir.name->str);
			break;
		case PTX_DIR_NORETURN:
		case PTX_DIR_EXPLICITCLUSTER:
		case PTX_DIR_BLOCKSARECLUSTERS:
			if (d->u.dir.nargs)
				verr(v, d->loc, "'%s' takes no operands", d->u.dir.name->str);
			break;
		default:
			if (d->u.dir.nargs != 1)
				verr(v, d->loc, "'%s' takes one integer", d->u.dir.name->str);
			break;
		}
		if (f->entry && d->u.dir.name->code == PTX_DIR_NORETURN)
			verr(v, d->loc, "'.noreturn' applies to .func, not to kernels");
	}
	if (!f->has_body)
		return;
	if (scope_push(v) < 0)
		return;
	declare_params(v, f->rets);
	declare_params(v, f->params);
	check_block(v, &f->body);
	scope_pop(v);
}

unsigned ptx_module_verify(const struct ptx_module *m, struct coloc_diag *diag)
{
	struct verifier v;
	const struct ptx_stmt *s;
	int seen_version = 0, seen_target = 0;
	struct ptx_loc none = {0, 0};

	memset(&v, 0, sizeof(v));
	v.m = m;
	v.diag = diag;
	coloc_arena_init(&v.arena);
	v.pred_type = ptx_lookup(m, ".pred", 5);
	v.sink = ptx_lookup(m, "_", 1);
	v.warp_sz = ptx_lookup(m, "WARP_SZ", 7);

	for (s = m->items.head; s && !v.oom; s = s->next) {
		if (s->kind == PTX_STMT_VERSION) {
			if (s != m->items.head)
				verr(&v, s->loc, "'.version' must be the first statement of a module");
			seen_version = 1;
		} else if (!seen_version && s == m->items.head) {
			verr(&v, s->loc, "a module must start with '.version'");
			seen_version = 1;
		}
		switch (s->kind) {
		case PTX_STMT_TARGET:
			seen_target = 1;
			break;
		case PTX_STMT_DECL:
			if (s->u.decl->space->code == PTX_DIR_REG)
				verr(&v, s->loc, "'.reg' variables may only be declared inside functions");
			declare(&v, s->u.decl);
			break;
		case PTX_STMT_FUNC:
			check_func(&v, s);
			break;
		case PTX_STMT_SECTION: {
			const struct ptx_stmt *t;

			for (t = s->u.section.body.head; t; t = t->next)
				if (t->kind == PTX_STMT_LABEL)
					bind(&v, t->u.label, BIND_LABEL, t->loc);
			break;
		}
		default:
			break;
		}
	}
	if (!m->items.head)
		verr(&v, none, "empty module; expected '.version', '.target' and '.address_size'");
	else if (!seen_target)
		verr(&v, none, "module has no '.target' directive");
	if (v.oom)
		verr(&v, none, "out of memory while verifying");
	free(v.slots);
	coloc_arena_release(&v.arena);
	return v.errors;
}
