/*
 * colocc --aot: ready-to-run variants ahead of deployment.
 *
 * For every PTX module of the inputs, the passes make the sliced and
 * persistent variants, ptxas compiles the transformed module for the target,
 * and the result becomes one entry of the cache (cache.h for the layout and
 * the key).  A module whose key is in the cache is not looked at again.
 *
 * Transformation runs in this process; ptxas runs as up to `jobs` child
 * processes at once, each in the entry's temporary directory
 * CACHE/.tmp-<key>-<pid>.  When one finishes, its cubin and PTX are packed
 * into module.fatbin and the directory is renamed into place, so a reader
 * sees an entry whole or not at all, and two colocc runs filling one cache
 * at once both succeed (the second rename finds the entry there).  When the
 * first cubin shows variants that take more registers than their originals'
 * occupancy allows, ptxas runs once more on the PTX with register caps
 * (regcap.h); the entry keeps the capped PTX.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aot.h"
#include "coloc/version.h"
#include "fatbin.h"
#include "pass.h"
#include "regcap.h"

extern char **environ;

#define MAX_PTXAS_OPTIONS 16
/* Paths in the cache; aot_init refuses cache paths that would not fit. */
#define AOT_PATH 4096
#define AOT_MAX_CACHE_PATH 3800

/* a/b into buf; aot_init's bound on the cache path keeps this from truncating. */
static void join(char buf[AOT_PATH], const char *a, const char *b)
{
	int n = snprintf(buf, AOT_PATH, "%s/%s", a, b);

	if (n < 0 || n >= AOT_PATH)
		buf[0] = '\0';
}

struct aot_job {
	pid_t pid; /* 0: free */
	char key[65];
	char tmp[AOT_PATH];
	char *origin;
	struct coloc_target ptx_target; /* the PTX's own .target, for the fatbin */
	bool kept;                      /* failed, and moved to CACHE/.failed */
	bool capped;                    /* ptxas runs again, on register caps */
	char *options;                  /* the entry's ptxas options, for that run */
	size_t options_len;
	size_t kernels, sliced, persistent, refused;
};

static const char *const entry_files[] = {"module.ptx", "module.cubin", "module.fatbin",
					  "manifest.json", "key.txt", "ptxas.log"};

