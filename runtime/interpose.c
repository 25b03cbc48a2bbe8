/*
 * How programs reach colocc's hooks.
 *
 * A program may call the driver through three doors, and each needs its own
 * interception:
 *
 *  1. Linked against libcuda.so.1: LD_PRELOAD puts libcoloc's exported
 *     symbols (hooks.c) first in the global scope.
 *  2. dlopen("libcuda.so.1") and dlsym: libcoloc exports dlsym itself, in
 *     both glibc symbol versions (GLIBC_2.2.5 for programs built before
 *     glibc 2.34 moved it into libc.so.6, GLIBC_2.34 after), and answers a
 *     hooked name found in the driver with its hook.
 *  3. cuGetProcAddress / cuGetProcAddress_v2, how the CUDA runtime (and so
 *     PyTorch, CuPy, Numba's bindings) finds every driver function since
 *     CUDA 11.3.  The hook asks the driver first and returns colocc's
 *     function only when the ABI the driver chose for (name, version,
 *     flags) is the one hooks.def declares; anything else, unknown names
 *     included, is the driver's answer unchanged.  For a CUDA version newer
 *     than hooks.def knows, the driver's answer must be the same function it
 *     gives for the newest version colocc knows; if the ABI moved on, the
 *     program gets the driver's function and colocc says so in its log.
 *
 * dlsym(RTLD_NEXT, ...) cannot simply be forwarded: glibc resolves it
 * relative to the object that called dlsym, which would now be libcoloc, and
 * an interposer loaded after libcoloc would be handed its own symbol back
 * (the "recursive dlsym" hangs other interposers suffer).  It is resolved
 * here, from the caller's position in the link map.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "capture.h"

#if defined(__x86_64__)
#define COLOC_GLIBC_OLD "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define COLOC_GLIBC_OLD "GLIBC_2.17"
#else
#error "libcoloc knows dlsym's glibc symbol versions for x86_64 and aarch64 only"
#endif

typedef void *(*dlsym_fn)(void *, const char *);

void *coloc_real_slots[SLOT_COUNT];
static dlsym_fn real_dlsym_fn;
static void *driver_handle;

static dlsym_fn real_dlsym(void)
{
	dlsym_fn f = __atomic_load_n(&real_dlsym_fn, __ATOMIC_ACQUIRE);

	if (f)
		return f;
	/* dlvsym is not interposed, and RTLD_NEXT from here is libc (or libdl). */
	f = COLOC_CAST(dlsym_fn, dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
	if (!f)
		f = COLOC_CAST(dlsym_fn, dlvsym(RTLD_NEXT, "dlsym", COLOC_GLIBC_OLD));
	__atomic_store_n(&real_dlsym_fn, f, __ATOMIC_RELEASE);
	return f;
}

/*
 * libc's own dlopen and dlclose, for next_symbol: AddressSanitizer's
 * runtime, preloaded before libcoloc, resolves its interceptors with
 * dlsym(RTLD_NEXT) while it initializes, and its dlopen wrapper, called
 * then, jumps to address 0.  The C library is after libcoloc in every
 * order, so RTLD_NEXT from here passes over such wrappers (and where it
 * finds no dlopen, the one the program sees is called).
 */
typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

static void *libc_function(const char *name)
{
	void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.34");

	return f ? f : dlvsym(RTLD_NEXT, name, COLOC_GLIBC_OLD);
}

static void *libc_dlopen(const char *file, int mode)
{
	static dlopen_fn real;
	dlopen_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);

	if (!f) {
		f = COLOC_CAST(dlopen_fn, libc_function("dlopen"));
		if (!f)
			return dlopen(file, mode);
		__atomic_store_n(&real, f, __ATOMIC_RELEASE);
	}
	return f(file, mode);
}

static void libc_dlclose(void *handle)
{
	static dlclose_fn real;
	dlclose_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);

	if (!f) {
		f = COLOC_CAST(dlclose_fn, libc_function("dlclose"));
		if (!f) {
			dlclose(handle);
			return;
		}
		__atomic_store_n(&real, f, __ATOMIC_RELEASE);
	}
	f(handle);
}

static void *driver(void)
{
	void *h = __atomic_load_n(&driver_handle, __ATOMIC_ACQUIRE);

	if (h)
		return h;
	h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libcuda.so.1", RTLD_LAZY);
	if (!h) {
		coloc_log(COLOC_LOG_ERROR, "cannot load the CUDA driver (libcuda.so.1): %s", dlerror());
		return NULL;
	}
	__atomic_store_n(&driver_handle, h, __ATOMIC_RELEASE);
	return h;
}

