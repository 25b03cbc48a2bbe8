/*
 * slice: run a kernel's grid as several smaller launches.
 *
 * A best-effort kernel that runs for milliseconds holds the GPU for
 * milliseconds.  Launched as sub-grids one at a time, it can be interrupted
 * between launches: its turnaround is the time of one slice.  Relaunching
 * the kernel unchanged with a smaller grid would be wrong (every slice would
 * see blockIdx from 0), so the sliced form takes the original grid and the
 * slice's first block as parameters (Tally, ASPLOS '25, section 3.1):
 *
 *   before                          after (__coloc_slice_K)
 *   mov.u32 %r1, %ctaid.x;          ld.param.u32 __coloc_off_x, [__coloc_offset_x];
 *   mov.u32 %r2, %nctaid.x;         mov.u32 __coloc_ctaid_x, %ctaid.x;
 *                                   add.u32 __coloc_ctaid_x, __coloc_ctaid_x, __coloc_off_x;
 *                                   ld.param.u32 __coloc_nctaid_x, [__coloc_grid_x];
 *                                   mov.u32 %r1, __coloc_ctaid_x;
 *                                   mov.u32 %r2, __coloc_nctaid_x;
 *
 * Every read of %ctaid.d becomes offset + %ctaid.d and every read of
 * %nctaid.d the original grid, so grid-stride loops and "last block done"
 * reductions see the grid they were written for.  The six parameters
 * (grid x, y, z, offset x, y, z, all .u32) are always appended in this
 * order, so the runtime launches every sliced kernel the same way: slices
 * are rectangular sub-grids, and each launch passes its own offsets.
 *
 * Needs (analysis.c): block indices read only in the kernel itself, no
 * cluster launch, no grid-wide synchronization, no waits on other blocks.
 * Barriers and early returns need nothing: each slice is an ordinary launch.
 */
#include <stdio.h>

#include "pass.h"

static const struct pass_param slice_params[] = {
	{COLOC_PREFIX "grid_x", PASS_PARAM_GRID_X, 4, 4},
	{COLOC_PREFIX "grid_y", PASS_PARAM_GRID_Y, 4, 4},
	{COLOC_PREFIX "grid_z", PASS_PARAM_GRID_Z, 4, 4},
	{COLOC_PREFIX "offset_x", PASS_PARAM_OFFSET_X, 4, 4},
	{COLOC_PREFIX "offset_y", PASS_PARAM_OFFSET_Y, 4, 4},
	{COLOC_PREFIX "offset_z", PASS_PARAM_OFFSET_Z, 4, 4},
};

static int slice_kernel(struct pass_ctx *ctx, struct pass_kernel *k)
{
	static const char dims[] = "xyz";
	struct ptx_module *m = ctx->module;
	struct ptx_stmt *v = pass_clone_kernel(ctx, k, k->func, "slice");
	const struct ptx_ident *ctaid[3] = {0}, *nctaid[3] = {0};
	struct ptx_func *f;
	struct ptx_stmt *first;
	unsigned i;
	char name[64];

	if (!v)
		return -1;
	f = v->u.func;
	for (i = 0; i < sizeof(slice_params) / sizeof(slice_params[0]); i++)
		if (!pass_add_param(m, f, slice_params[i].name, 32))
			return -1;
	for (i = 0; i < 3; i++) {
		if (k->facts.ctaid_dims & (1u << i)) {
			snprintf(name, sizeof(name), COLOC_PREFIX "ctaid_%c", dims[i]);
			ctaid[i] = ptx_intern_cstr(m, name);
		}
		if (k->facts.nctaid_dims & (1u << i)) {
			snprintf(name, sizeof(name), COLOC_PREFIX "nctaid_%c", dims[i]);
			nctaid[i] = ptx_intern_cstr(m, name);
		}
	}
	/* Rewrite the body first, so the prologue's own %ctaid reads stay. */
	pass_replace_block_ids(m, &f->body, ctaid, nctaid);
	first = f->body.head;
	for (i = 0; i < 3; i++) {
		int c = dims[i];

		if (ctaid[i] &&
		    pass_insert_snippet(ctx, &f->body, first,
					".reg .b32 __coloc_ctaid_%c, __coloc_off_%c;\n"
					"ld.param.u32 __coloc_off_%c, [__coloc_offset_%c];\n"
					"mov.u32 __coloc_ctaid_%c, %%ctaid.%c;\n"
					"add.u32 __coloc_ctaid_%c, __coloc_ctaid_%c, __coloc_off_%c;\n",
					c, c, c, c, c, c, c, c, c) < 0)
			return -1;
		if (nctaid[i] &&
		    pass_insert_snippet(ctx, &f->body, first,
					".reg .b32 __coloc_nctaid_%c;\n"
					"ld.param.u32 __coloc_nctaid_%c, [__coloc_grid_%c];\n",
					c, c, c) < 0)
			return -1;
	}
	k->variant[PASS_FORM_SLICE] = v;
	k->added[PASS_FORM_SLICE] = slice_params;
	k->nadded[PASS_FORM_SLICE] = sizeof(slice_params) / sizeof(slice_params[0]);
	return 0;
}

int pass_slice_run(struct ptx_module *m, struct pass_ctx *ctx)
{
	size_t i;

	if (pass_kernels_collect(m, ctx) < 0)
		return -1;
	for (i = 0; i < ctx->nkernels; i++) {
		struct pass_kernel *k = &ctx->kernels[i];

		k->requested[PASS_FORM_SLICE] = true;
		pass_kernel_analyze(ctx, k);
		if (pass_refused(ctx, k, PASS_FORM_SLICE) || k->variant[PASS_FORM_SLICE])
			continue;
		if (slice_kernel(ctx, k) < 0)
			return -1;
	}
	return 0;
}
