/*
 * Pass interface: one entry point per pass, registered by name in
 * passes.def, and the per-kernel table the passes share.
 *
 * Passes never change an original kernel.  Each transformation adds a new
 * .entry next to it (named __coloc_<form>_<kernel>) and records it in the
 * kernel table, or records why it refused; the manifest and --explain are
 * written from that table.
 */
#ifndef COLOC_PASS_H
#define COLOC_PASS_H

#include "ptx.h"

/* Prefix of every symbol colocc adds to PTX; input that uses it is refused. */
#define COLOC_PREFIX "__coloc_"

enum pass_form {
	PASS_FORM_SLICE,
	PASS_FORM_UNISYNC,
	PASS_FORM_PTB,
	PASS_FORM_COUNT,
};

extern const char *const pass_form_names[PASS_FORM_COUNT];

/* What a transformed kernel takes after the original parameters. */
enum pass_param_role {
	PASS_PARAM_GRID_X,   /* the original grid, in blocks */
	PASS_PARAM_GRID_Y,
	PASS_PARAM_GRID_Z,
	PASS_PARAM_OFFSET_X, /* slice: first block of this launch */
	PASS_PARAM_OFFSET_Y,
	PASS_PARAM_OFFSET_Z,
	PASS_PARAM_CONTROL,  /* ptb: device pointer to the launch's control block */
	PASS_PARAM_PARK,     /* ptb: non-zero: worker 0 parks when stopped (docs/passes.md) */
	PASS_PARAM_STOP,     /* ptb: device pointer to the stop word */
	PASS_PARAM_SLOT_BASE, /* ptb: first worker index of this launch's broadcast slots */
	PASS_PARAM_BATCH,    /* ptb: virtual blocks a worker takes at a time (0 counts as 1) */
	PASS_PARAM_REDO,     /* ptb: device pointer to the launch's redo ring (0: no block is given up) */
	PASS_PARAM_SAVE,     /* ptb --ptb-resume: device pointer to the save area (0: none; resume.c) */
};

extern const char *const pass_param_role_names[];

struct pass_param {
	const char *name;
	enum pass_param_role role;
	uint32_t size;
	uint32_t align;
};

/* Everything the analysis learns about one kernel. */
struct kernel_facts {
	unsigned ctaid_dims;   /* bit d set: reads %ctaid.{x,y,z}[d] */
	unsigned nctaid_dims;
	unsigned barriers;     /* CTA-wide barrier sites (bar.sync 0 and its spellings) */
	unsigned returns;      /* ret and exit sites */
	unsigned predicated_returns;
	unsigned calls;
	bool indirect_calls;
	bool callee_sync;      /* a callee (or an indirect call) may synchronize the CTA */
	bool dynamic_shared;   /* uses an .extern .shared array or %dynamic_smem_size */
	bool cluster;          /* cluster directives, registers or instructions */
	bool grid_sync;        /* cooperative-groups grid synchronization */
	uint32_t param_bytes;  /* size of the original parameter list */
	uint64_t static_shared; /* bytes of .shared the kernel declares or uses */
	bool async_proxy;      /* bulk copies, wgmma, tcgen05: shared memory through the async proxy */
};

struct pass_kernel {
	struct ptx_stmt *stmt; /* the original .entry */
	struct ptx_func *func;
	bool analyzed;
	struct kernel_facts facts;
	/* Per form: the variant made, or why the form was refused. */
	struct ptx_stmt *variant[PASS_FORM_COUNT];
	const char *refused[PASS_FORM_COUNT];
	struct ptx_loc refused_loc[PASS_FORM_COUNT];
	bool reported[PASS_FORM_COUNT];
	bool requested[PASS_FORM_COUNT];
	struct ptx_stmt *anchor; /* the last variant placed after the kernel */
	const struct pass_param *added[PASS_FORM_COUNT];
	unsigned nadded[PASS_FORM_COUNT];
	bool unisync_needed; /* the kernel has CTA barriers: ptb goes through unisync */
	bool ptb_global_slots; /* ptb broadcasts through the control block, not shared memory */
	bool ptb_restart;      /* ptb gives up a block at its barriers when stopped (ptb.c) */
	bool ptb_read_copy;    /* ... and its leader reads the stop word by cp.async (ptb.c) */
	const char *ptb_read_load_why; /* copy asked, restart given, read by load: why */
	bool ptb_resume;       /* ... and a block given up is resumed where it stopped (resume.c) */
	struct ptx_stmt *ptb_fresh; /* ... and its one-block-a-worker variant (ptb.c), or NULL */
	const char *ptb_resume_why; /* resume asked, restart given, not resumed: why */
	uint32_t resume_thread_bytes, resume_shared_bytes; /* its save slot: resume.c */
	unsigned resume_prefix_insns; /* the restore goes after these (pass_live.prefix_insns) */
	bool resume_before_label;     /* ... right after them, before any label (pass_live) */
};

