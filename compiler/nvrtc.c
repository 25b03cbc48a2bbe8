/*
 * NVRTC is loaded with dlopen() when a .cu file is given, so colocc and the
 * runtime need no CUDA toolkit to build or to run on PTX.  The handful of
 * entry points used are declared here; their C ABI has been stable since
 * CUDA 7.
 */
#include "nvrtc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvrtc_result;
typedef struct nvrtc_program *nvrtc_program;

struct nvrtc_api {
	void *handle;
	nvrtc_result (*create)(nvrtc_program *, const char *, const char *, int,
			       const char *const *, const char *const *);
	nvrtc_result (*compile)(nvrtc_program, int, const char *const *);
	nvrtc_result (*ptx_size)(nvrtc_program, size_t *);
	nvrtc_result (*ptx)(nvrtc_program, char *);
	nvrtc_result (*log_size)(nvrtc_program, size_t *);
	nvrtc_result (*log)(nvrtc_program, char *);
	nvrtc_result (*destroy)(nvrtc_program *);
	const char *(*error_string)(nvrtc_result);
};

static void *nvrtc_open(struct coloc_buf *tried)
{
	static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
	const char *env = getenv("COLOC_NVRTC");
	const char *cuda = getenv("CUDA_HOME");
	char path[4096];
	void *h;
	size_t i;

	if (env && *env) {
		coloc_buf_printf(tried, "%s", env);
		return dlopen(env, RTLD_NOW | RTLD_LOCAL);
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		coloc_buf_printf(tried, "%s%s", i ? ", " : "", names[i]);
		if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
			return h;
	}
	for (i = 0; i < 2; i++) {
		const char *root = i == 0 ? cuda : "/usr/local/cuda";

		if (!root || !*root)
			continue;
		snprintf(path, sizeof(path), "%s/lib64/libnvrtc.so", root);
		coloc_buf_printf(tried, ", %s", path);
		if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
			return h;
	}
	return NULL;
}

static int nvrtc_load(struct nvrtc_api *api, struct coloc_diag *diag)
{
	struct coloc_buf tried;
	struct ptx_loc none = {0, 0};

	coloc_buf_init(&tried);
	api->handle = nvrtc_open(&tried);
	if (!api->handle) {
		coloc_error(diag, none,
			    "cannot load NVRTC to compile CUDA sources (tried %s): %s; install the "
			    "CUDA toolkit, set CUDA_HOME, or set COLOC_NVRTC to libnvrtc.so",
			    tried.data ? coloc_buf_cstr(&tried) : "nothing", dlerror());
		coloc_buf_release(&tried);
		return -1;
	}
	coloc_buf_release(&tried);
#define SYM(field, name)                                                               \
	do {                                                                           \
		*(void **)&api->field = dlsym(api->handle, name);                     \
		if (!api->field) {                                                     \
			coloc_error(diag, none, "NVRTC library lacks %s", name);      \
			dlclose(api->handle);                                          \
			return -1;                                                     \
		}                                                                      \
	} while (0)
	SYM(create, "nvrtcCreateProgram");
	SYM(compile, "nvrtcCompileProgram");
	SYM(ptx_size, "nvrtcGetPTXSize");
	SYM(ptx, "nvrtcGetPTX");
	SYM(log_size, "nvrtcGetProgramLogSize");
	SYM(log, "nvrtcGetProgramLog");
	SYM(destroy, "nvrtcDestroyProgram");
	SYM(error_string, "nvrtcGetErrorString");
#undef SYM
	return 0;
}

/* NVRTC wants compute_XX for PTX output; users write sm_XX as for nvcc. */
static void arch_option(const char *arch, char *out, size_t size)
{
	if (!arch)
		arch = "sm_90";
	if (strncmp(arch, "sm_", 3) == 0)
		snprintf(out, size, "--gpu-architecture=compute_%s", arch + 3);
	else
		snprintf(out, size, "--gpu-architecture=%s", arch);
}

/* Relays the NVRTC log line by line, so each message keeps its own position. */
static void report_log(const char *log, struct coloc_diag *diag)
{
	struct ptx_loc none = {0, 0};
	const char *p = log, *nl;
	const char *saved = diag->filename;

	diag->filename = NULL;
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (nl > p) {
			struct coloc_buf line;

			coloc_buf_init(&line);
			coloc_buf_put(&line, p, (size_t)(nl - p));
			if (coloc_buf_cstr(&line))
				coloc_note(diag, none, "nvrtc: %s", line.data);
			coloc_buf_release(&line);
		}
		if (!*nl)
			break;
	}
	diag->filename = saved;
}

int coloc_nvrtc_compile(const char *source, size_t len, const char *name,
			const struct coloc_nvrtc_opts *opts, struct coloc_buf *ptx,
			struct coloc_diag *diag)
{
	struct nvrtc_api api;
	struct ptx_loc none = {0, 0};
	nvrtc_program prog = NULL;
	const char **argv = NULL;
	char arch[64], incl[4200];
	struct coloc_buf src, log;
	const char *cuda = getenv("CUDA_HOME");
	size_t size = 0;
	int argc = 0, rc = -1;
	unsigned i;
	nvrtc_result r;

	if (nvrtc_load(&api, diag) < 0)
		return -1;
	coloc_buf_init(&src);
	coloc_buf_init(&log);
	coloc_buf_put(&src, source, len);
	argv = calloc(8 + (opts ? opts->nextra : 0), sizeof(*argv));
	if (!coloc_buf_cstr(&src) || !argv) {
		coloc_error(diag, none, "out of memory");
		goto out;
	}
	arch_option(opts ? opts->arch : NULL, arch, sizeof(arch));
	argv[argc++] = arch;
	snprintf(incl, sizeof(incl), "--include-path=%s/include",
		 cuda && *cuda ? cuda : "/usr/local/cuda");
	argv[argc++] = incl;
	argv[argc++] = "--std=c++17";
	if (opts && opts->lineinfo)
		argv[argc++] = "--generate-line-info";
	if (opts && opts->debug)
		argv[argc++] = "--device-debug";
	for (i = 0; opts && i < opts->nextra; i++)
		argv[argc++] = opts->extra[i];

	r = api.create(&prog, src.data, name, 0, NULL, NULL);
	if (r) {
		coloc_error(diag, none, "nvrtcCreateProgram failed: %s", api.error_string(r));
		goto out;
	}
	r = api.compile(prog, argc, argv);
	if (api.log_size(prog, &size) == 0 && size > 1 && coloc_buf_reserve(&log, size) == 0 &&
	    api.log(prog, log.data) == 0) {
		log.data[size - 1] = '\0';
		report_log(log.data, diag);
	}
	if (r) {
		coloc_error(diag, none, "NVRTC could not compile the CUDA source (%s)", api.error_string(r));
		goto out;
	}
	if (api.ptx_size(prog, &size) || coloc_buf_reserve(ptx, size) < 0 ||
	    api.ptx(prog, ptx->data + ptx->len)) {
		coloc_error(diag, none, "could not retrieve PTX from NVRTC");
		goto out;
	}
	/* The size counts the terminating NUL. */
	ptx->len += size ? size - 1 : 0;
	rc = 0;
out:
	if (prog)
		api.destroy(&prog);
	free(argv);
	coloc_buf_release(&src);
	coloc_buf_release(&log);
	/*
	 * NVRTC stays loaded: it keeps state in its own globals, and unloading
	 * it would leak that state (and the next compile would load it again).
	 * dlopen() counts references, so each call costs nothing more.
	 */
	return rc;
}