bool coloc_driver_mapped(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h != NULL;
}

bool coloc_driver_opened(void)
{
	return __atomic_load_n(&driver_handle, __ATOMIC_ACQUIRE) != NULL;
}

void *coloc_real_dlsym(void *handle, const char *symbol)
{
	dlsym_fn d = real_dlsym();

	return d ? d(handle, symbol) : NULL;
}

void *coloc_driver_symbol(const char *symbol)
{
	void *h = driver();
	dlsym_fn d = real_dlsym();

	return h && d ? d(h, symbol) : NULL;
}

void coloc_real_offer(enum coloc_slot slot, void *fn)
{
	void *none = NULL;

	if (fn)
		__atomic_compare_exchange_n(&coloc_real_slots[slot], &none, fn, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

void *coloc_real_resolve(enum coloc_slot slot)
{
	void *fn = coloc_driver_symbol(coloc_slots[slot].symbol);
	if (!fn) {
		static bool logged[SLOT_COUNT];

		if (!__atomic_exchange_n(&logged[slot], true, __ATOMIC_RELAXED))
			coloc_log(COLOC_LOG_ERROR, "the CUDA driver has no %s", coloc_slots[slot].symbol);
		return NULL;
	}
	coloc_real_offer(slot, fn);
	return __atomic_load_n(&coloc_real_slots[slot], __ATOMIC_ACQUIRE);
}

static int slot_by_symbol(const char *name)
{
	if (name[0] != 'c' || name[1] != 'u')
		return -1;
	for (int i = 0; i < SLOT_HOOKS; i++)
		if (strcmp(coloc_slots[i].symbol, name) == 0)
			return i;
	return -1;
}

static struct link_map *map_of(const void *addr)
{
	Dl_info info;
	struct link_map *map = NULL;

	if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP))
		return NULL;
	return map;
}

static bool from_driver(const void *fn)
{
	Dl_info info;
	const char *base;

	if (!dladdr(fn, &info) || !info.dli_fname)
		return false;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	return strncmp(base, "libcuda.so", 10) == 0;
}

/* dlsym(RTLD_NEXT, name) as glibc answers it for `caller`. */
static void *next_symbol(const void *caller, const char *name)
{
	struct link_map *self = map_of(caller), *l, *found[8];
	void *seen[8];
	unsigned n = 0;
	dlsym_fn d = real_dlsym();

	if (!self || !d)
		return NULL;
	for (l = self->l_next; l; l = l->l_next) {
		void *h, *fn;
		struct link_map *def;

		if (!l->l_name || !l->l_name[0])
			continue;
		h = libc_dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		/* dlsym(h) also searches l's dependencies: keep only l's own. */
		fn = d(h, name);
		libc_dlclose(h);
		def = fn ? map_of(fn) : NULL;
		if (def == l)
			return fn;
		/*
		 * The dynamic loader's own handle answers none of its symbols
		 * (glibc 2.36: not __tls_get_addr nor _dl_get_tls_static_info,
		 * which AddressSanitizer asks for with RTLD_NEXT); an earlier
		 * object's dependencies may have: its definition is the next
		 * one when no object between defines the name.
		 */
		for (unsigned i = 0; i < n; i++)
			if (found[i] == l)
				return seen[i];
		if (def && n < sizeof(found) / sizeof(found[0]))
			found[n] = def, seen[n++] = fn;
	}
	return NULL;
}

static void *answer_dlsym(void *handle, const char *name, const void *caller)
{
	dlsym_fn d = real_dlsym();
	void *fn;
	int slot;

	if (!d)
		return NULL;
	if (handle == RTLD_NEXT)
		fn = next_symbol(caller, name);
	else
		fn = d(handle, name);
	if (!fn || !name || coloc_cfg.disabled)
		return fn;
	slot = slot_by_symbol(name);
	if (slot < 0) {
		/* nvJitLink's functions, for links outside the driver (nvjitlink.c). */
		void *hook = coloc_nvjitlink_hook(name, fn);

		return hook ? hook : fn;
	}
	if (fn == coloc_slots[slot].hook || !from_driver(fn))
		return fn;
	coloc_real_offer(slot, fn);
	coloc_log(COLOC_LOG_DEBUG, "dlsym: %s hooked", name);
	return coloc_slots[slot].hook;
}

/* Two definitions so that each glibc version of dlsym has its own address. */
void *coloc_dlsym_new(void *handle, const char *name);
void *coloc_dlsym_old(void *handle, const char *name);
__asm__(".symver coloc_dlsym_new, dlsym@@GLIBC_2.34");
__asm__(".symver coloc_dlsym_old, dlsym@" COLOC_GLIBC_OLD);