static void remove_entry_dir(const char *dir)
{
	char path[AOT_PATH];
	size_t i;

	for (i = 0; i < sizeof(entry_files) / sizeof(entry_files[0]); i++) {
		join(path, dir, entry_files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static int write_file(const char *path, const void *data, size_t len, struct coloc_diag *diag)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f) {
		coloc_error(diag, PTX_NOLOC, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	if (len && fwrite(data, 1, len, f) != len)
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (err) {
		coloc_error(diag, PTX_NOLOC, "writing '%s': %s", path, strerror(err));
		return -1;
	}
	return 0;
}

static int is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* ptxas: --ptxas, else $CUDA_HOME/bin/ptxas, else the PATH, else /usr/local/cuda. */
static int find_ptxas(struct aot *a, struct coloc_diag *diag)
{
	const char *cuda = getenv("CUDA_HOME");
	const char *path = getenv("PATH");
	char *buf = a->ptxas;
	size_t size = sizeof(a->ptxas);

	if (a->o.ptxas) {
		snprintf(buf, size, "%s", a->o.ptxas);
		if (access(buf, X_OK) == 0 && !is_dir(buf))
			return 0;
		coloc_error(diag, PTX_NOLOC, "--ptxas: '%s' is not an executable file", a->o.ptxas);
		return -1;
	}
	if (cuda && *cuda) {
		snprintf(buf, size, "%s/bin/ptxas", cuda);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(buf, size, "%.*s/ptxas", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return 0;
		path = colon ? colon + 1 : NULL;
	}
	snprintf(buf, size, "/usr/local/cuda/bin/ptxas");
	if (access(buf, X_OK) == 0)
		return 0;
	coloc_error(diag, PTX_NOLOC, "ptxas not found in $CUDA_HOME/bin, the PATH or "
		    "/usr/local/cuda/bin; give --ptxas=PATH");
	return -1;
}

int aot_init(struct aot *a, const struct aot_options *o, struct coloc_diag *diag)
{
	memset(a, 0, sizeof(*a));
	a->o = *o;
	if (a->o.jobs == 0)
		a->o.jobs = 1;
	a->jobs = calloc(a->o.jobs, sizeof(*a->jobs));
	if (!a->jobs) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		return -1;
	}
	if (strlen(o->cache) > AOT_MAX_CACHE_PATH) {
		coloc_error(diag, PTX_NOLOC, "the cache directory's path is longer than %d bytes",
			    AOT_MAX_CACHE_PATH);
		return -1;
	}
	if (find_ptxas(a, diag) < 0)
		return -1;
	if (is_dir(o->cache))
		return 0;
	/* Another colocc may create it at the same moment. */
	if (mkdir(o->cache, 0777) < 0 && !(errno == EEXIST && is_dir(o->cache))) {
		coloc_error(diag, PTX_NOLOC, "cannot create the cache directory '%s': %s", o->cache,
			    errno == EEXIST ? "a file of that name exists" : strerror(errno));
		return -1;
	}
	return 0;
}

/* ptxas -arch=ARCH [the entry's options] module.ptx -o module.cubin, output to ptxas.log. */
static int ptxas_start(struct aot *a, struct aot_job *j, const char *options, size_t options_len,
		       struct coloc_diag *diag)
{
	char archopt[64], optbuf[512];
	char *argv[MAX_PTXAS_OPTIONS + 8];
	char in[AOT_PATH], out[AOT_PATH], log[AOT_PATH];
	posix_spawn_file_actions_t fa;
	unsigned argc = 0;
	char *p, *save = NULL;
	int rc;

	snprintf(archopt, sizeof(archopt), "-arch=%s", a->o.arch);
	join(in, j->tmp, "module.ptx");
	join(out, j->tmp, "module.cubin");
	join(log, j->tmp, "ptxas.log");
	argv[argc++] = a->ptxas;
	argv[argc++] = archopt;
	/* The entry's options (-rdc's --compile-only, -G's -g ...) are what the driver would use. */
	if (options_len >= sizeof(optbuf)) {
		coloc_error(diag, PTX_NOLOC, "the entry's ptxas options are %zu bytes long",
			    options_len);
		return -1;
	}
	memcpy(optbuf, options ? options : "", options_len);
	optbuf[options_len] = '\0';
	for (p = strtok_r(optbuf, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		if (p[0] != '-' || argc == MAX_PTXAS_OPTIONS + 2) {
			coloc_error(diag, PTX_NOLOC, "unexpected ptxas options in the entry: '%.*s'",
				    (int)options_len, options);
			return -1;
		}
		argv[argc++] = p;
	}
	argv[argc++] = in;
	argv[argc++] = (char *)"-o";
	argv[argc++] = out;
	argv[argc] = NULL;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	rc = posix_spawn(&j->pid, a->ptxas, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		j->pid = 0;
		coloc_error(diag, PTX_NOLOC, "cannot run '%s': %s", a->ptxas, strerror(rc));
		return -1;
	}
	a->running++;
	return 0;
}

/* The transformed PTX and its cubin in one fatbin, as the runtime can load it. */
static int write_fatbin(struct aot *a, struct aot_job *j, struct coloc_diag *diag)
{
	struct coloc_buf ptx, cubin, fatbin;
	struct coloc_fatbin_image im[2];
	char path[AOT_PATH];
	int rc = -1;

	coloc_buf_init(&ptx);
	coloc_buf_init(&cubin);
	coloc_buf_init(&fatbin);
	join(path, j->tmp, "module.ptx");
	if (coloc_buf_read_file(&ptx, path) < 0)
		goto out;
	join(path, j->tmp, "module.cubin");
	if (coloc_buf_read_file(&cubin, path) < 0)
		goto out;
	memset(im, 0, sizeof(im));
	im[0].kind = COLOC_FATBIN_ELF;
	im[0].sm = a->o.target.sm;
	im[0].variant = a->o.target.variant;
	im[0].data = cubin.data;
	im[0].size = cubin.len;
	im[1].kind = COLOC_FATBIN_PTX;
	im[1].sm = j->ptx_target.sm;
	im[1].variant = j->ptx_target.variant;
	im[1].data = ptx.data;
	im[1].size = ptx.len;
	if (coloc_fatbin_write(&fatbin, im, 2, diag) < 0)
		goto out;
	join(path, j->tmp, "module.fatbin");
	rc = write_file(path, fatbin.data, fatbin.len, diag);
out:
	if (rc < 0 && !diag->nerrors)
		coloc_error(diag, PTX_NOLOC, "cannot read back what ptxas wrote in '%s'", j->tmp);
	coloc_buf_release(&ptx);
	coloc_buf_release(&cubin);
	coloc_buf_release(&fatbin);
	return rc;
}

/*
 * Moves a failed entry to CACHE/.failed/<key>, out of the runtime's way, for
 * the user to look at; the log then names the files where they are now.
 */
static void keep_failed(struct aot *a, struct aot_job *j, struct coloc_buf *log)
{
	char dir[AOT_PATH], dest[AOT_PATH];
	struct coloc_buf fixed;
	size_t n = strlen(j->tmp), i;

	join(dir, a->o.cache, ".failed");
	join(dest, dir, j->key);
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return;
	if (is_dir(dest))
		remove_entry_dir(dest); /* from an earlier run */
	if (rename(j->tmp, dest) < 0)
		return;
	j->kept = true;
	coloc_buf_init(&fixed);
	for (i = 0; i < log->len; i++) {
		if (log->len - i >= n && memcmp(log->data + i, j->tmp, n) == 0) {
			coloc_buf_puts(&fixed, dest);
			i += n - 1;
		} else {
			coloc_buf_putc(&fixed, log->data[i]);
		}
	}
	if (!fixed.failed) {
		coloc_buf_release(log);
		*log = fixed;
	} else {
		coloc_buf_release(&fixed);
	}
	memcpy(j->tmp, dest, sizeof(dest));
}

/*
 * After the first ptxas of an entry: variants whose registers cost them
 * occupancy get .maxnreg, and ptxas starts again.  Returns 1 when it did,
 * 0 when no variant needs it, -1 after a diagnostic.
 */
static int recompile_capped(struct aot *a, struct aot_job *j, struct coloc_diag *diag)
{
	struct coloc_buf cubin, ptx, capped;
	struct coloc_arena arena;
	struct coloc_cubin cb;
	struct pass_regcap *caps;
	char path[AOT_PATH];
	int n, made, rc = -1;

	coloc_buf_init(&cubin);
	coloc_buf_init(&ptx);
	coloc_buf_init(&capped);
	coloc_arena_init(&arena);
	join(path, j->tmp, "module.cubin");
	if (coloc_buf_read_file(&cubin, path) < 0) {
		coloc_error(diag, PTX_NOLOC, "cannot read back what ptxas wrote in '%s'", j->tmp);
		goto out;
	}
	if (coloc_cubin_read(&cb, &arena, cubin.data, cubin.len, diag) < 0)
		goto out;
	n = pass_regcap_plan(&cb, &arena, &caps);
	if (n <= 0) {
		rc = n < 0 ? -1 : 0;
		if (n < 0)
			coloc_error(diag, PTX_NOLOC, "out of memory");
		goto out;
	}
	join(path, j->tmp, "module.ptx");
	if (coloc_buf_read_file(&ptx, path) < 0) {
		coloc_error(diag, PTX_NOLOC, "cannot read back '%s'", path);
		goto out;
	}
	made = pass_regcap_ptx(ptx.data, ptx.len, j->origin, caps, (size_t)n, &capped, diag);
	if (made <= 0) {
		rc = made < 0 ? -1 : 0;
		goto out;
	}
	if (write_file(path, capped.data, capped.len, diag) < 0)
		goto out;
	for (int i = 0; a->o.verbose && i < n; i++)
		if (caps[i].made)
			printf("%s: %.16s: %s capped at %u registers (it took %u, its original %u)\n",
			       j->origin, j->key, caps[i].variant, caps[i].cap, caps[i].used,
			       caps[i].original);
	j->capped = true;
	a->running--; /* ptxas_start counts the new process */
	if (ptxas_start(a, j, j->options, j->options_len, diag) < 0) {
		a->running++;
		goto out;
	}
	rc = 1;
out:
	coloc_arena_release(&arena);
	coloc_buf_release(&cubin);
	coloc_buf_release(&ptx);
	coloc_buf_release(&capped);
	return rc;
}

/* A ptxas process ended: finish its entry, or report why not. */
static void job_complete(struct aot *a, struct aot_job *j, int status)
{
	struct coloc_diag diag;
	int capped = 0;
	char final[AOT_PATH], log[AOT_PATH];

	coloc_diag_init(&diag, j->origin, stderr);
	join(final, a->o.cache, j->key);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		struct coloc_buf msg;

		coloc_buf_init(&msg);
		join(log, j->tmp, "ptxas.log");
		coloc_buf_read_file(&msg, log);
		while (msg.len && msg.data[msg.len - 1] == '\n')
			msg.len--;
		keep_failed(a, j, &msg);
		coloc_error(&diag, PTX_NOLOC, "ptxas -arch=%s failed on the transformed module%s%s%s:\n%s",
			    a->o.arch, WIFSIGNALED(status) ? " (killed by a signal)" : "",
			    j->kept ? ", which is kept in " : "", j->kept ? j->tmp : "",
			    coloc_buf_cstr(&msg) ? msg.data : "");
		coloc_buf_release(&msg);
	} else if (!j->capped && (capped = recompile_capped(a, j, &diag)) == 1) {
		return; /* completes when that ptxas ends */
	} else if (capped == 0 && write_fatbin(a, j, &diag) == 0) {
		struct stat sb;

		/* ptxas's warnings stay with the entry; an empty log goes. */
		join(log, j->tmp, "ptxas.log");
		if (stat(log, &sb) == 0 && sb.st_size == 0)
			unlink(log);
		if (rename(j->tmp, final) == 0) {
			a->st.compiled++;
			a->st.kernels += j->kernels;
			a->st.sliced += j->sliced;
			a->st.persistent += j->persistent;
			a->st.refused += j->refused;
			if (a->o.verbose)
				printf("%s: %.16s compiled for %s: %zu kernels, %zu sliced, %zu "
				       "persistent, %zu with a refusal\n",
				       j->origin, j->key, a->o.arch, j->kernels, j->sliced,
				       j->persistent, j->refused);
		} else if (errno == EEXIST || errno == ENOTEMPTY) {
			/* Another colocc finished the same entry first; theirs is as good. */
			a->st.cached++;
		} else {
			coloc_error(&diag, PTX_NOLOC, "cannot rename '%s' to '%s': %s", j->tmp, final,
				    strerror(errno));
		}
	}
	if (diag.nerrors)
		a->st.failed++;
	if (!j->kept && is_dir(j->tmp))
		remove_entry_dir(j->tmp);
	free(j->origin);
	free(j->options);
	j->origin = NULL;
	j->options = NULL;
	j->pid = 0;
	a->running--;
}

/* Waits for one ptxas to end. */
static void wait_one(struct aot *a)
{
	unsigned i;
	int status;
	pid_t pid;

	do
		pid = waitpid(-1, &status, 0);
	while (pid < 0 && errno == EINTR);
	if (pid < 0) {
		/* No child left to wait for: nothing will complete the entries. */
		for (i = 0; i < a->o.jobs; i++)
			if (a->jobs[i].pid)
				job_complete(a, &a->jobs[i], 0x7f00);
		return;
	}
	for (i = 0; i < a->o.jobs; i++)
		if (a->jobs[i].pid == pid) {
			job_complete(a, &a->jobs[i], status);
			return;
		}
}

unsigned aot_finish(struct aot *a)
{
	while (a->running)
		wait_one(a);
	fflush(stdout);
	return a->st.failed;
}

void aot_release(struct aot *a)
{
	aot_finish(a);
	free(a->jobs);
	a->jobs = NULL;
}

/* Sends refusals nowhere: --aot counts them; -v shows them. */
static void errors_only(void *ctx, enum coloc_diag_level level, const char *line)
{
	struct coloc_diag *to = ctx;

	if (level == COLOC_DIAG_ERROR && to->stream)
		fprintf(to->stream, "%s\n", line);
}

static bool target_runs(const struct coloc_target *ptx, const struct coloc_target *dev)
{
	if (ptx->sm > dev->sm)
		return false;
	if (ptx->variant == 'a')
		return ptx->sm == dev->sm && dev->variant == 'a';
	if (ptx->variant == 'f')
		return ptx->sm / 10 == dev->sm / 10;
	return true;
}

int aot_module(struct aot *a, const char *origin, const char *options, size_t options_len,
	       const char *ptx, size_t len, struct coloc_diag *diag)
{
	char key[65], final[AOT_PATH], path[AOT_PATH];
	struct ptx_module *m = NULL;
	struct pass_ctx pctx;
	struct coloc_diag quiet = *diag;
	struct coloc_buf out, manifest, keytxt;
	struct coloc_target ptx_target;
	struct aot_job *j = NULL;
	const char *tgt;
	unsigned errors = diag->nerrors, i;
	int rc = -1;

	a->st.modules++;
	coloc_cache_key_passes(&a->o.target, options, options_len,
			       pass_cache_options(a->o.ptb_restart, a->o.ptb_read_copy, a->o.ptb_resume), ptx, len, key);
	join(final, a->o.cache, key);
	for (i = 0; i < a->o.jobs; i++)
		if (a->jobs[i].pid && strcmp(a->jobs[i].key, key) == 0)
			break;
	if (i < a->o.jobs || is_dir(final)) {
		/* In the cache, or on its way there: the same module twice. */
		if (a->o.verbose)
			printf("%s: %.16s cached\n", origin, key);
		a->st.cached++;
		return 1;
	}

	pass_ctx_init(&pctx, diag);
	pctx.ptb_restart = a->o.ptb_restart;
	pctx.ptb_read_copy = a->o.ptb_read_copy;
	pctx.ptb_resume = a->o.ptb_resume;
	coloc_buf_init(&out);
	coloc_buf_init(&manifest);
	coloc_buf_init(&keytxt);
	m = ptx_parse(ptx, len, origin, diag);
	if (!m)
		goto out;
	tgt = ptx_module_target(m);
	if (!tgt || !coloc_target_parse(tgt, &ptx_target)) {
		coloc_error(diag, PTX_NOLOC, "the module's .target is %s%s%s; --aot compiles modules "
			    "whose target is an sm_XX architecture", tgt ? "'" : "",
			    tgt ? tgt : "missing", tgt ? "'" : "");
		goto out;
	}
	if (!target_runs(&ptx_target, &a->o.target)) {
		coloc_error(diag, PTX_NOLOC, "the module targets %s and cannot be compiled for %s", tgt,
			    a->o.arch);
		goto out;
	}
	quiet.emit = a->o.verbose ? NULL : errors_only;
	quiet.emit_ctx = diag;
	quiet.nerrors = quiet.nwarnings = 0;
	pctx.diag = &quiet;
	pctx.verify_each = 0;
	if (pass_pipeline_run(m, "slice,unisync,ptb", &pctx) < 0 || quiet.nerrors)
		goto out;
	/* Every form each kernel lacks was refused, with the reason in the manifest. */
	j = NULL;
	for (i = 0; i < a->o.jobs; i++)
		if (!a->jobs[i].pid)
			break;
	/*
	 * Every slot busy: wait until one frees.  A job that ends may start its
	 * register-capped compile in the same slot (job_complete), so one wait
	 * is not always enough.
	 */
	while (i == a->o.jobs && a->running) {
		wait_one(a);
		for (i = 0; i < a->o.jobs && a->jobs[i].pid; i++)
			;
	}
	if (i == a->o.jobs) {
		coloc_error(diag, PTX_NOLOC, "no ptxas slot came free");
		goto out;
	}
	j = &a->jobs[i];
	memset(j, 0, sizeof(*j));
	memcpy(j->key, key, sizeof(key));
	j->ptx_target = ptx_target;
	j->kernels = pctx.nkernels;
	for (i = 0; i < pctx.nkernels; i++) {
		int s = pctx.kernels[i].variant[PASS_FORM_SLICE] != NULL;
		int p = pctx.kernels[i].variant[PASS_FORM_PTB] != NULL;

		j->sliced += s;
		j->persistent += p;
		j->refused += !s || !p;
	}
	if (ptx_module_print(m, &out) < 0 || pass_manifest_write(&pctx, "module.ptx", &manifest) < 0) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		goto out;
	}
	coloc_buf_printf(&keytxt,
			 "format %d\ncolocc %s\ntarget %s\nptxas_options %.*s\nsource %s\n"
			 "ptx_bytes %zu\nkey %s\n",
			 COLOC_CACHE_FORMAT, COLOC_VERSION, a->o.arch, (int)options_len,
			 options ? options : "", origin, len, key);
	snprintf(path, sizeof(path), ".tmp-%s-%ld", key, (long)getpid());
	join(j->tmp, a->o.cache, path);
	if (is_dir(j->tmp))
		remove_entry_dir(j->tmp); /* left by a colocc of this pid that was killed */
	if (mkdir(j->tmp, 0777) < 0) {
		coloc_error(diag, PTX_NOLOC, "cannot create '%s': %s", j->tmp, strerror(errno));
		goto out;
	}
	join(path, j->tmp, "module.ptx");
	if (write_file(path, out.data, out.len, diag) < 0)
		goto fail;
	join(path, j->tmp, "manifest.json");
	if (write_file(path, manifest.data, manifest.len, diag) < 0)
		goto fail;
	join(path, j->tmp, "key.txt");
	if (write_file(path, keytxt.data, keytxt.len, diag) < 0)
		goto fail;
	j->origin = strdup(origin);
	j->options = malloc(options_len + 1);
	if (j->options) {
		memcpy(j->options, options ? options : "", options_len);
		j->options_len = options_len;
	}
	if (!j->origin || !j->options) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		goto fail;
	}
	if (ptxas_start(a, j, options, options_len, diag) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	free(j->origin);
	free(j->options);
	j->origin = NULL;
	j->options = NULL;
	remove_entry_dir(j->tmp);
out:
	diag->nerrors += quiet.nerrors;
	if (rc < 0 && diag->nerrors == errors)
		coloc_error(diag, PTX_NOLOC, "cannot transform this module");
	if (rc < 0)
		a->st.failed++;
	pass_ctx_release(&pctx);
	ptx_module_free(m);
	coloc_buf_release(&out);
	coloc_buf_release(&manifest);
	coloc_buf_release(&keytxt);
	return rc;
}
