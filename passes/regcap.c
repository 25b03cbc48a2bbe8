/*
 * Register caps that keep a variant's occupancy (regcap.h says why).
 */
#include "regcap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

#define REG_UNIT 8         /* registers are allocated per thread in eights */
#define REG_FULL 32        /* at or below this, registers never limit occupancy */
#define REG_MAX 255
#define REGS_PER_SM 65536u /* every SM from sm_50 on */
#define WARPS_PER_SM 64u   /* the most of any; fewer only lowers REG_FULL's occupancy */

unsigned pass_regcap_limit(unsigned original)
{
	unsigned r = (original + REG_UNIT - 1) / REG_UNIT * REG_UNIT;

	if (r < REG_FULL)
		r = REG_FULL;
	return r > REG_MAX ? REG_MAX : r;
}

/*
 * Whether a thread's register count `r` is the most it can take at some
 * occupancy of a block of 128, 256, 512 or 1,024 threads: past it, that
 * block size loses a block an SM.
 */
static bool is_level(unsigned r)
{
	for (unsigned warps = 4; warps <= 32; warps *= 2)
		for (unsigned blocks = 1; blocks * warps <= WARPS_PER_SM; blocks++)
			if (REGS_PER_SM / (blocks * warps * 32) / REG_UNIT * REG_UNIT == r)
				return true;
	return false;
}

unsigned pass_regcap_levels(unsigned original, unsigned used, unsigned *levels)
{
	unsigned limit = pass_regcap_limit(original), n = 0;
	unsigned top = (used + REG_UNIT - 1) / REG_UNIT * REG_UNIT; /* what `used` is given */

	if (used <= limit)
		return 0;
	for (unsigned r = top - REG_UNIT; r > limit && n < PASS_REGCAP_LEVELS - 1; r -= REG_UNIT)
		if (r <= REG_MAX && is_level(r))
			levels[n++] = r;
	levels[n++] = limit;
	return n;
}

int pass_regcap_name(char *buf, size_t size, unsigned cap, const char *variant)
{
	size_t n = strlen(COLOC_PREFIX);
	int len;

	if (strncmp(variant, COLOC_PREFIX, n) != 0)
		return -EINVAL;
	len = snprintf(buf, size, "%s%u_%s", PASS_REGCAP_PREFIX, cap, variant + n);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

const char *pass_regcap_parse(const char *name, unsigned *cap)
{
	size_t n = strlen(PASS_REGCAP_PREFIX);
	char *end;
	unsigned long v;

	if (strncmp(name, PASS_REGCAP_PREFIX, n) != 0 || name[n] < '1' || name[n] > '9')
		return NULL;
	errno = 0;
	v = strtoul(name + n, &end, 10);
	if (errno || v > REG_MAX || *end != '_' || !end[1])
		return NULL;
	*cap = (unsigned)v;
	return end + 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct coloc_cubin_kernel *const *)a)->name,
		      (*(const struct coloc_cubin_kernel *const *)b)->name);
}

static int variant_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pass_regcap *)a)->variant,
		      ((const struct pass_regcap *)b)->variant);
}

/* By variant, then its highest cap first. */
static int cap_cmp(const void *a, const void *b)
{
	const struct pass_regcap *x = a, *y = b;
	int c = strcmp(x->variant, y->variant);

	return c ? c : (x->cap < y->cap) - (x->cap > y->cap);
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
	*caps = coloc_arena_alloc(arena, cb->nkernels * PASS_REGCAP_LEVELS * sizeof(**caps));
	if (!sorted || !*caps)
		return -ENOMEM;
	for (size_t i = 0; i < cb->nkernels; i++)
		sorted[i] = &cb->kernels[i];
	qsort(sorted, cb->nkernels, sizeof(*sorted), by_name);
	for (size_t i = 0; i < cb->nkernels; i++) {
		const struct coloc_cubin_kernel *v = &cb->kernels[i], *const *o;
		struct coloc_cubin_kernel key = { .name = original_of(v->name) };
		const struct coloc_cubin_kernel *kp = &key;
		unsigned levels[PASS_REGCAP_LEVELS], nlevels;

		if (!key.name || !v->registers)
			continue;
		o = bsearch(&kp, sorted, cb->nkernels, sizeof(*sorted), by_name);
		if (!o || !(*o)->registers)
			continue;
		nlevels = pass_regcap_levels((*o)->registers, v->registers, levels);
		for (unsigned l = 0; l < nlevels; l++)
			(*caps)[n++] = (struct pass_regcap){ .variant = v->name, .used = v->registers,
							     .original = (*o)->registers,
							     .cap = levels[l] };
	}
	qsort(*caps, n, sizeof(**caps), cap_cmp);
	return (int)n;
}

/*
 * A copy of the entry in `s` with .maxnreg at `cap` (lowering one it has),
 * after `*after`, which becomes the copy; returns 1, 0 when the entry is
 * left alone, or -ENOMEM.
 */
static int cap_entry(struct ptx_module *m, struct ptx_stmt *s, struct ptx_stmt **after,
		     unsigned cap)
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
	if (pass_regcap_name(buf, sizeof(buf), cap, f->name->str) < 0)
		return 0;
	/*
	 * PTX that has its copies already (the runtime keeps a module's capped
	 * PTX, and compiles it again for a context the cache does not serve).
	 */
	for (d = m->items.head; d; d = d->next)
		if (d->kind == PTX_STMT_FUNC && strcmp(d->u.func->name->str, buf) == 0)
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
	ptx_block_insert_after(&m->items, *after, copy);
	*after = copy;
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
	for (s = m->items.head; s && changed >= 0; s = s->next) {
		struct pass_regcap key, *c;
		struct ptx_stmt *after = s;

		if (s->kind != PTX_STMT_FUNC || !s->u.func->entry || !s->u.func->has_body)
			continue;
		key.variant = s->u.func->name->str;
		c = bsearch(&key, caps, ncaps, sizeof(*caps), variant_cmp);
		if (!c)
			continue;
		while (c > caps && variant_cmp(c - 1, &key) == 0)
			c--;
		/* Highest cap first, each copy after the one before. */
		for (; c < caps + ncaps && variant_cmp(c, &key) == 0; c++) {
			rc = cap_entry(m, s, &after, c->cap);
			if (rc < 0) {
				changed = rc;
				break;
			}
			changed += rc;
			c->made = rc > 0;
		}
		s = after; /* past the copies */
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