/* Registers live just after one CTA barrier (liveness.c). */
struct pass_live_site {
	struct ptx_loc loc;               /* the barrier */
	unsigned nregs;
	uint64_t bytes;                   /* per thread; a predicate counts 4 */
	const struct ptx_ident **regs;    /* in declaration order */
};

/* A register live after some barrier, with what saving it needs. */
struct pass_live_reg {
	const struct ptx_ident *name;
	uint32_t size;                    /* bytes (a predicate: 4) */
	bool pred, vector, nested;        /* nested: declared only inside a { } scope */
	bool recomputed;                  /* written only by the pure prefix: not saved */
};

struct pass_live {
	struct pass_live_site *sites;     /* in program order */
	unsigned nsites;
	struct pass_live_reg *regs;       /* live after any barrier, in declaration order */
	unsigned nregs;
	/*
	 * The kernel's first instructions that a resumed block runs again (pure
	 * functions of its identity and the parameters; liveness.c): the restore
	 * goes after them, and the registers only they write are not saved.
	 */
	unsigned prefix_insns;
	bool prefix_before_label; /* the restore goes right after them, before a loop's label */
	bool prefix_writes_shared; /* they store to shared memory: a barrier before restoring it */
	const char *approximate; /* why more may be listed than is live (unknown opcodes...), or NULL */
};

/* Every bar/barrier site of f (not .warp, not .cluster); -1 when out of memory. */
int pass_live_across_barriers(struct ptx_module *m, const struct ptx_func *f, struct pass_live *out);
void pass_live_release(struct pass_live *l);

struct pass_ctx {
	struct coloc_diag *diag;
	int verify_each; /* run the verifier after every pass */
	int verbose;     /* report per-pass statistics on diag */
	bool ptb_restart; /* ptb: blocks can be given up at their barriers (ptb.c; off: none) */
	/*
	 * ptb with ptb_restart: the leader reads the stop word with cp.async into
	 * shared memory, waited for at the next meeting (ptb.c: sm_80+, kernels
	 * without their own cp.async; off: a load after every meeting).
	 */
	bool ptb_read_copy;
	/* ptb with ptb_restart: blocks given up are resumed where they stopped (resume.c). */
	bool ptb_resume;
	/* Filled by pass_pipeline_run; the passes read and extend it. */
	struct ptx_module *module;
	struct pass_kernel *kernels;
	size_t nkernels;
	unsigned refusals;
};

struct pass_info {
	const char *name;
	int (*run)(struct ptx_module *m, struct pass_ctx *ctx);
	const char *summary;
};

#define PASS(name, fn, summary) int fn(struct ptx_module *m, struct pass_ctx *ctx);
#include "passes.def"
#undef PASS

const struct pass_info *pass_lookup(const char *name, size_t len);
const struct pass_info *pass_registry(size_t *count);

void pass_ctx_init(struct pass_ctx *ctx, struct coloc_diag *diag);
/*
 * The pass options that change the variants, for cache keys (colocc --aot
 * and the runtime must agree): NULL, "ptb-restart" or
 * "ptb-restart,stop-read-copy", either followed by ",resume" (--ptb-resume).
 */
const char *pass_cache_options(bool ptb_restart, bool ptb_read_copy, bool ptb_resume);

/*
 * With ctx->ptb_resume, whether k (its original body) can be resumed: 1 with
 * the save and restore code in save and restore (resume.c), 0 with
 * k->ptb_resume_why, -1 when out of memory.
 */
int pass_resume_code(struct pass_ctx *ctx, struct pass_kernel *k, struct coloc_buf *save,
		     struct coloc_buf *restore);

/* Makes *p (of *cap elements of elem bytes) hold at least need, doubling; false when out of memory. */
bool pass_grow(void **p, size_t *cap, size_t need, size_t elem);

