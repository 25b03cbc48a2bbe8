/*
 * Variants: a captured module's kernels in their sliced and persistent
 * forms, made once per module and loaded once per context.
 *
 * On the first best-effort launch of one of its kernels, the module's PTX
 * goes through the in-process compiler (parse, slice, unisync, ptb: the
 * same pipeline as `colocc --aot`), which also says, kernel by kernel, why
 * a form was refused.  The transformed module is then found compiled in a
 * cache or compiled by the driver:
 *
 *   1. each COLOC_AOT_CACHE directory, as `colocc --aot` wrote it;
 *   2. COLOC_CACHE_DIR (default ~/.cache/coloc), which libcoloc fills;
 *   3. otherwise the driver's linker (cuLinkAddData of the PTX,
 *      cuLinkComplete) compiles it, and the cubin goes into COLOC_CACHE_DIR
 *      in the layout `colocc --aot` uses, so either tool reads the other's.
 *
 * Keys are those of compiler/cache.c, computed from the PTX exactly as the
 * application gave it; a device of compute capability 9.0 looks for sm_90a
 * and then sm_90 entries.  The passes run again on a cache hit (they take
 * milliseconds; compiling takes seconds), which also gives the kernels'
 * parameter layouts.
 *
 * Anything that fails leaves the module's kernels running original, with
 * the reason in the log and the statistics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cache.h"
#include "capture.h"
#include "coloc/version.h"
#include "diag.h"
#include "pass.h"
#include "ptx.h"
#include "regcap.h"
#include "scheduler.h"

static const enum pass_form pass_forms[VARIANT_FORMS] = {
	[VARIANT_SLICE] = PASS_FORM_SLICE,
	[VARIANT_PTB] = PASS_FORM_PTB,
};

static void fail(struct coloc_module *m, const char *fmt, const char *arg)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), fmt, arg);
	m->state = MODULE_FAILED;
	free(m->failed);
	m->failed = strdup(buf);
	coloc_stat_add(STAT_VARIANTS_FAILED, 1);
	coloc_log(COLOC_LOG_WARN, "%s: its kernels run original: %s", m->origin, buf);
}

static void diag_to_log(void *ctx, enum coloc_diag_level level, const char *line)
{
	(void)ctx;
	coloc_log(level == COLOC_DIAG_ERROR ? COLOC_LOG_WARN : COLOC_LOG_DEBUG, "%s", line);
}

/* For what only decides an optimization: nothing above debug. */
static void diag_to_debug(void *ctx, enum coloc_diag_level level, const char *line)
{
	(void)ctx;
	(void)level;
	coloc_log(COLOC_LOG_DEBUG, "%s", line);
}

static int kernel_info_fill(struct coloc_kernel_info *ki, const struct pass_kernel *k)
{
	const struct ptx_decl *d;
	unsigned n = 0;

	ki->name = strdup(k->func->name->str);
	for (d = k->func->params; d; d = d->next)
		n++;
	ki->nparams = n;
	ki->ptb_global_slots = k->ptb_global_slots;
	ki->ptb_restart = k->ptb_restart;
	ki->resume_thread_bytes = k->ptb_resume ? k->resume_thread_bytes : 0;
	ki->resume_shared_bytes = k->ptb_resume ? k->resume_shared_bytes : 0;
	ki->param_size = calloc(n + 1, sizeof(uint32_t));
	ki->param_align = calloc(n + 1, sizeof(uint32_t));
	if (!ki->name || !ki->param_size || !ki->param_align)
		return -ENOMEM;
	n = 0;
	for (d = k->func->params; d; d = d->next, n++) {
		ki->param_size[n] = pass_param_size(d, &ki->param_align[n]);
		if (!ki->param_align[n])
			ki->param_align[n] = 1;
	}
	for (int f = 0; f < VARIANT_FORMS; f++) {
		const struct ptx_stmt *v = k->variant[pass_forms[f]];
		const char *why = k->refused[pass_forms[f]];

		if (v && k->nadded[pass_forms[f]] > COLOC_MAX_ADDED) {
			ki->refused[f] = strdup("the variant takes more parameters than the runtime knows");
		} else if (v) {
			ki->variant[f] = strdup(v->u.func->name->str);
			ki->nadded[f] = k->nadded[pass_forms[f]];
			for (unsigned i = 0; i < ki->nadded[f]; i++) {
				const struct pass_param *pp = &k->added[pass_forms[f]][i];

				ki->added[f][i].role = (uint8_t)pp->role;
				ki->added[f][i].size = (uint8_t)pp->size;
				ki->added[f][i].align = (uint8_t)pp->align;
			}
		}
		else
			ki->refused[f] = strdup(why ? why : "not transformed");
		if (!ki->variant[f] && !ki->refused[f])
			return -ENOMEM;
	}
	return 0;
}

