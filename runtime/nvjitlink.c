/*
 * nvJitLink: PTX linked outside the driver.
 *
 * Numba (numba-cuda, through cuda-python's cuda.bindings.nvjitlink) links
 * its kernels with NVIDIA's libnvJitLink: it dlopens the library and
 * dlsyms nvJitLinkCreate, nvJitLinkAddData, ... by their plain names; C
 * programs built against nvJitLink.h call the versioned names the header's
 * macros make of them (__nvJitLinkCreate_12_8).  The driver then sees only
 * the cubin that comes out, so the capture would find no PTX.
 *
 * When the application dlsyms one of the functions below from a library
 * named libnvJitLink*, interpose.c hands out the wrapper here instead; it
 * calls the library's function and tells capture.c about the link, as the
 * cuLink* hooks do: the inputs (one PTX input makes a transformable link),
 * and the cubin, known by its contents because the application copies it
 * out of nvJitLink and may load it after the link is gone.  The other
 * entry points (nvJitLinkComplete, the size and log queries) pass through.
 *
 * Every wrapper calls the library first and records only what succeeded.
 * One library per process is wrapped: a second copy's functions are handed
 * out as they are (its handles must reach its own functions).
 *
 * Numba links LTO-IR, not PTX, with -lto: no PTX ever exists.  nvJitLink
 * can emit the PTX of an LTO link when the link is created with -ptx as
 * well (-ptx is only supported with -lto), so for a best-effort tenant the
 * LTO-IR inputs are kept and, when the application takes the cubin, linked
 * a second time with -ptx: the "shadow link", its own handle, made with the
 * library's functions and destroyed at once.  Its PTX stands for the link's
 * inputs in capture.c; the application's link and its cubin are untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"

/* nvJitLink.h's types, as far as colocc needs them. */
typedef int nvjitlink_result; /* NVJITLINK_SUCCESS is 0 */
typedef void *nvjitlink_handle;
enum { NVJITLINK_INPUT_PTX = 2, NVJITLINK_INPUT_LTOIR = 3 };

typedef nvjitlink_result (*nvjitlink_create_fn)(nvjitlink_handle *, uint32_t, const char **);
typedef nvjitlink_result (*nvjitlink_destroy_fn)(nvjitlink_handle *);
typedef nvjitlink_result (*nvjitlink_add_data_fn)(nvjitlink_handle, int, const void *, size_t,
						  const char *);
typedef nvjitlink_result (*nvjitlink_add_file_fn)(nvjitlink_handle, int, const char *);
typedef nvjitlink_result (*nvjitlink_cubin_size_fn)(nvjitlink_handle, size_t *);
typedef nvjitlink_result (*nvjitlink_cubin_fn)(nvjitlink_handle, void *);
typedef nvjitlink_result (*nvjitlink_complete_fn)(nvjitlink_handle);
typedef nvjitlink_result (*nvjitlink_ptx_size_fn)(nvjitlink_handle, size_t *);
typedef nvjitlink_result (*nvjitlink_ptx_fn)(nvjitlink_handle, char *);

/* The wrapped functions: the NVJITLINK lines of hooks.def, the one list of hooks. */
#define HOOK(sym, api, since, flavor, params, args)
#define DRIVER(sym, params)
enum nvjitlink_slot {
#define NVJITLINK(api, wrapper) NVJITLINK_##api,
#include "hooks.def"
#undef NVJITLINK
	NVJITLINK_SLOTS
};

static nvjitlink_result nvjitlink_create(nvjitlink_handle *, uint32_t, const char **);
static nvjitlink_result nvjitlink_destroy(nvjitlink_handle *);
static nvjitlink_result nvjitlink_add_data(nvjitlink_handle, int, const void *, size_t,
					   const char *);
static nvjitlink_result nvjitlink_add_file(nvjitlink_handle, int, const char *);
static nvjitlink_result nvjitlink_cubin(nvjitlink_handle, void *);

static const struct {
	const char *api;
	void *wrapper;
} nvjitlink_hooks[NVJITLINK_SLOTS] = {
#define NVJITLINK(api, wrapper) [NVJITLINK_##api] = { #api, COLOC_CAST(void *, wrapper) },
#include "hooks.def"
#undef NVJITLINK
};
#undef HOOK
#undef DRIVER

/*
 * Asked of the wrapped library itself, whether or not the application
 * dlsyms them: the cubin's size, and what the shadow link calls.  The
 * first is required; without the others there is no shadow link.
 */