COLOC_EXPORT void *coloc_dlsym_new(void *handle, const char *name)
{
	return answer_dlsym(handle, name, __builtin_return_address(0));
}

COLOC_EXPORT void *coloc_dlsym_old(void *handle, const char *name)
{
	return answer_dlsym(handle, name, __builtin_return_address(0));
}

/*
 * Which hooks.def line the driver's answer for (api, version, flags) is:
 * the newest ABI of `api` not newer than `version`, in the stream flavor
 * the flags ask for.  -1 when colocc does not hook that ABI.
 */
static int slot_for_api(const char *api, int version, cuuint64_t flags)
{
	enum coloc_stream_flavor want = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ?
						STREAM_PTDS : STREAM_LEGACY;
	int best = -1;

	if (api[0] != 'c' || api[1] != 'u')
		return -1;
	for (int i = 0; i < SLOT_HOOKS; i++) {
		const struct coloc_slot_info *s = &coloc_slots[i];

		if (strcmp(s->api, api) != 0 || s->since > version)
			continue;
		if (s->flavor != STREAM_NONE && s->flavor != want)
			continue;
		if (best < 0 || s->since > coloc_slots[best].since)
			best = i;
	}
	return best;
}

typedef CUresult (*getproc_any_fn)(const char *, void **, int, cuuint64_t,
				   CUdriverProcAddressQueryResult *);

/*
 * The driver has answered `*pfn` for (symbol, version, flags); replaces it
 * by colocc's hook when that is the ABI colocc hooks.  `ask` repeats the
 * question for another version (to compare ABIs).
 */
static void answer_proc(const char *symbol, void **pfn, int version, cuuint64_t flags,
			void *ask_ctx,
			void *(*ask)(void *ask_ctx, const char *, int, cuuint64_t))
{
	int slot;

	if (!symbol || !pfn || !*pfn)
		return;
	slot = slot_for_api(symbol, version, flags);
	if (slot < 0)
		return;
	if (*pfn == coloc_slots[slot].hook)
		return;
	if (version > COLOC_HOOKS_CUDA_VERSION &&
	    ask(ask_ctx, symbol, COLOC_HOOKS_CUDA_VERSION, flags) != *pfn) {
		coloc_log(COLOC_LOG_WARN,
			  "cuGetProcAddress: %s for CUDA %d is a newer ABI than colocc knows "
			  "(%d); it is not intercepted",
			  symbol, version, COLOC_HOOKS_CUDA_VERSION);
		return;
	}
	coloc_real_offer(slot, *pfn);
	if (coloc_real(slot) != *pfn) {
		/* Another answer for the same ABI is on record: both are the driver's. */
		coloc_log(COLOC_LOG_DEBUG, "cuGetProcAddress: %s answered with another address",
			  symbol);
	}
	coloc_log(COLOC_LOG_DEBUG, "cuGetProcAddress: %s (CUDA %d, flags %llu) -> %s", symbol,
		  version, (unsigned long long)flags, coloc_slots[slot].symbol);
	*pfn = coloc_slots[slot].hook;
}

static void *ask_v1(void *ctx, const char *symbol, int version, cuuint64_t flags)
{
	void *fn = NULL;

	if (COLOC_CAST(cuGetProcAddress_fn, ctx)(symbol, &fn, version, flags) != CUDA_SUCCESS)
		return NULL;
	return fn;
}

static void *ask_v2(void *ctx, const char *symbol, int version, cuuint64_t flags)
{
	void *fn = NULL;

	if (COLOC_CAST(cuGetProcAddress_v2_fn, ctx)(symbol, &fn, version, flags, NULL) != CUDA_SUCCESS)
		return NULL;
	return fn;
}

CUresult hook_cuGetProcAddress(cuGetProcAddress_fn real, const char *symbol, void **pfn,
			       int version, cuuint64_t flags)
{
	CUresult rc = real(symbol, pfn, version, flags);

	if (rc == CUDA_SUCCESS)
		answer_proc(symbol, pfn, version, flags, COLOC_CAST(void *, real), ask_v1);
	return rc;
}

CUresult hook_cuGetProcAddress_v2(cuGetProcAddress_v2_fn real, const char *symbol, void **pfn,
				  int version, cuuint64_t flags,
				  CUdriverProcAddressQueryResult *status)
{
	CUresult rc = real(symbol, pfn, version, flags, status);

	if (rc == CUDA_SUCCESS)
		answer_proc(symbol, pfn, version, flags, COLOC_CAST(void *, real), ask_v2);
	return rc;
}