/* Parses and transforms the module's PTX; fills m->kernels. */
static int transform(struct coloc_module *m)
{
	struct coloc_diag diag;
	struct pass_ctx pctx;
	struct ptx_module *pm;
	int rc = -1;

	coloc_diag_init(&diag, m->origin, NULL);
	diag.emit = diag_to_log;
	pass_ctx_init(&pctx, &diag);
	pctx.verify_each = 0;
	pctx.ptb_restart = m->restart;
	pctx.ptb_read_copy = m->restart && m->read_copy;
	pctx.ptb_resume = m->restart && m->resume;
	pm = ptx_parse(m->ptx, m->ptx_len, m->origin, &diag);
	if (!pm) {
		fail(m, "colocc could not parse its PTX%s (COLOC_LOG=debug shows why)", "");
		goto out;
	}
	if (pass_pipeline_run(pm, "slice,unisync,ptb", &pctx) < 0 || diag.nerrors) {
		fail(m, "the passes failed on it%s (COLOC_LOG=debug shows why)", "");
		goto out;
	}
	m->kernels = calloc(pctx.nkernels + 1, sizeof(*m->kernels));
	if (!m->kernels)
		goto oom;
	m->nkernels = pctx.nkernels;
	for (size_t i = 0; i < pctx.nkernels; i++) {
		struct coloc_kernel_info *ki = &m->kernels[i];

		if (kernel_info_fill(ki, &pctx.kernels[i]) < 0)
			goto oom;
		coloc_stat_add(STAT_KERNELS, 1);
		coloc_stat_add(STAT_KERNELS_SLICE, ki->variant[VARIANT_SLICE] != NULL);
		coloc_stat_add(STAT_KERNELS_PTB, ki->variant[VARIANT_PTB] != NULL);
		coloc_sched_count(ki->variant[VARIANT_SLICE] || ki->variant[VARIANT_PTB] ?
					  TC_KERNELS : TC_KERNELS_REFUSED, 1);
		for (int f = 0; f < VARIANT_FORMS; f++)
			if (ki->refused[f]) {
				char why[600];

				snprintf(why, sizeof(why), "%s: %s", f == VARIANT_SLICE ? "slice" : "ptb",
					 ki->refused[f]);
				coloc_stat_refusal(why);
				coloc_log(COLOC_LOG_INFO, "kernel '%s': no %s form: %s", ki->name,
					  f == VARIANT_SLICE ? "sliced" : "persistent", ki->refused[f]);
			}
	}
	/* The driver reads PTX up to its NUL: coloc_buf_cstr puts one after it. */
	if (ptx_module_print(pm, &m->variant_ptx) < 0 || !coloc_buf_cstr(&m->variant_ptx) ||
	    pass_manifest_write(&pctx, "module.ptx", &m->manifest) < 0)
		goto oom;
	rc = 0;
	goto out;
oom:
	fail(m, "out of memory transforming it%s", "");
out:
	pass_ctx_release(&pctx);
	ptx_module_free(pm);
	return rc;
}

/* ---- the cache */

static int read_file(const char *path, struct coloc_buf *out)
{
	coloc_buf_init(out);
	if (coloc_buf_read_file(out, path) < 0) {
		coloc_buf_release(out);
		return -1;
	}
	return 0;
}

static void key_for(const struct coloc_module *m, char variant, char key[65])
{
	struct coloc_target t = { .sm = m->sm, .variant = variant };

	coloc_cache_key_passes(&t, m->options, m->options_len,
			       pass_cache_options(m->restart, m->read_copy, m->restart && m->resume), m->ptx, m->ptx_len, key);
}

