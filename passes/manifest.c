/*
 * The manifest (JSON) that travels next to transformed PTX, and --explain.
 *
 * The runtime and the ahead-of-time mode read the manifest to launch
 * variants: for each kernel, its original parameters, and per form whether
 * it was applied (with the variant's name and the parameters appended to the
 * original ones), refused (with the reason and its location), not needed, or
 * not requested.
 */
#include <stdio.h>
#include <string.h>

#include "coloc/version.h"
#include "pass.h"

static void json_string(struct coloc_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	coloc_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			coloc_buf_putc(b, '\\');
			coloc_buf_putc(b, (char)c);
		} else if (c < 0x20) {
			coloc_buf_puts(b, "\\u00");
			coloc_buf_putc(b, hex[c >> 4]);
			coloc_buf_putc(b, hex[c & 15]);
		} else {
			coloc_buf_putc(b, (char)c);
		}
	}
	coloc_buf_putc(b, '"');
}

static void dims_string(struct coloc_buf *b, unsigned mask)
{
	coloc_buf_putc(b, '"');
	if (mask & 1)
		coloc_buf_putc(b, 'x');
	if (mask & 2)
		coloc_buf_putc(b, 'y');
	if (mask & 4)
		coloc_buf_putc(b, 'z');
	coloc_buf_putc(b, '"');
}

static const char *form_status(const struct pass_kernel *k, enum pass_form f)
{
	if (k->variant[f])
		return "applied";
	if (f == PASS_FORM_UNISYNC && k->analyzed && !k->unisync_needed)
		return "not-needed";
	if (k->refused[f])
		return k->requested[f] ? "refused" : "refusable";
	return k->requested[f] ? "applied" : "not-requested";
}

static void write_params(struct coloc_buf *b, const struct ptx_decl *d)
{
	bool first = true;

	coloc_buf_putc(b, '[');
	for (; d; d = d->next) {
		uint32_t align, size = pass_param_size(d, &align);

		coloc_buf_puts(b, first ? "" : ", ");
		first = false;
		coloc_buf_puts(b, "{\"name\": ");
		json_string(b, d->names ? d->names->name->str : "");
		coloc_buf_printf(b, ", \"size\": %u, \"align\": %u}", size, align);
	}
	coloc_buf_putc(b, ']');
}