#define NVJITLINK_ASKED(X)                  \
	X(nvJitLinkGetLinkedCubinSize)      \
	X(nvJitLinkCreate)                  \
	X(nvJitLinkAddData)                 \
	X(nvJitLinkAddFile)                 \
	X(nvJitLinkComplete)                \
	X(nvJitLinkGetLinkedPtxSize)        \
	X(nvJitLinkGetLinkedPtx)            \
	X(nvJitLinkDestroy)

enum nvjitlink_asked {
#define X(api) ASKED_##api,
	NVJITLINK_ASKED(X)
#undef X
	NVJITLINK_ASKED_N
};

static const char *const nvjitlink_asked_names[NVJITLINK_ASKED_N] = {
#define X(api) [ASKED_##api] = #api,
	NVJITLINK_ASKED(X)
#undef X
};

/* One input of an LTO link, kept for the shadow link. */
struct lto_input {
	int type;
	void *data;  /* a copy of AddData's bytes; NULL for AddFile */
	size_t size;
	char *name;  /* AddData's name (may be NULL) or AddFile's path */
};

/* A link created with -lto by a best-effort tenant, from creation to its cubin. */
struct lto_link {
	struct lto_link *next;
	nvjitlink_handle key;
	uint32_t nopts;
	char **opts;
	struct lto_input *inputs;
	unsigned ninputs;
	bool unkept; /* an input was not LTO-IR, or not kept: no shadow link */
};

static struct {
	void *real[NVJITLINK_SLOTS];      /* written once, atomically */
	void *asked[NVJITLINK_ASKED_N];   /* written before asked_done, atomically */
	bool asked_done;
	struct link_map *library;         /* the object wrapped, once chosen */
	pthread_mutex_t lock;             /* guards lto and every struct lto_link in it */
	struct lto_link *lto;
} nvjitlink = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The API name `name` stands for (plain, or __NAME_12_8 as nvJitLink.h makes it), or -1. */
static int nvjitlink_slot_of(const char *name)
{
	for (int i = 0; i < NVJITLINK_SLOTS; i++) {
		const char *api = nvjitlink_hooks[i].api;
		size_t n = strlen(api);
		const char *v;

		if (strcmp(name, api) == 0)
			return i;
		if (strncmp(name, "__", 2) != 0 || strncmp(name + 2, api, n) != 0 ||
		    name[2 + n] != '_')
			continue;
		/* _MAJOR_MINOR: digits, one underscore, digits. */
		v = name + 3 + n;
		if (*v < '0' || *v > '9')
			continue;
		v += strspn(v, "0123456789");
		if (*v != '_' || v[1] < '0' || v[1] > '9' || v[1 + strspn(v + 1, "0123456789")])
			continue;
		return i;
	}
	return -1;
}

static struct link_map *nvjitlink_object(const void *fn, const char **path)
{
	Dl_info info;
	struct link_map *map = NULL;
	const char *base;

	if (!dladdr1(fn, &info, (void **)&map, RTLD_DL_LINKMAP) || !info.dli_fname)
		return NULL;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	if (strncmp(base, "libnvJitLink", 12) != 0)
		return NULL;
	*path = info.dli_fname;
	return map;
}

/*
 * Whether `s` starts with `prefix`, in plain code: dlsym's answers for
 * other names come here first, among them AddressSanitizer's while it
 * initializes, when its own strcmp and strncmp wrappers cannot be called
 * yet (interpose.c, libc_dlopen).
 */
static bool starts_with(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (*s != *prefix)
			return false;
	return true;
}

