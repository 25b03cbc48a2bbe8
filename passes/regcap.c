/*
 * Register caps that keep a variant's occupancy (regcap.h says why).
 */
#include "regcap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

#define REG_UNIT 8     /* registers are allocated per thread in eights */
#define REG_FULL 32    /* at or below this, registers never limit occupancy */
#define REG_MAX 255

unsigned pass_regcap_limit(unsigned original)
{
	unsigned r = (original + REG_UNIT - 1) / REG_UNIT * REG_UNIT;

	if (r < REG_FULL)
		r = REG_FULL;
	return r > REG_MAX ? REG_MAX : r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct coloc_cubin_kernel *const *)a)->name,
		      (*(const struct coloc_cubin_kernel *const *)b)->name);
}

static int cap_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pass_regcap *)a)->variant,
		      ((const struct pass_regcap *)b)->variant);
}

/*
 * The original a persistent variant's name stands for: the part after
 * __coloc_ptb_, or after __coloc_fresh_ (ptb.c's one-block-a-worker variant).
 */
static const char *original_of(const char *variant)
{
	static const char *const forms[] = { "ptb", "fresh" };

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char prefix[64];
		size_t n = (size_t)snprintf(prefix, sizeof(prefix), "%s%s_", COLOC_PREFIX, forms[i]);

		if (strncmp(variant, prefix, n) == 0 && variant[n])
			return variant + n;
	}
	return NULL;
}

int pass_regcap_plan(const struct coloc_cubin *cb, struct coloc_arena *arena,
		     struct pass_regcap **caps)
{
	const struct coloc_cubin_kernel **sorted;
	size_t n = 0;

	*caps = NULL;
	if (!cb->nkernels)
		return 0;
	sorted = coloc_arena_alloc(arena, cb->nkernels * sizeof(*sorted));
	*caps = coloc_arena_alloc(arena, cb->nkernels * sizeof(**caps));
	if (!sorted || !*caps)
		return -ENOMEM;
	for (size_t i = 0; i < cb->nkernels; i++)
		sorted[i] = &cb->kernels[i];
	qsort(sorted, cb->nkernels, sizeof(*sorted), by_name);
	for (size_t i = 0; i < cb->nkernels; i++) {
		const struct coloc_cubin_kernel *v = &cb->kernels[i], *const *o;
		struct coloc_cubin_kernel key = { .name = original_of(v->name) };
		const struct coloc_cubin_kernel *kp = &key;
		unsigned limit;

		if (!key.name || !v->registers)
			continue;
		o = bsearch(&kp, sorted, cb->nkernels, sizeof(*sorted), by_name);
		if (!o || !(*o)->registers)
			continue;
		limit = pass_regcap_limit((*o)->registers);
		if (v->registers <= limit)
			continue;
		(*caps)[n++] = (struct pass_regcap){ .variant = v->name, .used = v->registers,
						     .original = (*o)->registers, .cap = limit };
	}
	qsort(*caps, n, sizeof(**caps), cap_cmp);
	return (int)n;
}

/*
 * A copy of the entry in `s` with .maxnreg at `cap` (lowering one it has),
 * after it; returns 1, 0 when the entry is left alone, or -ENOMEM.
 */
static int cap_entry(struct ptx_module *m, struct ptx_stmt *s, unsigned cap)
{
	const struct ptx_func *f = s->u.func;
	struct ptx_stmt *d, *copy;
	struct ptx_func *c;
	struct ptx_expr *e = NULL;
	const struct ptx_ident *name;
	char buf[4096];

	for (d = f->dirs.head; d; d = d->next)
		if (d->kind == PTX_STMT_PERF && d->u.dir.name->kind == PTX_IDENT_DIR &&
		    d->u.dir.name->code == PTX_DIR_MINNCTAPERSM)
			return 0;
	if (snprintf(buf, sizeof(buf), "%s%s", PASS_REGCAP_PREFIX,
		     f->name->str + strlen(COLOC_PREFIX)) >= (int)sizeof(buf))
		return 0;
	name = ptx_intern_cstr(m, buf);
	c = name ? ptx_func_clone(m, f, name) : NULL;
	copy = c ? ptx_stmt_new(m, PTX_STMT_FUNC, s->loc) : NULL;
	if (!copy)
		return -ENOMEM;
	copy->u.func = c;
	for (d = c->dirs.head; d; d = d->next)
		if (d->kind == PTX_STMT_PERF && d->u.dir.name->kind == PTX_IDENT_DIR &&
		    d->u.dir.name->code == PTX_DIR_MAXNREG)
			e = d->u.dir.args;
	if (e) {
		if (e->kind != PTX_EXPR_INT || e->u.num.value <= cap)
			return 0;
	} else {
		d = ptx_stmt_new(m, PTX_STMT_PERF, PTX_NOLOC);
		e = ptx_expr_new(m, PTX_EXPR_INT, PTX_NOLOC);
		if (!d || !e || !(d->u.dir.name = ptx_intern_cstr(m, ".maxnreg")))
			return -ENOMEM;
		d->u.dir.args = e;
		d->u.dir.nargs = 1;
		ptx_block_append(&c->dirs, d);
	}
	e->u.num.value = cap;
	e->u.num.text = NULL;
	ptx_block_insert_after(&m->items, s, copy);
	return 1;
}

int pass_regcap_ptx(const char *ptx, size_t len, const char *origin,
		    struct pass_regcap *caps, size_t ncaps, struct coloc_buf *out,
		    struct coloc_diag *diag)
{
	struct ptx_module *m = ptx_parse(ptx, len, origin, diag);
	struct ptx_stmt *s;
	int changed = 0, rc;

	if (!m)
		return -EINVAL;
	for (s = m->items.head; s; s = s->next) {
		struct pass_regcap key, *c;

		if (s->kind != PTX_STMT_FUNC || !s->u.func->entry || !s->u.func->has_body)
			continue;
		key.variant = s->u.func->name->str;
		c = bsearch(&key, caps, ncaps, sizeof(*caps), cap_cmp);
		if (!c)
			continue;
		rc = cap_entry(m, s, c->cap);
		if (rc < 0) {
			changed = rc;
			break;
		}
		changed += rc;
		c->made = rc > 0;
		if (rc)
			s = s->next; /* past the copy */
	}
	coloc_buf_init(out);
	if (changed < 0 || ptx_module_print(m, out) < 0 || !coloc_buf_cstr(out)) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		coloc_buf_release(out);
		changed = -ENOMEM;
	}
	ptx_module_free(m);
	return changed;
}