int pass_manifest_write(const struct pass_ctx *ctx, const char *ptx_name, struct coloc_buf *b)
{
	const char *target = ctx->module ? ptx_module_target(ctx->module) : NULL;
	size_t i;

	coloc_buf_puts(b, "{\n  \"format\": \"colocc-manifest\",\n  \"format_version\": 1,\n");
	coloc_buf_puts(b, "  \"colocc\": ");
	json_string(b, COLOC_VERSION);
	coloc_buf_puts(b, ",\n  \"ptx\": ");
	json_string(b, ptx_name ? ptx_name : "");
	coloc_buf_puts(b, ",\n  \"target\": ");
	json_string(b, target ? target : "");
	coloc_buf_puts(b, ",\n  \"ptb_control\": {\"bytes\": 16, \"next\": 0, \"done\": 4, "
			  "\"redo_head\": 8, \"redo_tail\": 12},\n");
	coloc_buf_puts(b, "  \"kernels\": [");
	for (i = 0; i < ctx->nkernels; i++) {
		const struct pass_kernel *k = &ctx->kernels[i];
		const struct kernel_facts *kf = &k->facts;
		unsigned f;

		coloc_buf_puts(b, i ? ",\n    {" : "\n    {");
		coloc_buf_puts(b, "\"name\": ");
		json_string(b, k->func->name->str);
		coloc_buf_puts(b, ",\n      \"params\": ");
		write_params(b, k->func->params);
		coloc_buf_printf(b, ",\n      \"param_bytes\": %u,\n      \"reads\": {\"ctaid\": ",
				 kf->param_bytes);
		dims_string(b, kf->ctaid_dims);
		coloc_buf_puts(b, ", \"nctaid\": ");
		dims_string(b, kf->nctaid_dims);
		coloc_buf_printf(b, "},\n      \"barriers\": %u, \"returns\": %u, \"calls\": %u, "
				    "\"indirect_calls\": %s, \"dynamic_shared\": %s, \"cluster\": %s, "
				    "\"grid_sync\": %s,\n      \"forms\": {",
				 kf->barriers, kf->returns, kf->calls, kf->indirect_calls ? "true" : "false",
				 kf->dynamic_shared ? "true" : "false", kf->cluster ? "true" : "false",
				 kf->grid_sync ? "true" : "false");
		for (f = 0; f < PASS_FORM_COUNT; f++) {
			const char *status = form_status(k, f);
			unsigned p;

			coloc_buf_printf(b, "%s\n        \"%s\": {\"status\": \"%s\"", f ? "," : "",
					 pass_form_names[f], status);
			if (k->variant[f]) {
				coloc_buf_puts(b, ", \"name\": ");
				json_string(b, k->variant[f]->u.func->name->str);
				if (f == PASS_FORM_PTB)
					coloc_buf_printf(b, ", \"unisync\": %s, \"slots\": \"%s\", "
							    "\"control_bytes\": {\"base\": 16, "
							    "\"per_worker\": %u}, \"restart\": %s",
							 k->unisync_needed ? "true" : "false",
							 k->ptb_global_slots ? "global" : "shared",
							 k->ptb_global_slots ? 8 : 0,
							 k->ptb_restart ? "true" : "false");
				if (f == PASS_FORM_PTB && k->ptb_resume)
					coloc_buf_printf(b, ", \"resume\": {\"thread_bytes\": %u, "
							    "\"shared_bytes\": %u}",
							 k->resume_thread_bytes, k->resume_shared_bytes);
				/* Its one-block-a-worker variant: the same parameters (ptb.c). */
				if (f == PASS_FORM_PTB && k->ptb_fresh) {
					coloc_buf_puts(b, ", \"fresh\": ");
					json_string(b, k->ptb_fresh->u.func->name->str);
				}
				coloc_buf_puts(b, ", \"added_params\": [");
				for (p = 0; p < k->nadded[f]; p++) {
					const struct pass_param *pp = &k->added[f][p];

					coloc_buf_puts(b, p ? ", {\"name\": " : "{\"name\": ");
					json_string(b, pp->name);
					coloc_buf_printf(b, ", \"role\": \"%s\", \"size\": %u, \"align\": %u}",
							 pass_param_role_names[pp->role], pp->size, pp->align);
				}
				coloc_buf_putc(b, ']');
			} else if (k->refused[f]) {
				coloc_buf_puts(b, ", \"reason\": ");
				json_string(b, k->refused[f]);
				coloc_buf_printf(b, ", \"line\": %u, \"column\": %u", k->refused_loc[f].line,
						 k->refused_loc[f].col);
			}
			coloc_buf_putc(b, '}');
		}
		coloc_buf_puts(b, "\n      }\n    }");
	}
	coloc_buf_puts(b, ctx->nkernels ? "\n  ]\n}\n" : "]\n}\n");
	return b->failed ? -1 : 0;
}

static void explain_dims(struct coloc_buf *b, const char *reg, unsigned mask, bool *first)
{
	unsigned d;

	for (d = 0; d < 3; d++) {
		if (!(mask & (1u << d)))
			continue;
		coloc_buf_printf(b, "%s%s.%c", *first ? "" : ", ", reg, "xyz"[d]);
		*first = false;
	}
}

/*
 * What a thread would have to save to resume its block at each barrier
 * (liveness.c): the registers live after it, the first 24 by name.
 */