void *coloc_nvjitlink_hook(const char *name, void *fn)
{
	int slot = starts_with(name, "nvJitLink") || starts_with(name, "__nvJitLink") ?
		   nvjitlink_slot_of(name) : -1;
	struct link_map *map, *none = NULL;
	const char *path = NULL;
	void *old = NULL;

	if (slot < 0 || fn == nvjitlink_hooks[slot].wrapper || !(map = nvjitlink_object(fn, &path)))
		return NULL;
	if (!__atomic_compare_exchange_n(&nvjitlink.library, &none, map, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    none != map) {
		coloc_log(COLOC_LOG_INFO, "dlsym: %s from a second nvJitLink (%s) is not intercepted",
			  name, path);
		return NULL;
	}
	if (!__atomic_load_n(&nvjitlink.asked_done, __ATOMIC_ACQUIRE)) {
		/* Asked of the same object, so that they serve the same links. */
		void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

		for (int i = 0; h && i < NVJITLINK_ASKED_N; i++)
			__atomic_store_n(&nvjitlink.asked[i],
					 coloc_real_dlsym(h, nvjitlink_asked_names[i]),
					 __ATOMIC_RELAXED);
		if (h)
			dlclose(h);
		if (!h || !nvjitlink.asked[ASKED_nvJitLinkGetLinkedCubinSize]) {
			coloc_log(COLOC_LOG_INFO, "dlsym: %s has no nvJitLinkGetLinkedCubinSize: "
				  "its links are not intercepted", path);
			return NULL;
		}
		__atomic_store_n(&nvjitlink.asked_done, true, __ATOMIC_RELEASE);
	}
	/* Plain and versioned names of one API: one ABI, any of them serves. */
	__atomic_compare_exchange_n(&nvjitlink.real[slot], &old, fn, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	coloc_log(COLOC_LOG_DEBUG, "dlsym: %s hooked", name);
	return nvjitlink_hooks[slot].wrapper;
}

#define REAL_NVJITLINK(api, type) \
	COLOC_CAST(type, __atomic_load_n(&nvjitlink.real[NVJITLINK_##api], __ATOMIC_ACQUIRE))
/* NULL until asked (asked_done, read with acquire, comes first). */
#define ASKED_NVJITLINK(api, type) \
	COLOC_CAST(type, __atomic_load_n(&nvjitlink.asked[ASKED_##api], __ATOMIC_RELAXED))

/* What the wrappers return when the library's function is unknown (never handed out so). */
#define NVJITLINK_ERROR_INTERNAL 6

static bool nvjitlink_recording(void)
{
	return !coloc_bypass() && coloc_cfg.role == COLOC_ROLE_BEST_EFFORT;
}

/* ---- the shadow link: the PTX of an LTO link */

static bool opts_have(uint32_t nopts, const char *const *opts, const char *opt)
{
	for (uint32_t i = 0; opts && i < nopts; i++)
		if (opts[i] && strcmp(opts[i], opt) == 0)
			return true;
	return false;
}

static void lto_link_free(struct lto_link *l)
{
	if (!l)
		return;
	for (uint32_t i = 0; i < l->nopts; i++)
		free(l->opts[i]);
	free(l->opts);
	for (unsigned i = 0; i < l->ninputs; i++) {
		free(l->inputs[i].data);
		free(l->inputs[i].name);
	}
	free(l->inputs);
	free(l);
}

/* Called with nvjitlink.lock held. */
static struct lto_link *lto_link_find(nvjitlink_handle key, bool unlink)
{
	struct lto_link **p, *l;

	for (p = &nvjitlink.lto; (l = *p); p = &l->next)
		if (l->key == key) {
			if (unlink)
				*p = l->next;
			return l;
		}
	return NULL;
}

/* A link created with -lto: its options are kept, copied. */
static void lto_link_begin(nvjitlink_handle key, uint32_t nopts, const char **opts)
{
	struct lto_link *l = calloc(1, sizeof(*l));

	if (l && nopts && !(l->opts = calloc(nopts, sizeof(*l->opts))))
		l->unkept = true;
	for (uint32_t i = 0; l && l->opts && i < nopts; i++, l->nopts++)
		if (!(l->opts[i] = strdup(opts[i] ? opts[i] : "")))
			l->unkept = true;
	if (!l || l->unkept) {
		coloc_log(COLOC_LOG_ERROR, "out of memory recording nvJitLink %p: "
			  "its kernels run original", (void *)key);
		lto_link_free(l);
		return;
	}
	l->key = key;
	pthread_mutex_lock(&nvjitlink.lock);
	l->next = nvjitlink.lto;
	nvjitlink.lto = l;
	pthread_mutex_unlock(&nvjitlink.lock);
}

/* An input of link `key`: LTO-IR is kept (its bytes, or its file's path). */
static void lto_link_input(nvjitlink_handle key, int type, const void *data, size_t size,
			   const char *name)
{
	struct lto_input in = { .type = type, .size = size };
	bool kept = false;
	struct lto_link *l;

	if (type == NVJITLINK_INPUT_LTOIR) {
		in.data = data ? malloc(size ? size : 1) : NULL;
		in.name = name ? strdup(name) : NULL;
		if (in.data)
			memcpy(in.data, data, size);
		kept = (in.data || !data) && (in.name || !name) && (in.data || in.name);
	}
	pthread_mutex_lock(&nvjitlink.lock);
	l = lto_link_find(key, false);
	if (l && kept) {
		struct lto_input *more = realloc(l->inputs, (l->ninputs + 1) * sizeof(*more));

		if (more) {
			l->inputs = more;
			l->inputs[l->ninputs++] = in;
			in.data = in.name = NULL;
		} else {
			kept = false;
		}
	}
	if (l && !kept)
		l->unkept = true;
	pthread_mutex_unlock(&nvjitlink.lock);
	free(in.data);
	free(in.name);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * Links l's inputs again, with -ptx, and gives capture.c the PTX for link
 * `key`.  Any failure leaves the link as it was: compiled code only.
 */
static void lto_link_shadow(nvjitlink_handle key, const struct lto_link *l)
{
	nvjitlink_create_fn create = ASKED_NVJITLINK(nvJitLinkCreate, nvjitlink_create_fn);
	nvjitlink_add_data_fn add_data = ASKED_NVJITLINK(nvJitLinkAddData, nvjitlink_add_data_fn);
	nvjitlink_add_file_fn add_file = ASKED_NVJITLINK(nvJitLinkAddFile, nvjitlink_add_file_fn);
	nvjitlink_complete_fn complete = ASKED_NVJITLINK(nvJitLinkComplete, nvjitlink_complete_fn);
	nvjitlink_ptx_size_fn ptx_size =
		ASKED_NVJITLINK(nvJitLinkGetLinkedPtxSize, nvjitlink_ptx_size_fn);
	nvjitlink_ptx_fn get_ptx = ASKED_NVJITLINK(nvJitLinkGetLinkedPtx, nvjitlink_ptx_fn);
	nvjitlink_destroy_fn destroy = ASKED_NVJITLINK(nvJitLinkDestroy, nvjitlink_destroy_fn);
	const char *step = "nvJitLinkCreate";
	nvjitlink_handle shadow = NULL;
	const char **opts = NULL;
	struct timespec t0;
	nvjitlink_result rc;
	uint32_t nopts = l->nopts;
	char *ptx = NULL;
	size_t size = 0;

	if (!create || !add_data || !add_file || !complete || !ptx_size || !get_ptx || !destroy) {
		coloc_log(COLOC_LOG_INFO, "nvJitLink %p: LTO link; the library has no "
			  "nvJitLinkGetLinkedPtx (or another function a second link needs): "
			  "its kernels run original", (void *)key);
		return;
	}
	if (!(opts = calloc(nopts + 1, sizeof(*opts)))) {
		coloc_log(COLOC_LOG_ERROR, "out of memory linking nvJitLink %p again for its PTX: "
			  "its kernels run original", (void *)key);
		return;
	}
	memcpy(opts, l->opts, nopts * sizeof(*opts));
	if (!opts_have(nopts, opts, "-ptx"))
		opts[nopts++] = "-ptx";
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = create(&shadow, nopts, opts);
	for (unsigned i = 0; rc == 0 && i < l->ninputs; i++) {
		const struct lto_input *in = &l->inputs[i];

		step = in->data ? "nvJitLinkAddData" : "nvJitLinkAddFile";
		rc = in->data ? add_data(shadow, in->type, in->data, in->size, in->name) :
				add_file(shadow, in->type, in->name);
	}
	if (rc == 0) {
		step = "nvJitLinkComplete";
		rc = complete(shadow);
	}
	if (rc == 0) {
		step = "nvJitLinkGetLinkedPtxSize";
		rc = ptx_size(shadow, &size);
	}
	if (rc == 0 && !(ptx = calloc(1, size + 1))) {
		coloc_log(COLOC_LOG_ERROR, "out of memory taking nvJitLink %p's PTX (%zu bytes): "
			  "its kernels run original", (void *)key, size);
		goto out;
	}
	if (rc == 0) {
		step = "nvJitLinkGetLinkedPtx";
		rc = get_ptx(shadow, ptx);
	}
	if (rc != 0) {
		coloc_log(COLOC_LOG_INFO, "nvJitLink %p: LTO link; a second link with -ptx for its "
			  "PTX failed (%s returned nvJitLink error %d): its kernels run original",
			  (void *)key, step, rc);
		goto out;
	}
	coloc_link_ptx(key, ptx, size);
	coloc_log(COLOC_LOG_INFO, "nvJitLink %p: LTO link; its PTX came from a second link "
		  "with -ptx (%zu bytes, %.1f ms)", (void *)key, strnlen(ptx, size), ms_since(&t0));
out:
	if (shadow)
		destroy(&shadow);
	free(ptx);
	free(opts);
}

/* When the application takes link `key`'s cubin: its PTX, if it was an LTO link of LTO-IR. */
static void lto_link_done(nvjitlink_handle key)
{
	struct lto_link *l;

	pthread_mutex_lock(&nvjitlink.lock);
	l = lto_link_find(key, true);
	pthread_mutex_unlock(&nvjitlink.lock);
	if (!l || !l->ninputs)
		goto out;
	if (l->unkept) {
		coloc_log(COLOC_LOG_INFO, "nvJitLink %p: LTO link with inputs other than LTO-IR: "
			  "no second link for its PTX", (void *)key);
		goto out;
	}
	lto_link_shadow(key, l);
out:
	lto_link_free(l);
}

/* ---- the wrappers */

static nvjitlink_result nvjitlink_create(nvjitlink_handle *handle, uint32_t nopts,
					 const char **opts)
{
	nvjitlink_create_fn real = REAL_NVJITLINK(nvJitLinkCreate, nvjitlink_create_fn);
	nvjitlink_result rc;

	if (!real)
		return NVJITLINK_ERROR_INTERNAL;
	rc = real(handle, nopts, opts);
	if (rc == 0 && handle && nvjitlink_recording()) {
		coloc_enter();
		coloc_link_begin(*handle);
		if (opts_have(nopts, opts, "-lto"))
			lto_link_begin(*handle, nopts, opts);
		coloc_leave();
	}
	return rc;
}

static nvjitlink_result nvjitlink_destroy(nvjitlink_handle *handle)
{
	nvjitlink_destroy_fn real = REAL_NVJITLINK(nvJitLinkDestroy, nvjitlink_destroy_fn);
	nvjitlink_handle key = handle ? *handle : NULL;
	nvjitlink_result rc;

	if (!real)
		return NVJITLINK_ERROR_INTERNAL;
	rc = real(handle);
	if (rc == 0 && key) {
		coloc_enter();
		coloc_link_end(key);
		pthread_mutex_lock(&nvjitlink.lock);
		lto_link_free(lto_link_find(key, true));
		pthread_mutex_unlock(&nvjitlink.lock);
		coloc_leave();
	}
	return rc;
}

static nvjitlink_result nvjitlink_add_data(nvjitlink_handle handle, int type, const void *data,
					   size_t size, const char *name)
{
	nvjitlink_add_data_fn real = REAL_NVJITLINK(nvJitLinkAddData, nvjitlink_add_data_fn);
	nvjitlink_result rc;

	if (!real)
		return NVJITLINK_ERROR_INTERNAL;
	rc = real(handle, type, data, size, name);
	if (rc == 0 && nvjitlink_recording()) {
		coloc_enter();
		coloc_log(COLOC_LOG_DEBUG, "nvJitLinkAddData %p: input of type %d, %zu bytes (%s)",
			  (void *)handle, type, size, name ? name : "no name");
		coloc_link_input(handle, type == NVJITLINK_INPUT_PTX, data, size);
		lto_link_input(handle, type, data, size, name);
		coloc_leave();
	}
	return rc;
}

static nvjitlink_result nvjitlink_add_file(nvjitlink_handle handle, int type, const char *path)
{
	nvjitlink_add_file_fn real = REAL_NVJITLINK(nvJitLinkAddFile, nvjitlink_add_file_fn);
	nvjitlink_result rc;

	if (!real)
		return NVJITLINK_ERROR_INTERNAL;
	rc = real(handle, type, path);
	if (rc == 0 && path && nvjitlink_recording()) {
		coloc_enter();
		coloc_link_input_file(handle, type == NVJITLINK_INPUT_PTX, path);
		lto_link_input(handle, type, NULL, 0, path);
		coloc_leave();
	}
	return rc;
}

static nvjitlink_result nvjitlink_cubin(nvjitlink_handle handle, void *cubin)
{
	nvjitlink_cubin_fn real = REAL_NVJITLINK(nvJitLinkGetLinkedCubin, nvjitlink_cubin_fn);
	nvjitlink_cubin_size_fn size_fn =
		__atomic_load_n(&nvjitlink.asked_done, __ATOMIC_ACQUIRE) ?
			ASKED_NVJITLINK(nvJitLinkGetLinkedCubinSize, nvjitlink_cubin_size_fn) :
			NULL;
	nvjitlink_result rc;
	size_t size = 0;

	if (!real)
		return NVJITLINK_ERROR_INTERNAL;
	rc = real(handle, cubin);
	if (rc != 0 || !cubin || !nvjitlink_recording())
		return rc;
	coloc_enter();
	if (size_fn && size_fn(handle, &size) == 0) {
		coloc_link_output(handle, cubin, size, true);
		lto_link_done(handle);
	} else {
		coloc_log(COLOC_LOG_INFO, "nvJitLink did not say how large its cubin is: "
			  "its kernels run original");
	}
	coloc_leave();
	return rc;
}
