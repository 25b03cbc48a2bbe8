/* The pass registry and the pipeline that runs a list of passes. */
#include <string.h>

#include "pass.h"

static const struct pass_info registry[] = {
#define PASS(name, fn, summary) {#name, fn, summary},
#include "passes.def"
#undef PASS
};

const struct pass_info *pass_registry(size_t *count)
{
	*count = sizeof(registry) / sizeof(registry[0]);
	return registry;
}

const struct pass_info *pass_lookup(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (strlen(registry[i].name) == len && memcmp(registry[i].name, name, len) == 0)
			return &registry[i];
	return NULL;
}

int pass_pipeline_check(const char *names, struct coloc_diag *diag)
{
	const char *p = names, *comma;
	struct ptx_loc none = {0, 0};
	int bad = 0;

	for (;; p = comma + 1) {
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			coloc_error(diag, none, "empty pass name in '--passes=%s'", names);
			bad = 1;
		} else if (!pass_lookup(p, len)) {
			size_t i, n;
			const struct pass_info *r = pass_registry(&n);
			struct coloc_buf known;

			coloc_buf_init(&known);
			for (i = 0; i < n; i++)
				coloc_buf_printf(&known, "%s%s", i ? ", " : "", r[i].name);
			coloc_error(diag, none, "unknown pass '%.*s'; known passes: %s", (int)len, p,
				    coloc_buf_cstr(&known) ? known.data : "");
			coloc_buf_release(&known);
			bad = 1;
		}
		if (!comma)
			break;
	}
	return bad ? -1 : 0;
}

/* Input that already uses the reserved prefix could collide with what passes add. */
static int check_reserved(const struct ptx_module *m, struct coloc_diag *diag)
{
	const struct ptx_stmt *s;
	size_t n = sizeof(COLOC_PREFIX) - 1;

	for (s = m->items.head; s; s = s->next) {
		const char *name = NULL;

		if (s->kind == PTX_STMT_FUNC)
			name = s->u.func->name->str;
		else if (s->kind == PTX_STMT_DECL && s->u.decl->names)
			name = s->u.decl->names->name->str;
		if (name && strncmp(name, COLOC_PREFIX, n) == 0) {
			coloc_error(diag, s->loc, "'%s' uses the prefix '" COLOC_PREFIX "', which colocc "
				    "reserves for what it adds; rename it", name);
			return -1;
		}
	}
	if (m->names.slots) {
		uint32_t i;

		for (i = 0; i <= m->names.mask; i++) {
			const struct ptx_ident *id = m->names.slots[i].id;

			if (id && id->len >= n && strncmp(id->str, COLOC_PREFIX, n) == 0 &&
			    id->kind == PTX_IDENT_PLAIN) {
				coloc_error(diag, PTX_NOLOC, "the input uses the name '%s'; the prefix '"
					    COLOC_PREFIX "' is reserved for what colocc adds", id->str);
				return -1;
			}
		}
	}
	return 0;
}

int pass_pipeline_run(struct ptx_module *m, const char *names, struct pass_ctx *ctx)
{
	const char *p = names, *comma;

	if (pass_pipeline_check(names, ctx->diag) < 0 || check_reserved(m, ctx->diag) < 0)
		return -1;
	for (;; p = comma + 1) {
		const struct pass_info *pass;
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		pass = pass_lookup(p, len);
		if (pass->run(m, ctx) < 0)
			return -1;
		if (ctx->verify_each && ptx_module_verify(m, ctx->diag)) {
			struct ptx_loc none = {0, 0};

			coloc_error(ctx->diag, none, "module does not verify after pass '%s'", pass->name);
			return -1;
		}
		if (!comma)
			break;
	}
	return 0;
}

int pass_verify_run(struct ptx_module *m, struct pass_ctx *ctx)
{
	return ptx_module_verify(m, ctx->diag) ? -1 : 0;
}
