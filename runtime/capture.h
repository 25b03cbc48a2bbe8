/*
 * What libcoloc knows of the application's device code: modules (and
 * libraries) with the PTX they were loaded from, their kernels, and the
 * handles the application holds to them.
 */
#ifndef COLOC_CAPTURE_H
#define COLOC_CAPTURE_H

#include "buf.h"
#include "coloc.h"
#include "regcap.h"

enum coloc_variant_form { VARIANT_SLICE, VARIANT_PTB, VARIANT_FORMS };

/*
 * A persistent function and its register-capped copies (passes/regcap.h):
 * [0] the function itself, then the copies, highest cap first.
 */
struct coloc_levels {
	unsigned n; /* 0: no such function */
	struct coloc_level {
		CUfunction fn;
		unsigned cap; /* the copy's .maxnreg; 0 for the function itself */
		/* The device's wave for it at the last block shape asked:
		 * ((threads | dynamic shared memory << 11) + 1) << 32 | wave. */
		uint64_t wave_memo;
	} e[1 + PASS_REGCAP_LEVELS];
};

/* A kernel's variants loaded in one context. */
struct coloc_kernel_fns {
	struct coloc_kernel_fns *next;
	CUcontext ctx;
	CUfunction fn[VARIANT_FORMS]; /* NULL: not made, or not found in the loaded module */
	struct coloc_levels ptb;      /* fn[VARIANT_PTB] and its capped copies */
	struct coloc_levels fresh;    /* the one-block-a-worker variant (ptb.c) and its copies */
	unsigned attrs_applied;       /* attribute generation last applied to fn[] */
};

/* One .entry of a module, as the passes saw it. */
struct coloc_kernel_info {
	char *name;
	unsigned nparams;
	uint32_t *param_size; /* nparams each */
	uint32_t *param_align;
	char *variant[VARIANT_FORMS]; /* __coloc_<form>_<name>, or NULL */
	char *refused[VARIANT_FORMS]; /* why not, when variant is NULL */
	/* The parameters each variant takes after the original ones, by role. */
#define COLOC_MAX_ADDED 12
	struct coloc_added_param {
		uint8_t role; /* enum pass_param_role */
		uint8_t size, align;
	} added[VARIANT_FORMS][COLOC_MAX_ADDED];
	unsigned nadded[VARIANT_FORMS];
	bool ptb_global_slots;        /* ptb keeps two words per worker after the control header */
	bool ptb_restart;             /* ptb gives stopped blocks up (made with --ptb-restart) */
	uint32_t resume_thread_bytes; /* ptb resumes them (--ptb-resume): its save slot, resume.c */
	uint32_t resume_shared_bytes;
	bool fallback_logged;         /* a fallback to the original was logged */
	/* What the application set on the original, replayed on the variants. */
	int attr[CU_FUNC_ATTRIBUTE_MAX];
	uint32_t attr_set;            /* bit a: attr[a] was set */
	int cache_config;
	bool cache_config_set;
	unsigned attrs_generation;    /* bumped at every change */
	struct coloc_kernel_fns *fns;
};

enum coloc_module_state { MODULE_NEW, MODULE_READY, MODULE_FAILED };

