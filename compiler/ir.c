/*
 * IR construction: the keyword tables, the interner, statement lists and
 * deep copies.
 */
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

const struct ptx_op_info ptx_op_table[PTX_OP_COUNT] = {
	[PTX_OP_UNKNOWN] = {"", 0},
#define PTX_OP(id, s, f) [PTX_OP_##id] = {s, f},
#include "ptx_ops.def"
};

const struct ptx_dir_info ptx_dir_table[PTX_DIR_COUNT] = {
	[PTX_DIR_NONE] = {"", PTX_DC_NONE},
#define PTX_DIR(id, s, c) [PTX_DIR_##id] = {s, c},
#include "ptx_ops.def"
};

const struct ptx_sreg_info ptx_sreg_table[PTX_SREG_COUNT] = {
	[PTX_SREG_NONE] = {"", 0},
#define PTX_SREG(id, s, f) [PTX_SREG_##id] = {s, f},
#include "ptx_ops.def"
};

const struct ptx_binop_info ptx_binop_table[PTX_BINOP_COUNT] = {
#define PTX_BINOP(id, s, p) [PTX_BINOP_##id] = {s, p},
#include "ptx_ops.def"
};

/* ------------------------------------------------------------- interner */

static uint64_t load_tail(const char *s, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, s, n);
	return v;
}

/*
 * Names are short and there is one per token: hash eight bytes at a time
 * (a multiply-xorshift mix), which is several times faster than a byte loop.
 */
static uint32_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;

	while (len >= 8) {
		h = (h ^ load_tail(s, 8)) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		h = (h ^ load_tail(s, len)) * 0x94D049BB133111EBull;
		h ^= h >> 31;
	}
	h *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * Open addressing with the hash kept in the slot: a probe that misses never
 * touches the name itself, which lives elsewhere in the arena.
 */
