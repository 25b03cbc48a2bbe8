/*
 * The kernel table and the small IR utilities every transformation uses:
 * cloning a kernel under a reserved name, adding parameters, splicing in
 * statements parsed from PTX text, and rewriting block indices.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

const char *const pass_form_names[PASS_FORM_COUNT] = {
	[PASS_FORM_SLICE] = "slice",
	[PASS_FORM_UNISYNC] = "unisync",
	[PASS_FORM_PTB] = "ptb",
};

const char *const pass_param_role_names[] = {
	[PASS_PARAM_GRID_X] = "grid_x",
	[PASS_PARAM_GRID_Y] = "grid_y",
	[PASS_PARAM_GRID_Z] = "grid_z",
	[PASS_PARAM_OFFSET_X] = "offset_x",
	[PASS_PARAM_OFFSET_Y] = "offset_y",
	[PASS_PARAM_OFFSET_Z] = "offset_z",
	[PASS_PARAM_CONTROL] = "control",
	[PASS_PARAM_PARK] = "park",
	[PASS_PARAM_STOP] = "stop",
	[PASS_PARAM_SLOT_BASE] = "slot_base",
	[PASS_PARAM_BATCH] = "batch",
	[PASS_PARAM_REDO] = "redo",
	[PASS_PARAM_SAVE] = "save",
};

void pass_ctx_init(struct pass_ctx *ctx, struct coloc_diag *diag)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->diag = diag;
}

bool pass_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * elem);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

void pass_expr_names(const struct ptx_expr *e, void (*fn)(const struct ptx_expr *name, void *arg),
		     void *arg)
{
	if (!e)
		return;
	switch (e->kind) {
	case PTX_EXPR_NAME:
		fn(e, arg);
		break;
	case PTX_EXPR_UNARY:
	case PTX_EXPR_CAST:
		pass_expr_names(e->u.sub.a, fn, arg);
		break;
	case PTX_EXPR_BINARY:
	case PTX_EXPR_INDEX:
		pass_expr_names(e->u.sub.a, fn, arg);
		pass_expr_names(e->u.sub.b, fn, arg);
		break;
	case PTX_EXPR_COND:
		pass_expr_names(e->u.sub.a, fn, arg);
		pass_expr_names(e->u.sub.b, fn, arg);
		pass_expr_names(e->u.sub.c, fn, arg);
		break;
	case PTX_EXPR_PAREN:
	case PTX_EXPR_VECTOR:
	case PTX_EXPR_ADDR:
	case PTX_EXPR_CALL:
		for (const struct ptx_expr *c = e->u.list.head; c; c = c->next)
			pass_expr_names(c, fn, arg);
		break;
	default:
		break;
	}
}

const char *pass_cache_options(bool ptb_restart, bool ptb_read_copy, bool ptb_resume)
{
	if (!ptb_restart)
		return NULL;
	if (ptb_resume)
		return ptb_read_copy ? "ptb-restart,stop-read-copy,resume" : "ptb-restart,resume";
	return ptb_read_copy ? "ptb-restart,stop-read-copy" : "ptb-restart";
}

void pass_ctx_release(struct pass_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->kernels);
	ctx->kernels = NULL;
	ctx->nkernels = 0;
}

int pass_kernels_collect(struct ptx_module *m, struct pass_ctx *ctx)
{
	struct ptx_stmt *s;
	size_t n = 0, i = 0;

	if (ctx->module == m && ctx->kernels)
		return 0;
	for (s = m->items.head; s; s = s->next)
		if (s->kind == PTX_STMT_FUNC && s->u.func->entry && s->u.func->has_body)
			n++;
	ctx->module = m;
	ctx->kernels = calloc(n ? n : 1, sizeof(*ctx->kernels));
	if (!ctx->kernels) {
		coloc_error(ctx->diag, PTX_NOLOC, "out of memory");
		return -1;
	}
	for (s = m->items.head; s; s = s->next) {
		if (s->kind != PTX_STMT_FUNC || !s->u.func->entry || !s->u.func->has_body)
			continue;
		ctx->kernels[i].stmt = s;
		ctx->kernels[i].func = s->u.func;
		i++;
	}
	ctx->nkernels = n;
	return 0;
}

void pass_refuse(struct pass_ctx *ctx, struct pass_kernel *k, enum pass_form form,
		 struct ptx_loc loc, const char *fmt, ...)
{
	struct coloc_buf b;
	va_list ap;

	if (k->refused[form])
		return; /* the first reason is the one reported */
	coloc_buf_init(&b);
	va_start(ap, fmt);
	coloc_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	k->refused_loc[form] = loc;
	k->refused[form] = coloc_buf_cstr(&b) ? coloc_arena_strndup(&ctx->module->arena, b.data, b.len)
					      : NULL;
	if (!k->refused[form])
		k->refused[form] = "out of memory";
	coloc_buf_release(&b);
}

int pass_need_barrier_isa(struct ptx_module *m)
{
	unsigned major = 0, minor = 0;

	if (ptx_module_version(m, &major, &minor) == 0 && major < 6)
		return ptx_module_set_version(m, 6, 0);
	return 0;
}

bool pass_refused(struct pass_ctx *ctx, struct pass_kernel *k, enum pass_form form)
{
	if (!k->refused[form])
		return false;
	if (!k->reported[form]) {
		k->reported[form] = true;
		coloc_warning(ctx->diag, k->refused_loc[form], "kernel '%s': %s not applied: %s",
			      k->func->name->str, pass_form_names[form], k->refused[form]);
		ctx->refusals++;
	}
	return true;
}