/* Calls fn on every name an operand expression holds, nested lists and operators included. */
void pass_expr_names(const struct ptx_expr *e, void (*fn)(const struct ptx_expr *name, void *arg),
		     void *arg);
void pass_ctx_release(struct pass_ctx *ctx);

/*
 * Runs the comma-separated list of passes over `m`.  Unknown names are
 * reported before anything runs.  Returns 0 or -1 after diagnostics;
 * kernels a pass refuses are not errors (ctx->refusals counts them).
 */
int pass_pipeline_run(struct ptx_module *m, const char *names, struct pass_ctx *ctx);
/* Checks a pass list without running it; returns 0 or -1 after diagnostics. */
int pass_pipeline_check(const char *names, struct coloc_diag *diag);

/* ---- shared by the passes (kernels.c) */

/* Builds ctx->kernels from the module's .entry definitions (once). */
int pass_kernels_collect(struct ptx_module *m, struct pass_ctx *ctx);
/* Runs the analysis of analysis.c on a kernel if it has not run. */
void pass_kernel_analyze(struct pass_ctx *ctx, struct pass_kernel *k);
/*
 * Records why `form` cannot be applied to `k` (the first reason wins), for
 * the manifest, --explain and pass_refused().
 */
void pass_refuse(struct pass_ctx *ctx, struct pass_kernel *k, enum pass_form form,
		 struct ptx_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
/*
 * The non-aligned barrier instructions the passes add (barrier.sync,
 * barrier.red) need PTX ISA 6.0: an older module's .version is raised to it,
 * which every instruction of an older ISA still belongs to.  -1: no memory.
 */
int pass_need_barrier_isa(struct ptx_module *m);
/* True when `form` is refused for `k`; the first call reports the reason as a warning. */
bool pass_refused(struct pass_ctx *ctx, struct pass_kernel *k, enum pass_form form);
/* Copies `from` under the name __coloc_<form>_<kernel>, after the kernel's variants. */
struct ptx_stmt *pass_clone_kernel(struct pass_ctx *ctx, struct pass_kernel *k,
				   const struct ptx_func *from, const char *form);
/*
 * What ptb adds to unisync's meeting point so that a stopped block can be
 * given up there (ptb.c): `before` runs before the reduction, `after` after
 * it in blocks that go on (it branches to __coloc_halting to give up), and
 * `halting` is placed after the dispatch, labelled __coloc_halting, and
 * branches back to __coloc_dispatch when the block goes on after all.
 * `site_read` (may be NULL) is placed where returned threads come back
 * (__coloc_ret) and after the sites whose block's next meeting may be one
 * without it: all but those from which the code runs straight to the next
 * site, when that one has it (unisync.c).
 */
struct unisync_halt {
	const char *before, *after, *halting, *site_read;
};
/* The unisync rewrite of a kernel body, in place (unisync.c; ptb uses it too; halt may be NULL). */
int pass_unisync_apply(struct pass_ctx *ctx, struct pass_kernel *k, struct ptx_func *f,
		       const struct unisync_halt *halt);
/* Rewrites every ret and exit of a body (nested blocks too) into "bra label". */
int pass_returns_to_branch(struct ptx_module *m, struct ptx_block *b, const char *label);
/* Size and alignment of one parameter declaration. */
uint32_t pass_param_size(const struct ptx_decl *d, uint32_t *align);
/* Appends `.param .u32 NAME` (or .u64) to a kernel and returns its name. */
const char *pass_add_param(struct ptx_module *m, struct ptx_func *f, const char *name,
			   unsigned bits);
/* Parses statements and inserts them before `pos` (NULL: at the end). */
int pass_insert_snippet(struct pass_ctx *ctx, struct ptx_block *b, struct ptx_stmt *pos,
			const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
/* Replaces every %ctaid.d and %nctaid.d operand in a body by a register. */
void pass_replace_block_ids(struct ptx_module *m, struct ptx_block *body,
			    const struct ptx_ident *ctaid[3], const struct ptx_ident *nctaid[3]);

/* ---- the manifest (manifest.c) */
int pass_manifest_write(const struct pass_ctx *ctx, const char *ptx_name,
			struct coloc_buf *out);
/* --explain: one readable section per kernel. */
void pass_explain(const struct pass_ctx *ctx, struct coloc_buf *out);

#endif