/* Whether directory `dir` (`len` bytes of it) holds the entry `key`; `path` gets its cubin's path. */
#define PATH_BYTES 8192
static bool entry_at(const char *dir, size_t len, const char *key, char *path)
{
	snprintf(path, PATH_BYTES, "%.*s/%s/module.cubin", (int)len, dir, key);
	return len && access(path, R_OK) == 0;
}

/* entry_at for the first of the colon-separated `dirs` that holds it. */
static bool entry_in(const char *dirs, const char *key, char *path)
{
	while (*dirs) {
		size_t n = strcspn(dirs, ":");

		if (entry_at(dirs, n, key, path))
			return true;
		dirs += n + (dirs[n] == ':');
	}
	return false;
}

/*
 * Whether the module's persistent variants give stopped blocks up, decided
 * before it is transformed (the kernels' parameters and the cache key follow
 * it).  COLOC_RESTART=1 (the default) makes them so, unless no cache has
 * such variants and an AOT cache has the others (`colocc --aot
 * --no-ptb-restart`, or a colocc older than the default): those are used as
 * they are, and the log says that this module's stopped blocks are finished,
 * not given up.  Likewise with COLOC_RESUME unset (resuming by default):
 * an AOT cache's variants made without --ptb-resume are used as they are.
 * With COLOC_STOP_READ=copy or COLOC_RESUME=1 set, an AOT cache that has
 * the module's restart variants made without them does not count as "no
 * cache": the variants asked for are compiled here.
 */
static bool module_restart(struct coloc_module *m)
{
	char variants[2] = { m->sm >= 90 ? 'a' : 0, 0 }, key[65], path[PATH_BYTES];
	int nvariants = m->sm >= 90 ? 2 : 1;
	bool found = false;

	if (!coloc_cfg.restart || !coloc_cfg.aot_dirs[0])
		return coloc_cfg.restart;
	m->restart = true;
	for (int v = 0; v < nvariants; v++) {
		key_for(m, variants[v], key);
		if (entry_in(coloc_cfg.aot_dirs, key, path) ||
		    entry_at(coloc_cfg.cache_dir, strlen(coloc_cfg.cache_dir), key, path))
			return true;
	}
	/*
	 * Resuming by default (COLOC_RESUME unset) and an AOT cache made without
	 * --ptb-resume (`colocc --aot --no-ptb-resume`, or a colocc older than
	 * the default): its variants are used as they are, as for restart below.
	 */
	if (m->resume && !coloc_cfg.resume_said) {
		m->resume = false;
		for (int v = 0; v < nvariants && !found; v++) {
			key_for(m, variants[v], key);
			found = entry_in(coloc_cfg.aot_dirs, key, path);
		}
		if (found) {
			coloc_log(COLOC_LOG_INFO, "%s: variants from an AOT cache made without "
				  "--ptb-resume: its blocks given up at a stop run again from their "
				  "start, not resumed", m->origin);
			return true;
		}
		m->resume = true;
	}
	/*
	 * COLOC_STOP_READ=copy or COLOC_RESUME=1 and an AOT cache with this
	 * module's variants made without them: compiled here as asked, rather
	 * than taking an AOT entry made without --ptb-restart that may sit
	 * beside them.
	 */
	if (m->read_copy || m->resume) {
		bool copy = m->read_copy, resume = m->resume, lack_copy = false, lack_resume = false;

		/* Restart variants made without one or both of the options asked. */
		for (int c = 0; c <= copy && !found; c++)
			for (int r = 0; r <= resume && !found; r++) {
				m->read_copy = c;
				m->resume = r;
				if (c == copy && r == resume)
					continue;
				for (int v = 0; v < nvariants && !found; v++) {
					key_for(m, variants[v], key);
					found = entry_in(coloc_cfg.aot_dirs, key, path);
				}
				lack_copy = c != copy;
				lack_resume = r != resume;
			}
		m->read_copy = copy;
		m->resume = resume;
		if (found) {
			/* What the entry lacks, and what is asked (resume perhaps by default). */
			coloc_log(COLOC_LOG_INFO, "%s: an AOT cache has variants made without %s%s%s; "
				  "compiled here with %s%s%s%s", m->origin,
				  lack_copy ? "--ptb-stop-read=copy" : "",
				  lack_copy && lack_resume ? " or " : "",
				  lack_resume ? "--ptb-resume" : "", copy ? "COLOC_STOP_READ=copy" : "",
				  copy && resume ? " and " : "", resume ? "COLOC_RESUME=1" : "",
				  resume && !coloc_cfg.resume_said ? " (the default)" : "");
			return true;
		}
	}
	m->restart = false;
	for (int v = 0; v < nvariants && !found; v++) {
		key_for(m, variants[v], key);
		found = entry_in(coloc_cfg.aot_dirs, key, path);
	}
	m->restart = !found;
	if (found)
		coloc_log(COLOC_LOG_INFO, "%s: variants from an AOT cache made without "
			  "--ptb-restart: its stopped blocks are finished, not given up", m->origin);
	return m->restart;
}