static void explain_live(struct ptx_module *m, const struct ptx_func *f, struct coloc_buf *b)
{
	struct pass_live live;

	if (pass_live_across_barriers(m, f, &live) < 0) {
		coloc_buf_puts(b, "  live     not computed: out of memory\n");
		return;
	}
	for (unsigned i = 0; i < live.nsites; i++) {
		const struct pass_live_site *s = &live.sites[i];

		coloc_buf_printf(b, "  live     after the barrier at %u:%u: %u register%s, %llu bytes a thread%s",
				 s->loc.line, s->loc.col, s->nregs, s->nregs == 1 ? "" : "s",
				 (unsigned long long)s->bytes, s->nregs ? ":" : "");
		for (unsigned j = 0; j < s->nregs && j < 24; j++)
			coloc_buf_printf(b, " %s", s->regs[j]->str);
		if (s->nregs > 24)
			coloc_buf_printf(b, " and %u more", s->nregs - 24);
		if (live.approximate)
			coloc_buf_printf(b, " (at most: %s)", live.approximate);
		coloc_buf_putc(b, '\n');
	}
	pass_live_release(&live);
}

void pass_explain(const struct pass_ctx *ctx, struct coloc_buf *b)
{
	size_t i;

	for (i = 0; i < ctx->nkernels; i++) {
		const struct pass_kernel *k = &ctx->kernels[i];
		const struct kernel_facts *kf = &k->facts;
		bool first = true;
		unsigned f;

		coloc_buf_printf(b, "%skernel %s (line %u)\n  reads: ", i ? "\n" : "", k->func->name->str,
				 k->stmt->loc.line);
		explain_dims(b, "%ctaid", kf->ctaid_dims, &first);
		explain_dims(b, "%nctaid", kf->nctaid_dims, &first);
		if (first)
			coloc_buf_puts(b, "no block indices");
		coloc_buf_printf(b, "\n  %u CTA barrier%s, %u return%s (%u predicated), %u call%s%s, "
				    "%u bytes of parameters%s%s%s\n",
				 kf->barriers, kf->barriers == 1 ? "" : "s", kf->returns,
				 kf->returns == 1 ? "" : "s", kf->predicated_returns, kf->calls,
				 kf->calls == 1 ? "" : "s", kf->indirect_calls ? " (some indirect)" : "",
				 kf->param_bytes, kf->dynamic_shared ? ", dynamic shared memory" : "",
				 kf->cluster ? ", cluster launch" : "", kf->grid_sync ? ", grid sync" : "");
		for (f = 0; f < PASS_FORM_COUNT; f++) {
			coloc_buf_printf(b, "  %-8s ", pass_form_names[f]);
			if (k->variant[f] && f == PASS_FORM_PTB && k->ptb_restart) {
				coloc_buf_printf(b, "applied: %s (gives stopped blocks up at barriers%s%s",
						 k->variant[f]->u.func->name->str,
						 k->ptb_read_copy       ? "; reads the stop word by cp.async"
						 : k->ptb_read_load_why ? "; reads the stop word by load: "
									: "",
						 k->ptb_read_copy || !k->ptb_read_load_why ? "" : k->ptb_read_load_why);
				if (k->ptb_resume)
					coloc_buf_printf(b, "; resumes them where they stopped, saving %u "
							    "bytes a thread and %u of shared memory",
							 k->resume_thread_bytes, k->resume_shared_bytes);
				else if (k->ptb_resume_why)
					coloc_buf_printf(b, "; runs them again from the start: %s",
							 k->ptb_resume_why);
				coloc_buf_puts(b, ")\n");
			}
			else if (k->variant[f])
				coloc_buf_printf(b, "applied: %s\n", k->variant[f]->u.func->name->str);
			else if (f == PASS_FORM_UNISYNC && !k->unisync_needed)
				coloc_buf_puts(b, "not needed: no CTA barriers\n");
			else if (k->refused[f])
				coloc_buf_printf(b, "%s at %u:%u: %s\n",
						 k->requested[f] ? "refused" : "would be refused",
						 k->refused_loc[f].line, k->refused_loc[f].col, k->refused[f]);
			else
				coloc_buf_puts(b, k->requested[f] ? "applied\n" : "applies\n");
		}
		if (kf->barriers)
			explain_live(ctx->module, k->func, b);
	}
}