struct ptx_stmt *pass_clone_kernel(struct pass_ctx *ctx, struct pass_kernel *k,
				   const struct ptx_func *from, const char *form)
{
	struct ptx_module *m = ctx->module;
	struct coloc_buf name;
	const struct ptx_ident *id;
	struct ptx_stmt *s;

	coloc_buf_init(&name);
	coloc_buf_printf(&name, COLOC_PREFIX "%s_%s", form, k->func->name->str);
	id = coloc_buf_cstr(&name) ? ptx_intern(m, name.data, name.len) : NULL;
	coloc_buf_release(&name);
	s = ptx_stmt_new(m, PTX_STMT_FUNC, k->stmt->loc);
	if (!id || !s)
		goto oom;
	s->u.func = ptx_func_clone(m, from, id);
	if (!s->u.func)
		goto oom;
	/* Variants are ordinary visible kernels, whatever the original's linkage. */
	s->u.func->linkage = PTX_LINK_VISIBLE;
	/* Variants follow their kernel, in the order they were made. */
	ptx_block_insert_after(&m->items, k->anchor ? k->anchor : k->stmt, s);
	k->anchor = s;
	return s;
oom:
	coloc_error(ctx->diag, PTX_NOLOC, "out of memory");
	return NULL;
}

const char *pass_add_param(struct ptx_module *m, struct ptx_func *f, const char *name,
			   unsigned bits)
{
	struct ptx_decl *d = ptx_alloc(m, sizeof(*d)), **tail;
	struct ptx_declarator *n = ptx_alloc(m, sizeof(*n));

	if (!d || !n)
		return NULL;
	d->space = ptx_intern_cstr(m, ".param");
	d->type = ptx_intern_cstr(m, bits == 64 ? ".u64" : ".u32");
	n->name = ptx_intern_cstr(m, name);
	n->range = -1;
	if (!d->space || !d->type || !n->name)
		return NULL;
	d->names = n;
	for (tail = &f->params; *tail; tail = &(*tail)->next)
		;
	*tail = d;
	return n->name->str;
}

int pass_insert_snippet(struct pass_ctx *ctx, struct ptx_block *b, struct ptx_stmt *pos,
			const char *fmt, ...)
{
	struct coloc_buf text;
	struct ptx_block got;
	va_list ap;
	int rc;

	coloc_buf_init(&text);
	va_start(ap, fmt);
	coloc_buf_vprintf(&text, fmt, ap);
	va_end(ap);
	if (!coloc_buf_cstr(&text)) {
		coloc_error(ctx->diag, PTX_NOLOC, "out of memory");
		return -1;
	}
	rc = ptx_parse_snippet(ctx->module, text.data, &got, ctx->diag);
	if (rc < 0) {
		coloc_error(ctx->diag, PTX_NOLOC, "internal error: a pass built PTX that does not parse:\n%s",
			    text.data);
	} else {
		while (got.head) {
			struct ptx_stmt *s = got.head;

			ptx_block_remove(&got, s);
			ptx_block_insert_before(b, pos, s);
		}
	}
	coloc_buf_release(&text);
	return rc;
}

static void replace_ids_expr(struct ptx_expr *e, const struct ptx_ident *ctaid[3],
			     const struct ptx_ident *nctaid[3])
{
	struct ptx_expr *c;

	switch (e->kind) {
	case PTX_EXPR_NAME:
		if (e->u.name.id->kind == PTX_IDENT_SREG && e->u.name.comp &&
		    (e->u.name.id->code == PTX_SREG_CTAID || e->u.name.id->code == PTX_SREG_NCTAID)) {
			int d = e->u.name.comp->str[1] - 'x';

			if (d >= 0 && d < 3) {
				const struct ptx_ident *r = e->u.name.id->code == PTX_SREG_CTAID
								    ? ctaid[d] : nctaid[d];
				if (r) {
					e->u.name.id = r;
					e->u.name.comp = NULL;
				}
			}
		}
		break;
	case PTX_EXPR_UNARY:
	case PTX_EXPR_CAST:
	case PTX_EXPR_BINARY:
	case PTX_EXPR_COND:
	case PTX_EXPR_INDEX:
		replace_ids_expr(e->u.sub.a, ctaid, nctaid);
		if (e->kind != PTX_EXPR_UNARY && e->kind != PTX_EXPR_CAST)
			replace_ids_expr(e->u.sub.b, ctaid, nctaid);
		if (e->kind == PTX_EXPR_COND)
			replace_ids_expr(e->u.sub.c, ctaid, nctaid);
		break;
	case PTX_EXPR_PAREN:
	case PTX_EXPR_VECTOR:
	case PTX_EXPR_ADDR:
	case PTX_EXPR_CALL:
		for (c = e->u.list.head; c; c = c->next)
			replace_ids_expr(c, ctaid, nctaid);
		break;
	default:
		break;
	}
}

void pass_replace_block_ids(struct ptx_module *m, struct ptx_block *body,
			    const struct ptx_ident *ctaid[3], const struct ptx_ident *nctaid[3])
{
	struct ptx_stmt *s;
	struct ptx_expr *e;

	for (s = body->head; s; s = s->next) {
		if (s->kind == PTX_STMT_BLOCK) {
			pass_replace_block_ids(m, &s->u.block, ctaid, nctaid);
			continue;
		}
		if (s->kind != PTX_STMT_INSN)
			continue;
		for (e = s->u.insn.operands; e; e = e->next)
			replace_ids_expr(e, ctaid, nctaid);
	}
}