void coloc_module_key(struct coloc_module *m, char key[65])
{
	pthread_mutex_lock(&m->lock);
	if (!m->key[0])
		key_for(m, 0, m->key);
	memcpy(key, m->key, sizeof(m->key));
	pthread_mutex_unlock(&m->lock);
}

/* The cubin of the module in the caches, and which cache it came from. */
static int cache_find(const struct coloc_module *m, struct coloc_buf *cubin, enum coloc_stat *from)
{
	char variants[2] = { m->sm >= 90 ? 'a' : 0, 0 };
	int nvariants = m->sm >= 90 ? 2 : 1;
	char key[65], path[PATH_BYTES];

	for (int v = 0; v < nvariants; v++) {
		key_for(m, variants[v], key);
		if (entry_in(coloc_cfg.aot_dirs, key, path) && read_file(path, cubin) == 0) {
			*from = STAT_VARIANTS_AOT;
			coloc_log(COLOC_LOG_DEBUG, "%s: variants from %s", m->origin, path);
			return 0;
		}
		if (entry_at(coloc_cfg.cache_dir, strlen(coloc_cfg.cache_dir), key, path) &&
		    read_file(path, cubin) == 0) {
			*from = STAT_VARIANTS_CACHED;
			coloc_log(COLOC_LOG_DEBUG, "%s: variants from %s", m->origin, path);
			return 0;
		}
	}
	return -1;
}

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[8192 + 64];
	int fd;
	ssize_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < len; done += (size_t)n) {
		n = write(fd, (const char *)data + done, len - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

static void remove_dir(const char *dir)
{
	static const char *const files[] = { "module.ptx", "module.cubin", "manifest.json",
					     "key.txt" };
	char path[8192 + 64];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* Stores a compiled module under its key; another process may win the race. */
static void cache_store(const struct coloc_module *m, const void *cubin, size_t size)
{
	char key[65], tmp[8192], final[8192];
	struct coloc_buf keytxt;

	if (!coloc_cfg.cache_dir[0])
		return;
	key_for(m, m->sm >= 90 ? 'a' : 0, key);
	if (coloc_mkdirs(coloc_cfg.cache_dir, 0777) < 0) {
		coloc_log(COLOC_LOG_WARN, "cannot create the cache directory '%s': %s",
			  coloc_cfg.cache_dir, strerror(errno));
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s/.tmp-%s-%ld-%lx", coloc_cfg.cache_dir, key, (long)getpid(),
		 (unsigned long)pthread_self());
	snprintf(final, sizeof(final), "%s/%s", coloc_cfg.cache_dir, key);
	coloc_buf_init(&keytxt);
	coloc_buf_printf(&keytxt,
			 "format %d\ncolocc %s\ntarget sm_%u%s\nptxas_options %s\nsource %s\n"
			 "ptx_bytes %zu\nkey %s\ncompiled_by driver\n",
			 COLOC_CACHE_FORMAT, COLOC_VERSION, m->sm, m->sm >= 90 ? "a" : "",
			 m->options ? m->options : "", m->origin, m->ptx_len, key);
	if (mkdir(tmp, 0777) < 0 || write_file(tmp, "module.ptx", m->variant_ptx.data, m->variant_ptx.len) < 0 ||
	    write_file(tmp, "manifest.json", m->manifest.data, m->manifest.len) < 0 ||
	    write_file(tmp, "key.txt", keytxt.data, keytxt.len) < 0 ||
	    write_file(tmp, "module.cubin", cubin, size) < 0) {
		coloc_log(COLOC_LOG_WARN, "cannot write the cache entry '%s': %s", tmp,
			  strerror(errno));
		remove_dir(tmp);
	} else if (rename(tmp, final) < 0) {
		/* Already there: written by another process since we looked. */
		remove_dir(tmp);
	}
	coloc_buf_release(&keytxt);
}

/* The driver's linker on PTX; `log` gets the first line of its error log. */
static CUresult link_ptx(const struct coloc_buf *ptx, struct coloc_buf *cubin, char *log,
			 size_t logsize)
{
	CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)(uintptr_t)logsize };
	CUlinkState state = NULL;
	void *out = NULL;
	size_t size = 0;
	CUresult rc;

	log[0] = '\0';
	rc = REAL(cuLinkCreate_v2)(2, opts, vals, &state);
	if (rc == CUDA_SUCCESS)
		rc = REAL(cuLinkAddData_v2)(state, CU_JIT_INPUT_PTX, ptx->data, ptx->len + 1,
					    "colocc-variants.ptx", 0, NULL, NULL);
	if (rc == CUDA_SUCCESS)
		rc = REAL(cuLinkComplete)(state, &out, &size);
	if (rc == CUDA_SUCCESS) {
		coloc_buf_init(cubin);
		coloc_buf_put(cubin, out, size);
		if (cubin->failed) {
			coloc_buf_release(cubin);
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	if (state)
		REAL(cuLinkDestroy)(state);
	log[logsize - 1] = '\0';
	log[strcspn(log, "\n")] = '\0';
	return rc;
}

/*
 * Variants that lost occupancy to ptxas (regcap.h) are compiled again with
 * .maxnreg at their original's limit; m->variant_ptx and *cubin become the
 * capped ones.  When that fails, the first compile stands, and the log says so.
 */
static void cap_registers(struct coloc_module *m, struct coloc_buf *cubin)
{
	struct coloc_arena arena;
	struct coloc_diag diag;
	struct coloc_cubin cb;
	struct coloc_buf ptx, capped;
	struct pass_regcap *caps;
	char log[4096];
	CUresult rc;
	int n, made;

	coloc_arena_init(&arena);
	coloc_diag_init(&diag, m->origin, NULL);
	diag.emit = diag_to_debug; /* a cubin colocc cannot read only means no caps */
	if (coloc_cubin_read(&cb, &arena, cubin->data, cubin->len, &diag) < 0 ||
	    (n = pass_regcap_plan(&cb, &arena, &caps)) <= 0)
		goto out;
	made = pass_regcap_ptx(m->variant_ptx.data, m->variant_ptx.len, m->origin, caps,
			       (size_t)n, &ptx, &diag);
	if (made <= 0) {
		if (made < 0)
			coloc_log(COLOC_LOG_WARN, "%s: persistent variants that take more registers "
				  "than their originals could not be capped; they run at lower "
				  "occupancy", m->origin);
		goto out;
	}
	rc = link_ptx(&ptx, &capped, log, sizeof(log));
	if (rc != CUDA_SUCCESS) {
		coloc_log(COLOC_LOG_WARN, "%s: the driver could not compile %d register-capped "
			  "persistent variants (error %d%s%.400s); they run at lower occupancy",
			  m->origin, made, rc, log[0] ? ": " : "", log);
		coloc_buf_release(&ptx);
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (caps[i].made)
			coloc_log(COLOC_LOG_INFO, "%s: '%s' capped at %u registers (it took %u, its "
				  "original %u)", m->origin, caps[i].variant, caps[i].cap,
				  caps[i].used, caps[i].original);
	coloc_buf_release(&m->variant_ptx);
	m->variant_ptx = ptx;
	coloc_buf_release(cubin);
	*cubin = capped;
out:
	coloc_arena_release(&arena);
}

/* Compiles the transformed PTX with the driver's linker. */
static int compile(struct coloc_module *m, struct coloc_buf *cubin)
{
	char log[4096];
	CUresult rc = link_ptx(&m->variant_ptx, cubin, log, sizeof(log));

	if (rc != CUDA_SUCCESS) {
		char why[600];

		snprintf(why, sizeof(why), "the driver could not compile its variants (error %d%s%.400s)",
			 rc, log[0] ? ": " : "", log);
		fail(m, "%s", why);
		return -1;
	}
	cap_registers(m, cubin);
	return 0;
}

/*
 * The names of a compiled module's register-capped copies (regcap.h) in
 * v->capped; none when the cubin cannot be read (its copies, if any, are
 * then not used: a debug line says why) or memory runs out.
 */
static void find_capped(struct coloc_variant_module *v, const struct coloc_buf *cubin)
{
	struct coloc_arena arena;
	struct coloc_diag diag;
	struct coloc_cubin cb;
	unsigned cap;

	coloc_arena_init(&arena);
	coloc_diag_init(&diag, "compiled variants", NULL);
	diag.emit = diag_to_debug;
	if (coloc_cubin_read(&cb, &arena, cubin->data, cubin->len, &diag) == 0) {
		for (size_t i = 0; i < cb.nkernels; i++) {
			char **grown, *name;

			if (!pass_regcap_parse(cb.kernels[i].name, &cap))
				continue;
			grown = realloc(v->capped, (v->ncapped + 1) * sizeof(*grown));
			name = grown ? strdup(cb.kernels[i].name) : NULL;
			if (grown)
				v->capped = grown;
			if (!name)
				break;
			v->capped[v->ncapped++] = name;
		}
	}
	coloc_arena_release(&arena);
}

/* Loads the module's variants into `ctx` (once). */
static struct coloc_variant_module *load_in(struct coloc_module *m, CUcontext ctx)
{
	struct coloc_variant_module *v;
	struct coloc_buf cubin;
	enum coloc_stat from = STAT_VARIANTS_COMPILED;
	CUresult rc;

	for (v = m->loaded; v; v = v->next)
		if (v->ctx == ctx)
			return v;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->ctx = ctx;
	if (cache_find(m, &cubin, &from) < 0) {
		if (compile(m, &cubin) < 0) {
			free(v);
			return NULL;
		}
		cache_store(m, cubin.data, cubin.len);
	}
	rc = REAL(cuModuleLoadData)(&v->module, cubin.data);
	if (rc == CUDA_SUCCESS)
		find_capped(v, &cubin);
	coloc_buf_release(&cubin);
	if (rc != CUDA_SUCCESS) {
		char why[64];

		snprintf(why, sizeof(why), "%d", rc);
		fail(m, "the driver could not load its compiled variants (error %s)", why);
		free(v);
		return NULL;
	}
	coloc_stat_add(from, 1);
	v->next = m->loaded;
	m->loaded = v;
	return v;
}

static void apply_attrs_to(struct coloc_kernel_info *k, CUfunction fn, const char *form)
{
	for (int a = 0; a < CU_FUNC_ATTRIBUTE_MAX; a++)
		if (k->attr_set & (1u << a) && REAL(cuFuncSetAttribute)(fn, a, k->attr[a]) != CUDA_SUCCESS)
			coloc_log(COLOC_LOG_WARN, "kernel '%s': attribute %d could not be set on its %s "
				  "form", k->name, a, form);
	if (k->cache_config_set)
		REAL(cuFuncSetCacheConfig)(fn, k->cache_config);
}

static void apply_attrs(struct coloc_kernel_info *k, struct coloc_kernel_fns *f)
{
	if (f->attrs_applied == k->attrs_generation)
		return;
	for (int i = 0; i < VARIANT_FORMS; i++)
		if (f->fn[i])
			apply_attrs_to(k, f->fn[i], k->variant[i]);
	for (unsigned i = 1; i < f->ptb.n; i++)
		apply_attrs_to(k, f->ptb.e[i].fn, "register-capped persistent");
	for (unsigned i = 0; i < f->fresh.n; i++)
		apply_attrs_to(k, f->fresh.e[i].fn, i ? "register-capped one-block-a-worker persistent"
						      : "one-block-a-worker persistent");
	/* An attribute (shared memory, carveout) may change how many blocks fit. */
	for (unsigned i = 0; i < f->ptb.n; i++)
		__atomic_store_n(&f->ptb.e[i].wave_memo, 0, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < f->fresh.n; i++)
		__atomic_store_n(&f->fresh.e[i].wave_memo, 0, __ATOMIC_RELAXED);
	f->attrs_applied = k->attrs_generation;
}

/*
 * `lv`: `fn`, the variant `variant`, and the register-capped copies of it
 * that the module `v` has (absent is normal: regcap.h), highest cap first.
 */
static void levels_find(struct coloc_levels *lv, CUfunction fn,
			const struct coloc_variant_module *v, const char *variant)
{
	const char *rest = variant + strlen(COLOC_PREFIX), *of;
	unsigned cap;

	lv->e[0] = (struct coloc_level){ .fn = fn };
	lv->n = 1;
	/* Each copy of the variant goes in by its cap. */
	for (size_t i = 0; i < v->ncapped && lv->n < sizeof(lv->e) / sizeof(lv->e[0]); i++) {
		struct coloc_level c = { .fn = NULL };
		unsigned j;

		if (!(of = pass_regcap_parse(v->capped[i], &cap)) || strcmp(of, rest) != 0 ||
		    REAL(cuModuleGetFunction)(&c.fn, v->module, v->capped[i]) != CUDA_SUCCESS)
			continue;
		c.cap = cap;
		for (j = lv->n; j > 1 && lv->e[j - 1].cap < cap; j--)
			lv->e[j] = lv->e[j - 1];
		lv->e[j] = c;
		lv->n++;
	}
}

struct coloc_kernel_fns *coloc_variants_for(struct coloc_module *m, const char *name,
					    struct coloc_kernel_info **info)
{
	struct coloc_variant_module *v = NULL;
	struct coloc_kernel_info *k;
	struct coloc_kernel_fns *f = NULL;
	CUcontext ctx = NULL;
	CUfunction fn;

	*info = NULL;
	if (!m->ptx)
		return NULL;
	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx)
		return NULL;
	pthread_mutex_lock(&m->lock);
	if (m->state == MODULE_NEW) {
		m->restart = module_restart(m);
		m->key[0] = '\0'; /* asked for before, it followed the setting */
		if (transform(m) == 0)
			m->state = MODULE_READY;
	}
	k = m->state == MODULE_READY ? coloc_module_kernel(m, name) : NULL;
	*info = k;
	if (!k || (!k->variant[VARIANT_SLICE] && !k->variant[VARIANT_PTB]))
		goto out;
	for (f = k->fns; f && f->ctx != ctx; f = f->next)
		;
	if (!f) {
		v = load_in(m, ctx);
		if (!v)
			goto out;
		f = calloc(1, sizeof(*f));
		if (!f)
			goto out;
		f->ctx = ctx;
		for (int i = 0; i < VARIANT_FORMS; i++)
			if (k->variant[i] &&
			    REAL(cuModuleGetFunction)(&f->fn[i], v->module, k->variant[i]) != CUDA_SUCCESS)
				coloc_log(COLOC_LOG_WARN, "kernel '%s': its %s form is missing from the "
					  "compiled variants", k->name, k->variant[i]);
		if (f->fn[VARIANT_PTB]) {
			char fresh[4096];

			levels_find(&f->ptb, f->fn[VARIANT_PTB], v, k->variant[VARIANT_PTB]);
			/* Its one-block-a-worker variant, where the passes made one (ptb.c). */
			snprintf(fresh, sizeof(fresh), "%sfresh_%s", COLOC_PREFIX, k->name);
			if (!k->ptb_global_slots &&
			    REAL(cuModuleGetFunction)(&fn, v->module, fresh) == CUDA_SUCCESS)
				levels_find(&f->fresh, fn, v, fresh);
		}
		f->attrs_applied = (unsigned)-1;
		f->next = k->fns;
		k->fns = f;
	}
	apply_attrs(k, f);
out:
	pthread_mutex_unlock(&m->lock);
	return f;
}
