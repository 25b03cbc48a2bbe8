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
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "capture.h"

/* nvJitLink.h's types, as far as colocc needs them. */
typedef int nvjitlink_result; /* NVJITLINK_SUCCESS is 0 */
typedef void *nvjitlink_handle;
enum { NVJITLINK_INPUT_PTX = 2 };

typedef nvjitlink_result (*nvjitlink_create_fn)(nvjitlink_handle *, uint32_t, const char **);
typedef nvjitlink_result (*nvjitlink_destroy_fn)(nvjitlink_handle *);
typedef nvjitlink_result (*nvjitlink_add_data_fn)(nvjitlink_handle, int, const void *, size_t,
						  const char *);
typedef nvjitlink_result (*nvjitlink_add_file_fn)(nvjitlink_handle, int, const char *);
typedef nvjitlink_result (*nvjitlink_cubin_size_fn)(nvjitlink_handle, size_t *);
typedef nvjitlink_result (*nvjitlink_cubin_fn)(nvjitlink_handle, void *);

/* The wrapped functions: API name, wrapper.  GetLinkedCubinSize is only asked. */
#define NVJITLINK_HOOKS(X)                          \
	X(nvJitLinkCreate, nvjitlink_create)        \
	X(nvJitLinkDestroy, nvjitlink_destroy)      \
	X(nvJitLinkAddData, nvjitlink_add_data)     \
	X(nvJitLinkAddFile, nvjitlink_add_file)     \
	X(nvJitLinkGetLinkedCubin, nvjitlink_cubin)

enum nvjitlink_slot {
#define X(api, wrapper) NVJITLINK_##api,
	NVJITLINK_HOOKS(X)
#undef X
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
#define X(api, wrapper) [NVJITLINK_##api] = { #api, COLOC_CAST(void *, wrapper) },
	NVJITLINK_HOOKS(X)
#undef X
};

static struct {
	void *real[NVJITLINK_SLOTS]; /* written once, atomically */
	void *cubin_size;            /* the library's nvJitLinkGetLinkedCubinSize */
	struct link_map *library;    /* the object wrapped, once chosen */
} nvjitlink;

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

void *coloc_nvjitlink_hook(const char *name, void *fn)
{
	int slot = name[0] == 'n' || name[0] == '_' ? nvjitlink_slot_of(name) : -1;
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
	if (!__atomic_load_n(&nvjitlink.cubin_size, __ATOMIC_ACQUIRE)) {
		/* Asked of the same object, so that the size is that of the same link. */
		void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD), *size_fn = NULL;

		if (h) {
			size_fn = coloc_real_dlsym(h, "nvJitLinkGetLinkedCubinSize");
			dlclose(h);
		}
		if (!size_fn) {
			coloc_log(COLOC_LOG_INFO, "dlsym: %s has no nvJitLinkGetLinkedCubinSize: "
				  "its links are not intercepted", path);
			return NULL;
		}
		__atomic_store_n(&nvjitlink.cubin_size, size_fn, __ATOMIC_RELEASE);
	}
	/* Plain and versioned names of one API: one ABI, any of them serves. */
	__atomic_compare_exchange_n(&nvjitlink.real[slot], &old, fn, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	coloc_log(COLOC_LOG_DEBUG, "dlsym: %s hooked", name);
	return nvjitlink_hooks[slot].wrapper;
}

#define REAL_NVJITLINK(api, type) \
	COLOC_CAST(type, __atomic_load_n(&nvjitlink.real[NVJITLINK_##api], __ATOMIC_ACQUIRE))

/* What the wrappers return when the library's function is unknown (never handed out so). */
#define NVJITLINK_ERROR_INTERNAL 6

static bool nvjitlink_recording(void)
{
	return !coloc_bypass() && coloc_cfg.role == COLOC_ROLE_BEST_EFFORT;
}

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
		coloc_leave();
	}
	return rc;
}

static nvjitlink_result nvjitlink_cubin(nvjitlink_handle handle, void *cubin)
{
	nvjitlink_cubin_fn real = REAL_NVJITLINK(nvJitLinkGetLinkedCubin, nvjitlink_cubin_fn);
	nvjitlink_cubin_size_fn size_fn =
		COLOC_CAST(nvjitlink_cubin_size_fn,
			   __atomic_load_n(&nvjitlink.cubin_size, __ATOMIC_ACQUIRE));
	nvjitlink_result rc;
	size_t size = 0;

	if (!real)
		return NVJITLINK_ERROR_INTERNAL;
	rc = real(handle, cubin);
	if (rc != 0 || !cubin || !nvjitlink_recording())
		return rc;
	coloc_enter();
	if (size_fn && size_fn(handle, &size) == 0)
		coloc_link_output(handle, cubin, size, true);
	else
		coloc_log(COLOC_LOG_INFO, "nvJitLink did not say how large its cubin is: "
			  "its kernels run original");
	coloc_leave();
	return rc;
}