/* A module or library the application loaded. */
struct coloc_module {
	pthread_mutex_t lock; /* guards everything below but the PTX */
	char *origin;         /* how it was loaded, for the log */
	unsigned sm;          /* the device's architecture when loaded */
	/*
	 * Its persistent variants give stopped blocks up (COLOC_RESTART): the
	 * setting, unless only an AOT cache made without it has the module
	 * (variants.c, module_restart); decided before it is transformed.
	 */
	bool restart;
	bool read_copy;       /* COLOC_STOP_READ=copy: with restart, the stop word read by cp.async */
	bool resume;          /* COLOC_RESUME=1: with restart, variants made with --ptb-resume */
	char *ptx;            /* the PTX for that device, NUL-terminated, or NULL */
	size_t ptx_len;
	char *options;        /* the fatbin entry's ptxas options, or NULL */
	size_t options_len;
	char *no_ptx;         /* why there is no PTX */
	enum coloc_module_state state;
	char *failed;         /* why the variants could not be made */
	struct coloc_kernel_info *kernels;
	size_t nkernels;
	/* The transformed PTX and its manifest, for contexts still to load them. */
	struct coloc_buf variant_ptx;
	struct coloc_buf manifest;
	/* Variant modules, per context. */
	struct coloc_variant_module {
		struct coloc_variant_module *next;
		CUcontext ctx;
		CUmodule module; /* NULL: loading failed in this context */
		/* Its register-capped copies' names (passes/regcap.h). */
		char **capped;
		size_t ncapped;
	} *loaded;
	unsigned refs;        /* handles that name it */
	char key[65];         /* its cache key once asked for (coloc_module_key), else "" */
	unsigned long serial; /* this process's count of modules seen, at its load: from 1 */
	/* The names of its kernels launched so far (coloc_module_first_launch): open addressing. */
	char **launched;
	size_t launched_cap, launched_n;
};

/* What a handle the application holds refers to. */
enum coloc_handle_kind { HANDLE_MODULE, HANDLE_LIBRARY, HANDLE_FUNCTION, HANDLE_KERNEL };

/*
 * The module and kernel name a CUfunction or CUkernel handle refers to;
 * takes a reference on the module (coloc_module_put).  NULL when colocc
 * did not see it loaded.
 */
struct coloc_module *coloc_capture_kernel(const void *handle, char **name);
void coloc_module_put(struct coloc_module *m);
/* The kernel of a transformed module, by name; NULL when the module has none. */
struct coloc_kernel_info *coloc_module_kernel(struct coloc_module *m, const char *name);
/*
 * True at the first launch of kernel `name` of `m` (the first call with it),
 * false after, and when memory runs out.
 */
bool coloc_module_first_launch(struct coloc_module *m, const char *name);

/*
 * Links (the driver's cuLink* and nvJitLink, nvjitlink.c), keyed by the
 * linker's handle: begun, given inputs, completed into a cubin, ended.  A
 * module loaded from that cubin gets the link's PTX when it had exactly one
 * input and that was PTX.  `by_contents`: the cubin is known by its bytes
 * (the application copies it out), not by its address, and stays known
 * after the link ends.
 */
void coloc_link_begin(const void *key);
void coloc_link_input(const void *key, bool ptx, const void *data, size_t size);
void coloc_link_input_file(const void *key, bool ptx, const char *path);
void coloc_link_output(const void *key, const void *cubin, size_t size, bool by_contents);
void coloc_link_end(const void *key);
/*
 * The PTX link `key` amounts to, got another way than from its inputs
 * (nvJitLink's -ptx shadow link of LTO-IR): the link then counts as one PTX
 * input, whatever its inputs were.
 */
void coloc_link_ptx(const void *key, const void *ptx, size_t size);

/* ---- nvjitlink.c */

/*
 * colocc's wrapper for nvJitLink function `name` whose library answer is
 * `fn` (dlsym on the application's behalf), or NULL to hand out `fn`.
 */
void *coloc_nvjitlink_hook(const char *name, void *fn);

/* ---- variants.c */

/*
 * The module's cache key (64 hex digits): its PTX, options, architecture and
 * colocc's format; hashed once per module.
 */
void coloc_module_key(struct coloc_module *m, char key[65]);

/*
 * Makes the module's variants usable in the current context (transforming,
 * compiling or reading the cache on first use) and returns the kernel's
 * functions there, with the application's attributes applied; NULL after
 * a log line when the kernel cannot run in another form.
 */
struct coloc_kernel_fns *coloc_variants_for(struct coloc_module *m, const char *name,
					    struct coloc_kernel_info **info);

#endif