static int interner_grow(struct ptx_interner *t)
{
	uint32_t n = t->slots ? (t->mask + 1) * 2 : 1024, i;
	struct ptx_name_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; t->slots && i <= t->mask; i++) {
		uint32_t j;

		if (!t->slots[i].id)
			continue;
		for (j = t->slots[i].hash & (n - 1); slots[j].id; j = (j + 1) & (n - 1))
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

static struct ptx_name_slot *interner_probe(const struct ptx_interner *t, uint32_t h,
					    const char *s, size_t len)
{
	uint32_t i;

	for (i = h & t->mask;; i = (i + 1) & t->mask) {
		struct ptx_name_slot *slot = &t->slots[i];

		if (!slot->id)
			return slot;
		if (slot->hash == h && slot->id->len == len && memcmp(slot->id->str, s, len) == 0)
			return slot;
	}
}

const struct ptx_ident *ptx_lookup(const struct ptx_module *m, const char *s, size_t len)
{
	if (!m->names.slots)
		return NULL;
	return interner_probe(&m->names, name_hash(s, len), s, len)->id;
}

const struct ptx_ident *ptx_intern(struct ptx_module *m, const char *s, size_t len)
{
	struct ptx_interner *t = &m->names;
	uint32_t h = name_hash(s, len);
	struct ptx_name_slot *slot;
	struct ptx_ident *id;

	if (len > UINT32_MAX) {
		m->oom = 1;
		return NULL;
	}
	/*
	 * A small direct-mapped cache in front of the table: tokens repeat
	 * within a function, and the big table is mostly cache misses.
	 */
	id = t->recent[h & (PTX_RECENT_NAMES - 1)];
	if (id && id->hash == h && id->len == len && memcmp(id->str, s, len) == 0)
		return id;
	if (t->slots) {
		slot = interner_probe(t, h, s, len);
		if (slot->id) {
			t->recent[h & (PTX_RECENT_NAMES - 1)] = slot->id;
			return slot->id;
		}
	}
	if ((!t->slots || t->count * 2 >= t->mask) && interner_grow(t) < 0) {
		m->oom = 1;
		return NULL;
	}
	id = coloc_arena_alloc(&m->arena, sizeof(*id) + len + 1);
	if (!id) {
		m->oom = 1;
		return NULL;
	}
	id->hash = h;
	id->len = (uint32_t)len;
	memcpy(id->str, s, len);
	id->str[len] = '\0';
	slot = interner_probe(t, h, s, len);
	slot->hash = h;
	slot->id = id;
	t->count++;
	t->recent[h & (PTX_RECENT_NAMES - 1)] = id;
	return id;
}

const struct ptx_ident *ptx_intern_cstr(struct ptx_module *m, const char *s)
{
	return ptx_intern(m, s, strlen(s));
}

static void seed(struct ptx_module *m, const char *s, enum ptx_ident_kind kind, unsigned code)
{
	struct ptx_ident *id = (struct ptx_ident *)ptx_intern_cstr(m, s);

	if (id) {
		id->kind = (uint16_t)kind;
		id->code = (uint16_t)code;
	}
}

/* ---------------------------------------------------------------- module */

struct ptx_module *ptx_module_new(const char *filename)
{
	struct ptx_module *m = calloc(1, sizeof(*m));
	unsigned i;

	if (!m)
		return NULL;
	coloc_arena_init(&m->arena);
	for (i = 1; i < PTX_OP_COUNT; i++)
		seed(m, ptx_op_table[i].name, PTX_IDENT_OP, i);
	for (i = 1; i < PTX_DIR_COUNT; i++)
		seed(m, ptx_dir_table[i].name, PTX_IDENT_DIR, i);
	for (i = 1; i < PTX_SREG_COUNT; i++)
		seed(m, ptx_sreg_table[i].name, PTX_IDENT_SREG, i);
	if (filename)
		m->filename = coloc_arena_strndup(&m->arena, filename, strlen(filename));
	if (m->oom || (filename && !m->filename)) {
		ptx_module_free(m);
		return NULL;
	}
	return m;
}

void ptx_module_free(struct ptx_module *m)
{
	if (!m)
		return;
	free(m->names.slots);
	coloc_arena_release(&m->arena);
	free(m);
}

void *ptx_alloc(struct ptx_module *m, size_t size)
{
	void *p = coloc_arena_alloc(&m->arena, size);

	if (!p)
		m->oom = 1;
	return p;
}

struct ptx_stmt *ptx_stmt_new(struct ptx_module *m, enum ptx_stmt_kind kind, struct ptx_loc loc)
{
	struct ptx_stmt *s = ptx_alloc(m, sizeof(*s));

	if (s) {
		s->kind = (uint8_t)kind;
		s->loc = loc;
	}
	return s;
}

struct ptx_expr *ptx_expr_new(struct ptx_module *m, enum ptx_expr_kind kind, struct ptx_loc loc)
{
	struct ptx_expr *e = ptx_alloc(m, sizeof(*e));

	if (e) {
		e->kind = (uint8_t)kind;
		e->loc = loc;
	}
	return e;
}

/* ---------------------------------------------------------- statement lists */

void ptx_block_append(struct ptx_block *b, struct ptx_stmt *s)
{
	s->next = NULL;
	s->prev = b->tail;
	if (b->tail)
		b->tail->next = s;
	else
		b->head = s;
	b->tail = s;
}

void ptx_block_insert_before(struct ptx_block *b, struct ptx_stmt *pos, struct ptx_stmt *s)
{
	if (!pos) {
		ptx_block_append(b, s);
		return;
	}
	s->next = pos;
	s->prev = pos->prev;
	if (pos->prev)
		pos->prev->next = s;
	else
		b->head = s;
	pos->prev = s;
}

void ptx_block_insert_after(struct ptx_block *b, struct ptx_stmt *pos, struct ptx_stmt *s)
{
	if (!pos) {
		s->prev = NULL;
		s->next = b->head;
		if (b->head)
			b->head->prev = s;
		else
			b->tail = s;
		b->head = s;
		return;
	}
	s->prev = pos;
	s->next = pos->next;
	if (pos->next)
		pos->next->prev = s;
	else
		b->tail = s;
	pos->next = s;
}

void ptx_block_remove(struct ptx_block *b, struct ptx_stmt *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		b->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		b->tail = s->prev;
	s->prev = s->next = NULL;
}

void ptx_block_splice(struct ptx_block *dst, struct ptx_block *src)
{
	if (!src->head)
		return;
	if (dst->tail) {
		dst->tail->next = src->head;
		src->head->prev = dst->tail;
	} else {
		dst->head = src->head;
	}
	dst->tail = src->tail;
	src->head = src->tail = NULL;
}

/* --------------------------------------------------------------- queries */

bool ptx_insn_has_mod(const struct ptx_insn *insn, const char *mod)
{
	uint32_t i;

	for (i = 0; i < insn->nmods; i++)
		if (strcmp(insn->mods[i]->str, mod) == 0)
			return true;
	return false;
}

int ptx_module_version(const struct ptx_module *m, unsigned *major, unsigned *minor)
{
	const struct ptx_stmt *s;

	for (s = m->items.head; s; s = s->next) {
		const struct ptx_expr *v;
		const char *p;
		char *end;
		unsigned long a, b;

		if (s->kind != PTX_STMT_VERSION)
			continue;
		v = s->u.dir.args;
		if (!v || !v->u.num.text)
			return -1;
		p = v->u.num.text->str;
		a = strtoul(p, &end, 10);
		if (*end != '.')
			return -1;
		b = strtoul(end + 1, &end, 10);
		if (*end != '\0')
			return -1;
		*major = (unsigned)a;
		*minor = (unsigned)b;
		return 0;
	}
	return -1;
}

int ptx_module_set_version(struct ptx_module *m, unsigned major, unsigned minor)
{
	char text[32];

	snprintf(text, sizeof(text), "%u.%u", major, minor);
	for (struct ptx_stmt *s = m->items.head; s; s = s->next) {
		if (s->kind != PTX_STMT_VERSION || !s->u.dir.args)
			continue;
		s->u.dir.args->u.num.text = ptx_intern_cstr(m, text);
		return s->u.dir.args->u.num.text ? 0 : -1;
	}
	return -1;
}

const char *ptx_module_target(const struct ptx_module *m)
{
	const struct ptx_stmt *s;

	for (s = m->items.head; s; s = s->next)
		if (s->kind == PTX_STMT_TARGET && s->u.dir.args &&
		    s->u.dir.args->kind == PTX_EXPR_NAME)
			return s->u.dir.args->u.name.id->str;
	return NULL;
}

/* ------------------------------------------------------------ deep copies */

static struct ptx_expr *expr_list_clone(struct ptx_module *m, const struct ptx_expr *head)
{
	struct ptx_expr *first = NULL, **tail = &first;

	for (; head; head = head->next) {
		*tail = ptx_expr_clone(m, head);
		if (!*tail)
			return NULL;
		tail = &(*tail)->next;
	}
	return first;
}

struct ptx_expr *ptx_expr_clone(struct ptx_module *m, const struct ptx_expr *e)
{
	struct ptx_expr *c;

	if (!e)
		return NULL;
	c = ptx_alloc(m, sizeof(*c));
	if (!c)
		return NULL;
	*c = *e;
	c->next = NULL;
	switch (e->kind) {
	case PTX_EXPR_UNARY:
	case PTX_EXPR_BINARY:
	case PTX_EXPR_COND:
	case PTX_EXPR_CAST:
	case PTX_EXPR_INDEX:
		c->u.sub.a = ptx_expr_clone(m, e->u.sub.a);
		c->u.sub.b = ptx_expr_clone(m, e->u.sub.b);
		c->u.sub.c = ptx_expr_clone(m, e->u.sub.c);
		break;
	case PTX_EXPR_PAREN:
	case PTX_EXPR_VECTOR:
	case PTX_EXPR_ADDR:
	case PTX_EXPR_CALL:
		c->u.list.head = expr_list_clone(m, e->u.list.head);
		break;
	default:
		break;
	}
	return m->oom ? NULL : c;
}

static struct ptx_decl *decl_clone(struct ptx_module *m, const struct ptx_decl *d)
{
	struct ptx_decl *c = ptx_alloc(m, sizeof(*c));
	const struct ptx_declarator *n;
	struct ptx_declarator **tail;

	if (!c)
		return NULL;
	*c = *d;
	c->next = NULL;
	c->attrs = expr_list_clone(m, d->attrs);
	c->names = NULL;
	tail = &c->names;
	for (n = d->names; n; n = n->next) {
		struct ptx_declarator *nc = ptx_alloc(m, sizeof(*nc));
		const struct ptx_dim *dim;
		struct ptx_dim **dtail;

		if (!nc)
			return NULL;
		*nc = *n;
		nc->next = NULL;
		nc->init = ptx_expr_clone(m, n->init);
		nc->dims = NULL;
		dtail = &nc->dims;
		for (dim = n->dims; dim; dim = dim->next) {
			struct ptx_dim *dc = ptx_alloc(m, sizeof(*dc));

			if (!dc)
				return NULL;
			dc->size = ptx_expr_clone(m, dim->size);
			*dtail = dc;
			dtail = &dc->next;
		}
		*tail = nc;
		tail = &nc->next;
	}
	return m->oom ? NULL : c;
}

static struct ptx_decl *decl_list_clone(struct ptx_module *m, const struct ptx_decl *d)
{
	struct ptx_decl *first = NULL, **tail = &first;

	for (; d; d = d->next) {
		*tail = decl_clone(m, d);
		if (!*tail)
			return NULL;
		tail = &(*tail)->next;
	}
	return first;
}

static int block_clone(struct ptx_module *m, struct ptx_block *dst, const struct ptx_block *src);

static struct ptx_stmt *stmt_clone(struct ptx_module *m, const struct ptx_stmt *s)
{
	struct ptx_stmt *c = ptx_alloc(m, sizeof(*c));

	if (!c)
		return NULL;
	*c = *s;
	c->prev = c->next = NULL;
	switch (s->kind) {
	case PTX_STMT_INSN:
		if (s->u.insn.nmods) {
			size_t sz = s->u.insn.nmods * sizeof(*s->u.insn.mods);
			const struct ptx_ident **mods = ptx_alloc(m, sz);

			if (!mods)
				return NULL;
			memcpy(mods, s->u.insn.mods, sz);
			c->u.insn.mods = mods;
		}
		c->u.insn.operands = expr_list_clone(m, s->u.insn.operands);
		break;
	case PTX_STMT_DECL:
		c->u.decl = decl_clone(m, s->u.decl);
		break;
	case PTX_STMT_BLOCK:
		memset(&c->u.block, 0, sizeof(c->u.block));
		block_clone(m, &c->u.block, &s->u.block);
		break;
	case PTX_STMT_SECTION:
		memset(&c->u.section.body, 0, sizeof(c->u.section.body));
		block_clone(m, &c->u.section.body, &s->u.section.body);
		break;
	case PTX_STMT_CALLPROTO: {
		struct ptx_proto *p = ptx_alloc(m, sizeof(*p));

		if (!p)
			return NULL;
		*p = *s->u.proto;
		p->rets = decl_list_clone(m, s->u.proto->rets);
		p->params = decl_list_clone(m, s->u.proto->params);
		memset(&p->dirs, 0, sizeof(p->dirs));
		block_clone(m, &p->dirs, &s->u.proto->dirs);
		c->u.proto = p;
		break;
	}
	case PTX_STMT_FUNC:
		c->u.func = ptx_func_clone(m, s->u.func, s->u.func->name);
		break;
	case PTX_STMT_LABEL:
		break;
	default:
		c->u.dir.args = expr_list_clone(m, s->u.dir.args);
		break;
	}
	return m->oom ? NULL : c;
}

static int block_clone(struct ptx_module *m, struct ptx_block *dst, const struct ptx_block *src)
{
	const struct ptx_stmt *s;

	for (s = src->head; s; s = s->next) {
		struct ptx_stmt *c = stmt_clone(m, s);

		if (!c)
			return -1;
		ptx_block_append(dst, c);
	}
	return 0;
}

struct ptx_func *ptx_func_clone(struct ptx_module *m, const struct ptx_func *f,
				const struct ptx_ident *name)
{
	struct ptx_func *c = ptx_alloc(m, sizeof(*c));

	if (!c)
		return NULL;
	*c = *f;
	c->name = name;
	c->attrs = expr_list_clone(m, f->attrs);
	c->rets = decl_list_clone(m, f->rets);
	c->params = decl_list_clone(m, f->params);
	memset(&c->dirs, 0, sizeof(c->dirs));
	memset(&c->body, 0, sizeof(c->body));
	if (block_clone(m, &c->dirs, &f->dirs) < 0 || block_clone(m, &c->body, &f->body) < 0)
		return NULL;
	return m->oom ? NULL : c;
}
