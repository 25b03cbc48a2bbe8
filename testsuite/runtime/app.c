/*
 * A driver-API program for the runtime tests: it loads a module, looks a
 * kernel up and launches it, reaching the driver through the door the test
 * names, as real programs do:
 *
 *   --via=linked       calls the functions it was linked against
 *   --via=dlsym        dlopen("libcuda.so.1") and dlsym, by exported name
 *   --via=dlsym-old    the same through dlsym's glibc version before 2.34
 *                      (GLIBC_2.2.5, GLIBC_2.17 on aarch64), as programs built
 *                      on an older glibc bind it, found with dlvsym
 *   --via=getproc      dlsym("cuGetProcAddress_v2") then every function
 *                      through it, as the CUDA runtime does
 *   --via=getproc-v1   the same through the CUDA 11.3 cuGetProcAddress
 *   --ptds             per-thread default stream flavours (getproc only)
 *   --device=N         device N's primary context made current first
 *   --late-device=N    (--load=library, libfile) device N's primary context made current
 *                      after the library is loaded, as the CUDA runtime does when it
 *                      loads modules eagerly
 *   --alternate-device=N   (--load=data, --launch=plain) the module is loaded in
 *                      device N's primary context too, and the launches alternate
 *                      between the first context and that one, from each thread
 *
 *   --load=data|dataex|fatbin|file|library|libfile|link|nvjitlink
 *   --nvjitlink-names=plain|versioned   (nvjitlink: dlsym nvJitLinkCreate, as Numba's
 *                      binding does, or __nvJitLinkCreate_12_8, as nvJitLink.h's macros)
 *   --nvjitlink-object=PATH   (nvjitlink: a second input, of type cubin)
 *   --nvjitlink-lto=data|file (nvjitlink: link with -lto, the input given as LTO-IR,
 *                      by nvJitLinkAddData or nvJitLinkAddFile, as Numba links)
 *   --launch=plain|ex|ex-cluster|extra|coop    --kernel=NAME --grid=X,Y,Z --block=X,Y,Z
 *   --shmem=BYTES --attr-shmem=BYTES (cuFuncSetAttribute first) --repeat=N
 *   --probe=SYMBOL:VERSION:FLAGS    prints what cuGetProcAddress answers
 *   --threads=N (N threads launch at once) --timed (print how long each launch call took) --sleep-ms=N (stay N ms
 *   after the launches, before synchronizing) --sync-each (synchronize the stream after every launch)
 *   --side=TEXT        a second thread, once the fake driver's log (COLOC_FAKE_LOG) has a line
 *                      with TEXT, puts work on a non-blocking stream of its own (a 4-byte set to
 *                      1), then on the default stream (a set to 7, an event record) and
 *                      synchronizes the stream and the context; joined after the launches
 *   --side-op=write-value  the set to 7 by cuStreamWriteValue32 (the ABI before CUDA 11.7)
 *                      instead of cuMemsetD32Async
 *   --after=NAME       after the launches (and their threads), one launch of the module's
 *                      kernel NAME, same geometry and arguments (a module of its own: --load=data,
 *                      file, dataex, fatbin, link, nvjitlink)
 *   --wait=between     (one thread) after the first launch, before the next: as --wait, with
 *                      "app: waiting between the launches"
 *   --wait=launch|sync (either or both) before the launches, or after them (before --sleep-ms
 *                      and the synchronization): print "app: waiting before the launches" (or
 *                      "... before synchronizing"), then read a line of standard input (or its
 *                      end), so that a driver script decides when the program goes on; with
 *                      either, standard output is flushed after every line
 *
 * It prints one line per step; the fake driver's log says what reached it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_abi.h"

/* field, exported symbol, API name for cuGetProcAddress, CUDA version, has a _ptsz flavour */
#define APP_API(X)                                                                     \
	X(init, cuInit, "cuInit", 2000, 0, (unsigned))                                 \
	X(primary_retain, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, 0, \
	  (CUcontext *, CUdevice))                                                       \
	X(ctx_set_current, cuCtxSetCurrent, "cuCtxSetCurrent", 4000, 0, (CUcontext))   \
	X(module_load, cuModuleLoad, "cuModuleLoad", 2000, 0, (CUmodule *, const char *)) \
	X(module_load_data, cuModuleLoadData, "cuModuleLoadData", 2000, 0,             \
	  (CUmodule *, const void *))                                                    \
	X(module_load_data_ex, cuModuleLoadDataEx, "cuModuleLoadDataEx", 2010, 0,      \
	  (CUmodule *, const void *, unsigned, CUjit_option *, void **))                 \
	X(module_load_fatbin, cuModuleLoadFatBinary, "cuModuleLoadFatBinary", 2000, 0, \
	  (CUmodule *, const void *))                                                    \
	X(module_get_function, cuModuleGetFunction, "cuModuleGetFunction", 2000, 0,    \
	  (CUfunction *, CUmodule, const char *))                                        \
	X(module_unload, cuModuleUnload, "cuModuleUnload", 2000, 0, (CUmodule))        \
	X(library_load_data, cuLibraryLoadData, "cuLibraryLoadData", 12000, 0,         \
	  (CUlibrary *, const void *, CUjit_option *, void **, unsigned, CUlibraryOption *, \
	   void **, unsigned))                                                           \
	X(library_load_file, cuLibraryLoadFromFile, "cuLibraryLoadFromFile", 12000, 0, \
	  (CUlibrary *, const char *, CUjit_option *, void **, unsigned, CUlibraryOption *, \
	   void **, unsigned))                                                           \
	X(library_get_kernel, cuLibraryGetKernel, "cuLibraryGetKernel", 12000, 0,      \
	  (CUkernel *, CUlibrary, const char *))                                         \
	X(kernel_get_function, cuKernelGetFunction, "cuKernelGetFunction", 12000, 0,   \
	  (CUfunction *, CUkernel))                                                      \
	X(link_create, cuLinkCreate_v2, "cuLinkCreate", 6050, 0,                       \
	  (unsigned, CUjit_option *, void **, CUlinkState *))                            \
	X(link_add_data, cuLinkAddData_v2, "cuLinkAddData", 6050, 0,                   \
	  (CUlinkState, CUjitInputType, void *, size_t, const char *, unsigned,          \
	   CUjit_option *, void **))                                                     \
	X(link_complete, cuLinkComplete, "cuLinkComplete", 5050, 0,                    \
	  (CUlinkState, void **, size_t *))                                              \
	X(link_destroy, cuLinkDestroy, "cuLinkDestroy", 5050, 0, (CUlinkState))        \
	X(func_set_attribute, cuFuncSetAttribute, "cuFuncSetAttribute", 9000, 0,       \
	  (CUfunction, CUfunction_attribute, int))                                       \
	X(mem_alloc, cuMemAlloc_v2, "cuMemAlloc", 3020, 0, (CUdeviceptr *, size_t))    \
	X(launch, cuLaunchKernel, "cuLaunchKernel", 4000, 1,                           \
	  (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,      \
	   unsigned, CUstream, void **, void **))                                        \
	X(launch_ex, cuLaunchKernelEx, "cuLaunchKernelEx", 11060, 1,                   \
	  (const CUlaunchConfig *, CUfunction, void **, void **))                        \
	X(launch_coop, cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", 9000, 1, \
	  (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,      \
	   unsigned, CUstream, void **))                                                 \
	X(stream_sync, cuStreamSynchronize, "cuStreamSynchronize", 2000, 1, (CUstream)) \
	X(stream_create, cuStreamCreate, "cuStreamCreate", 2000, 0, (CUstream *, unsigned)) \
	X(memset_d32_async, cuMemsetD32Async, "cuMemsetD32Async", 3020, 1,             \
	  (CUdeviceptr, unsigned, size_t, CUstream))                                     \
	X(event_create, cuEventCreate, "cuEventCreate", 2000, 0, (CUevent *, unsigned)) \
	X(event_record, cuEventRecord, "cuEventRecord", 2000, 1, (CUevent, CUstream))  \
	X(write_value32, cuStreamWriteValue32, "cuStreamWriteValue32", 8000, 1,         \
	  (CUstream, CUdeviceptr, cuuint32_t, unsigned))                                 \
	X(ctx_sync, cuCtxSynchronize, "cuCtxSynchronize", 2000, 0, (void))

#define X(field, sym, api, version, ptds, params) CUresult (*field) params;
static struct {
	APP_API(X)
} cu;
#undef X

typedef CUresult (*getproc_v2_fn)(const char *, void **, int, cuuint64_t,
				  CUdriverProcAddressQueryResult *);
typedef CUresult (*getproc_v1_fn)(const char *, void **, int, cuuint64_t);

/* Declared for --via=linked; the test links the fake libcuda.so.1. */
#define X(field, sym, api, version, ptds, params) CUresult sym params;
APP_API(X)
#undef X

static void die(const char *what, CUresult rc)
{
	printf("app: %s failed: %d\n", what, rc);
	exit(1);
}

static void *getproc;
static int getproc_v1;
/* --wait: a driver script reads the lines as they come. */
static int flush_lines;

/* --wait: says so, then waits for a line of standard input or its end. */
static void wait_stdin(const char *when)
{
	char line[64];

	printf("app: waiting %s\n", when);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

static void *ask(const char *api, int version, cuuint64_t flags, int *status)
{
	void *fn = NULL;
	CUresult rc;

	*status = -1;
	if (getproc_v1) {
		rc = (__extension__(getproc_v1_fn)getproc)(api, &fn, version, flags);
	} else {
		CUdriverProcAddressQueryResult s = -1;

		rc = (__extension__(getproc_v2_fn)getproc)(api, &fn, version, flags, &s);
		*status = s;
	}
	return rc == CUDA_SUCCESS ? fn : NULL;
}

static void bind(const char *via, int ptds)
{
	void *h = NULL;
	int status;

	if (strcmp(via, "linked") == 0) {
		/* The linked symbols, as the dynamic linker bound them. */
#define X(field, sym, api, version, pt, params) cu.field = sym;
		APP_API(X)
#undef X
		return;
	}
	h = dlopen("libcuda.so.1", RTLD_NOW);
	if (!h) {
		printf("app: dlopen libcuda.so.1: %s\n", dlerror());
		exit(1);
	}
	if (strcmp(via, "dlsym") == 0 || strcmp(via, "dlsym-old") == 0) {
		void *(*lookup)(void *, const char *) = dlsym;

		if (strcmp(via, "dlsym-old") == 0) {
#if defined(__aarch64__)
			*(void **)&lookup = dlvsym(RTLD_DEFAULT, "dlsym", "GLIBC_2.17");
#else
			*(void **)&lookup = dlvsym(RTLD_DEFAULT, "dlsym", "GLIBC_2.2.5");
#endif
			if (!lookup) {
				printf("app: no dlsym of glibc's old version: %s\n", dlerror());
				exit(1);
			}
			printf("app: dlsym of the old version %s dlsym\n",
			       lookup == dlsym ? "is" : "is not");
		}
#define X(field, sym, api, version, pt, params) \
	*(void **)&cu.field = lookup(h, pt && ptds ? #sym "_ptsz" : #sym);
		APP_API(X)
#undef X
		return;
	}
	getproc_v1 = strcmp(via, "getproc-v1") == 0;
	getproc = dlsym(h, getproc_v1 ? "cuGetProcAddress" : "cuGetProcAddress_v2");
	if (!getproc) {
		printf("app: no cuGetProcAddress\n");
		exit(1);
	}
#define X(field, sym, api, version, pt, params) \
	*(void **)&cu.field = ask(api, 13000, ptds ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0, &status);
	APP_API(X)
#undef X
}

/* Who answers: libcoloc (the hook) or the driver, and under which name. */
static void probe(const char *spec)
{
	char api[128];
	int version, status;
	unsigned long long flags;
	void *fn;
	Dl_info info;

	if (sscanf(spec, "%127[^:]:%d:%llu", api, &version, &flags) != 3) {
		printf("app: bad --probe '%s'\n", spec);
		exit(2);
	}
	fn = ask(api, version, flags, &status);
	if (!fn) {
		printf("probe %s %d %llu -> none (status %d)\n", api, version, flags, status);
		return;
	}
	if (!dladdr(fn, &info) || !info.dli_fname) {
		printf("probe %s %d %llu -> unknown\n", api, version, flags);
		return;
	}
	printf("probe %s %d %llu -> %s:%s\n", api, version, flags,
	       strstr(info.dli_fname, "libcoloc") ? "colocc" : "driver",
	       info.dli_sname ? info.dli_sname : "?");
}

static void *read_file(const char *path, size_t *size);

/*
 * Links the PTX with libnvJitLink.so.12, dlopened and dlsymed as Numba's
 * binding does, and returns a copy of the cubin (the caller's bytes, as a
 * Python bytes object would be) after the link is destroyed.
 */
static void *nvjitlink_link(const void *ptx, size_t size, const char *path, const char *names,
			    const char *object, const char *lto)
{
	typedef int (*create_fn)(void **, unsigned, const char **);
	typedef int (*destroy_fn)(void **);
	typedef int (*add_data_fn)(void *, int, const void *, size_t, const char *);
	typedef int (*complete_fn)(void *);
	typedef int (*size_fn)(void *, size_t *);
	typedef int (*cubin_fn)(void *, void *);
	typedef int (*add_file_fn)(void *, int, const char *);
	const char *api[] = { "nvJitLinkCreate", "nvJitLinkAddData", "nvJitLinkComplete",
			      "nvJitLinkGetLinkedCubinSize", "nvJitLinkGetLinkedCubin",
			      "nvJitLinkDestroy", "nvJitLinkAddFile" };
	void *fn[7], *h = dlopen("libnvJitLink.so.12", RTLD_NOW | RTLD_GLOBAL), *link = NULL;
	const char *opts[] = { "-arch=sm_90", "-lto" };
	int type = lto ? 3 /* LTOIR */ : 2 /* PTX */;
	unsigned char *cubin = NULL, *copy;
	size_t n = 0;
	int rc;

	if (!h) {
		printf("app: dlopen libnvJitLink.so.12: %s\n", dlerror());
		exit(1);
	}
	for (int i = 0; i < 7; i++) {
		char sym[96];
		Dl_info info;

		snprintf(sym, sizeof(sym), strcmp(names, "versioned") ? "%s" : "__%s_12_8", api[i]);
		if (!(fn[i] = dlsym(h, sym))) {
			printf("app: no %s\n", sym);
			exit(1);
		}
		printf("app: dlsym %s -> %s\n", sym,
		       dladdr(fn[i], &info) && info.dli_fname && strstr(info.dli_fname, "libcoloc") ?
			       "colocc" : "nvJitLink");
	}
	if ((rc = (__extension__(create_fn)fn[0])(&link, lto ? 2 : 1, opts)) != 0 ||
	    (rc = lto && !strcmp(lto, "file") ?
			  (__extension__(add_file_fn)fn[6])(link, type, path) :
			  (__extension__(add_data_fn)fn[1])(link, type, ptx, size + 1, "app.ptx")))
		die("nvJitLink input", (CUresult)rc);
	if (object) {
		size_t osize;
		void *odata = read_file(object, &osize);

		if ((rc = (__extension__(add_data_fn)fn[1])(link, 1 /* CUBIN */, odata, osize,
							     "object.cubin")))
			die("nvJitLinkAddData", (CUresult)rc);
		free(odata);
	}
	if ((rc = (__extension__(complete_fn)fn[2])(link)) ||
	    (rc = (__extension__(size_fn)fn[3])(link, &n)) || !(cubin = malloc(n)) ||
	    (rc = (__extension__(cubin_fn)fn[4])(link, cubin)))
		die("nvJitLink link", (CUresult)rc);
	if ((rc = (__extension__(destroy_fn)fn[5])(&link)))
		die("nvJitLinkDestroy", (CUresult)rc);
	copy = malloc(n);
	if (!copy)
		die("malloc", CUDA_ERROR_OUT_OF_MEMORY);
	memcpy(copy, cubin, n);
	/* Scribbled over before it is freed: the load must not depend on this buffer. */
	memset(cubin, 0, n);
	free(cubin);
	printf("app: nvJitLink made %zu bytes\n", n);
	return copy;
}

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *data;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		printf("app: cannot read %s\n", path);
		exit(1);
	}
	data = calloc(1, (size_t)n + 1);
	if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
		printf("app: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*size = (size_t)n;
	return data;
}

static void dims(const char *s, unsigned d[3])
{
	d[0] = d[1] = d[2] = 1;
	if (sscanf(s, "%u,%u,%u", &d[0], &d[1], &d[2]) < 1) {
		printf("app: bad dimensions '%s'\n", s);
		exit(2);
	}
}

struct job {
	CUfunction fn, kernel_handle;
	CUdeviceptr buf;
	CUcontext ctx[2];   /* with --alternate-device: odd launches in ctx[1] */
	CUfunction fn2;
	CUdeviceptr buf2;
	const char *how;
	unsigned gx, gy, gz, bx, by, bz, shmem;
	int repeat, timed, failed, sync_each, wait_between;
};

static void *launches(void *arg)
{
	struct job *j = arg;
	CUresult rc;

	for (int r = 0; r < j->repeat; r++) {
		unsigned n = 1000;
		float factor = 2.0f;
		void *params[] = { &j->buf, &n, &factor };
		struct {
			uint64_t p;
			uint32_t n;
			float f;
		} packed = { j->buf, n, factor };
		size_t psize = sizeof(packed);
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
				  &psize, CU_LAUNCH_PARAM_END };
		CUlaunchConfig c = { j->gx, j->gy, j->gz, j->bx, j->by, j->bz,
				     j->shmem, NULL, NULL, 0 };
		CUfunction f = j->kernel_handle && r % 2 == 0 ? j->kernel_handle : j->fn;
		struct timespec t0, t1;

		if (j->ctx[1]) {
			if ((rc = cu.ctx_set_current(j->ctx[r % 2])) != CUDA_SUCCESS) {
				printf("app: cuCtxSetCurrent: %d\n", rc);
				j->failed = 1;
				return NULL;
			}
			f = r % 2 ? j->fn2 : j->fn;
			packed.p = r % 2 ? j->buf2 : j->buf;
			params[0] = r % 2 ? &j->buf2 : &j->buf;
		}

		clock_gettime(CLOCK_MONOTONIC, &t0);

		if (!strcmp(j->how, "plain"))
			rc = cu.launch(f, j->gx, j->gy, j->gz, j->bx, j->by, j->bz,
				       j->shmem, NULL, params, NULL);
		else if (!strcmp(j->how, "extra"))
			rc = cu.launch(f, j->gx, j->gy, j->gz, j->bx, j->by, j->bz,
				       j->shmem, NULL, NULL, extra);
		else if (!strcmp(j->how, "ex"))
			rc = cu.launch_ex(&c, f, params, NULL);
		else if (!strcmp(j->how, "ex-cluster")) {
			CUlaunchAttribute a = { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION };

			a.value.clusterDim.x = 2;
			a.value.clusterDim.y = a.value.clusterDim.z = 1;
			c.attrs = &a;
			c.numAttrs = 1;
			rc = cu.launch_ex(&c, f, params, NULL);
		}
		else if (!strcmp(j->how, "coop"))
			rc = cu.launch_coop(f, j->gx, j->gy, j->gz, j->bx, j->by,
					    j->bz, j->shmem, NULL, params);
		else {
			printf("app: unknown --launch=%s\n", j->how);
			j->failed = 2;
			return NULL;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (j->timed)
			printf("app: launch %d: %d, took %ld ms\n", r, rc,
			       (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
		else
			printf("app: launch %d: %d\n", r, rc);
		if (flush_lines)
			fflush(stdout);
		if (rc == CUDA_SUCCESS && j->sync_each)
			rc = cu.stream_sync(NULL);
		if (rc != CUDA_SUCCESS) {
			j->failed = 1;
			return NULL;
		}
		if (r == 0 && j->wait_between)
			wait_stdin("between the launches");
	}
	return NULL;
}

/* --side: another thread's work while the launches may be held (fence.c). */
struct side {
	const char *text;
	CUdeviceptr buf;
	CUstream own;
	int write_value; /* --side-op=write-value: the set on the default stream by cuStreamWriteValue32 */
	int failed;
};

static int log_has(const char *path, const char *text)
{
	char line[1024];
	int found = 0;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void *side_work(void *arg)
{
	struct side *s = arg;
	const char *path = getenv("COLOC_FAKE_LOG");
	struct timespec pause = { 0, 5000000 };
	CUevent ev;
	CUresult rc;

	/* A minute at most: the harness's own waits are shorter. */
	for (int i = 0; i < 12000 && !(path && log_has(path, s->text)); i++)
		nanosleep(&pause, NULL);
	if ((rc = cu.memset_d32_async(s->buf + 16, 1, 1, s->own)) != CUDA_SUCCESS ||
	    (rc = s->write_value ? cu.write_value32(NULL, s->buf, 7, 0) :
				   cu.memset_d32_async(s->buf, 7, 1, NULL)) != CUDA_SUCCESS ||
	    (rc = cu.event_create(&ev, 0)) != CUDA_SUCCESS ||
	    (rc = cu.event_record(ev, NULL)) != CUDA_SUCCESS ||
	    (rc = cu.stream_sync(NULL)) != CUDA_SUCCESS || (rc = cu.ctx_sync()) != CUDA_SUCCESS) {
		printf("app: side thread: %d\n", rc);
		s->failed = 1;
		return NULL;
	}
	printf("app: side thread done\n");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *via = "linked", *load = "data", *how = "plain", *kernel = "scale", *image = NULL;
	const char *nvjitlink_names = "plain", *nvjitlink_object = NULL, *nvjitlink_lto = NULL;
	const char *after = NULL;
	unsigned grid[3] = { 4, 1, 1 }, block[3] = { 128, 1, 1 }, shmem = 0, attr_shmem = 0;
	int ptds = 0, repeat = 1, nprobes = 0, timed = 0, sleep_ms = 0, threads = 1, sync_each = 0;
	int device = -1, alternate = -1, late_device = -1, wait_launch = 0, wait_sync = 0;
	int wait_between = 0;
	struct side side = { NULL, 0, NULL, 0, 0 };
	pthread_t side_thread;
	CUcontext ctx2 = NULL;
	CUfunction fn2 = NULL;
	CUdeviceptr buf2 = 0;
	const char *probes[32];
	CUmodule mod = NULL;
	CUfunction fn = NULL, kernel_handle = NULL;
	CUdeviceptr buf = 0;
	CUresult rc;
	size_t size;
	void *data;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--via=", 6))
			via = a + 6;
		else if (!strncmp(a, "--nvjitlink-names=", 18))
			nvjitlink_names = a + 18;
		else if (!strncmp(a, "--nvjitlink-object=", 19))
			nvjitlink_object = a + 19;
		else if (!strncmp(a, "--nvjitlink-lto=", 16))
			nvjitlink_lto = a + 16;
		else if (!strncmp(a, "--device=", 9))
			device = atoi(a + 9);
		else if (!strncmp(a, "--alternate-device=", 19))
			alternate = atoi(a + 19);
		else if (!strcmp(a, "--ptds"))
			ptds = 1;
		else if (!strncmp(a, "--load=", 7))
			load = a + 7;
		else if (!strncmp(a, "--launch=", 9))
			how = a + 9;
		else if (!strncmp(a, "--kernel=", 9))
			kernel = a + 9;
		else if (!strncmp(a, "--grid=", 7))
			dims(a + 7, grid);
		else if (!strncmp(a, "--block=", 8))
			dims(a + 8, block);
		else if (!strncmp(a, "--shmem=", 8))
			shmem = (unsigned)atoi(a + 8);
		else if (!strncmp(a, "--attr-shmem=", 13))
			attr_shmem = (unsigned)atoi(a + 13);
		else if (!strncmp(a, "--threads=", 10))
			threads = atoi(a + 10);
		else if (!strcmp(a, "--timed"))
			timed = 1;
		else if (!strcmp(a, "--sync-each"))
			sync_each = 1;
		else if (!strncmp(a, "--sleep-ms=", 11))
			sleep_ms = atoi(a + 11);
		else if (!strncmp(a, "--side=", 7))
			side.text = a + 7;
		else if (!strcmp(a, "--side-op=write-value"))
			side.write_value = 1;
		else if (!strcmp(a, "--wait=launch"))
			wait_launch = flush_lines = 1;
		else if (!strcmp(a, "--wait=sync"))
			wait_sync = flush_lines = 1;
		else if (!strncmp(a, "--after=", 8))
			after = a + 8;
		else if (!strcmp(a, "--wait=between"))
			wait_between = flush_lines = 1;
		else if (!strncmp(a, "--late-device=", 14))
			late_device = atoi(a + 14);
		else if (!strncmp(a, "--repeat=", 9))
			repeat = atoi(a + 9);
		else if (!strncmp(a, "--probe=", 8) && nprobes < 32)
			probes[nprobes++] = a + 8;
		else if (a[0] != '-')
			image = a;
		else {
			printf("app: unknown option %s\n", a);
			return 2;
		}
	}
	bind(via, ptds);
	if ((rc = cu.init(0)) != CUDA_SUCCESS)
		die("cuInit", rc);
	if (alternate >= 0 && (strcmp(load, "data") || strcmp(how, "plain"))) {
		printf("app: --alternate-device needs --load=data and --launch=plain\n");
		return 2;
	}
	if (alternate >= 0 && device < 0)
		device = 0;
	if (device >= 0) {
		CUcontext ctx;

		if ((rc = cu.primary_retain(&ctx, device)) != CUDA_SUCCESS ||
		    (rc = cu.ctx_set_current(ctx)) != CUDA_SUCCESS)
			die("device context", rc);
	}
	for (int i = 0; i < nprobes; i++)
		probe(probes[i]);
	if (!image)
		return 0;

	data = read_file(image, &size);
	if (!strcmp(load, "file")) {
		rc = cu.module_load(&mod, image);
	} else if (!strcmp(load, "data")) {
		rc = cu.module_load_data(&mod, data);
	} else if (!strcmp(load, "dataex")) {
		rc = cu.module_load_data_ex(&mod, data, 0, NULL, NULL);
	} else if (!strcmp(load, "fatbin")) {
		rc = cu.module_load_fatbin(&mod, data);
	} else if (!strcmp(load, "library") || !strcmp(load, "libfile")) {
		CUlibrary lib;
		CUkernel k;

		rc = !strcmp(load, "library") ?
			     cu.library_load_data(&lib, data, NULL, NULL, 0, NULL, NULL, 0) :
			     cu.library_load_file(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
		if (rc != CUDA_SUCCESS)
			die("library load", rc);
		if (late_device >= 0) {
			CUcontext ctx;

			if ((rc = cu.primary_retain(&ctx, late_device)) != CUDA_SUCCESS ||
			    (rc = cu.ctx_set_current(ctx)) != CUDA_SUCCESS)
				die("late device context", rc);
		}
		if ((rc = cu.library_get_kernel(&k, lib, kernel)) != CUDA_SUCCESS)
			die("cuLibraryGetKernel", rc);
		/* Launches alternate: by CUkernel, as the CUDA runtime does, and by CUfunction. */
		kernel_handle = (CUfunction)k;
		if ((rc = cu.kernel_get_function(&fn, k)) != CUDA_SUCCESS)
			die("cuKernelGetFunction", rc);
	} else if (!strcmp(load, "link")) {
		CUlinkState st;
		void *cubin;
		size_t n;

		if ((rc = cu.link_create(0, NULL, NULL, &st)) != CUDA_SUCCESS)
			die("cuLinkCreate", rc);
		if ((rc = cu.link_add_data(st, CU_JIT_INPUT_PTX, data, size + 1, "app.ptx", 0, NULL,
					   NULL)) != CUDA_SUCCESS)
			die("cuLinkAddData", rc);
		if ((rc = cu.link_complete(st, &cubin, &n)) != CUDA_SUCCESS)
			die("cuLinkComplete", rc);
		rc = cu.module_load_data(&mod, cubin);
		cu.link_destroy(st);
	} else if (!strcmp(load, "nvjitlink")) {
		void *cubin = nvjitlink_link(data, size, image, nvjitlink_names, nvjitlink_object,
					     nvjitlink_lto);

		rc = cu.module_load_data(&mod, cubin);
	} else {
		printf("app: unknown --load=%s\n", load);
		return 2;
	}
	if (rc != CUDA_SUCCESS)
		die("module load", rc);
	if (mod && (rc = cu.module_get_function(&fn, mod, kernel)) != CUDA_SUCCESS)
		die("cuModuleGetFunction", rc);
	if (attr_shmem && (rc = cu.func_set_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						      (int)attr_shmem)) != CUDA_SUCCESS)
		die("cuFuncSetAttribute", rc);
	if ((rc = cu.mem_alloc(&buf, 4096)) != CUDA_SUCCESS)
		die("cuMemAlloc", rc);
	if (alternate >= 0) {
		CUmodule mod2;

		if ((rc = cu.primary_retain(&ctx2, alternate)) != CUDA_SUCCESS ||
		    (rc = cu.ctx_set_current(ctx2)) != CUDA_SUCCESS)
			die("alternate device context", rc);
		if ((rc = cu.module_load_data(&mod2, data)) != CUDA_SUCCESS ||
		    (rc = cu.module_get_function(&fn2, mod2, kernel)) != CUDA_SUCCESS ||
		    (rc = cu.mem_alloc(&buf2, 4096)) != CUDA_SUCCESS)
			die("alternate device module", rc);
	}

	{
		struct job job = { fn, kernel_handle, buf, { NULL, ctx2 }, fn2, buf2, how, grid[0],
				   grid[1], grid[2], block[0], block[1], block[2], shmem, repeat, timed,
				   0, sync_each, wait_between };
		pthread_t th[64];

		if (alternate >= 0 &&
		    (rc = cu.primary_retain(&job.ctx[0], device)) != CUDA_SUCCESS)
			die("device context", rc);

		if (threads < 1 || threads > 64) {
			printf("app: --threads must be 1 to 64\n");
			return 2;
		}
		if (wait_launch)
			wait_stdin("before the launches");
		if (side.text) {
			side.buf = buf;
			if ((rc = cu.stream_create(&side.own, 1 /* CU_STREAM_NON_BLOCKING */)) !=
			    CUDA_SUCCESS)
				die("cuStreamCreate", rc);
			pthread_create(&side_thread, NULL, side_work, &side);
		}
		/* Several threads launch the same kernel at once: its first launch races. */
		for (int t = 1; t < threads; t++)
			pthread_create(&th[t], NULL, launches, &job);
		launches(&job);
		for (int t = 1; t < threads; t++)
			pthread_join(th[t], NULL);
		if (side.text)
			pthread_join(side_thread, NULL);
		if (job.failed || side.failed) {
			/* --sleep-ms holds a failed process too (coord.test, pedgefail). */
			if (sleep_ms) {
				struct timespec t = { sleep_ms / 1000,
						      (long)(sleep_ms % 1000) * 1000000 };

				fflush(stdout);
				nanosleep(&t, NULL);
			}
			return job.failed ? job.failed : side.failed;
		}
	}
	if (after) {
		CUfunction fa;
		unsigned n = 1000;
		float factor = 2.0f;
		void *params[] = { &buf, &n, &factor };

		if (!mod) {
			printf("app: --after needs a module (--load=data, file, dataex, fatbin, link, "
			       "nvjitlink)\n");
			return 2;
		}
		if ((rc = cu.module_get_function(&fa, mod, after)) != CUDA_SUCCESS)
			die("cuModuleGetFunction (--after)", rc);
		if ((rc = cu.launch(fa, grid[0], grid[1], grid[2], block[0], block[1], block[2], shmem,
				    NULL, params, NULL)) != CUDA_SUCCESS)
			die("cuLaunchKernel (--after)", rc);
		printf("app: launched %s\n", after);
	}
	if (wait_sync)
		wait_stdin("before synchronizing");
	if (sleep_ms) {
		struct timespec t = { sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000 };

		nanosleep(&t, NULL);
	}
	if ((rc = cu.stream_sync(NULL)) != CUDA_SUCCESS)
		die("cuStreamSynchronize", rc);
	if (mod)
		cu.module_unload(mod);
	printf("app: done\n");
	free(data);
	return 0;
}
