/*
 * cuGetProcAddress by the real driver's rules, over fake_api.def: the
 * newest ABI version of the base name that `cuda_version` knows, and its
 * per-thread-default-stream flavour when the flags ask for one and the API
 * has it.  A base name that exists only in newer versions is "version not
 * sufficient", which differs from an unknown name; both leave *pfn NULL.
 */
#include <string.h>

#include "fake.h"

/* Any function pointer fits the table; void (*)(void) is the cast that warns nowhere. */
typedef void (*fake_fn)(void);

struct fake_proc {
	const char *base;
	const char *symbol;
	int since;
	bool per_thread;
	fake_fn fn;
};

static const struct fake_proc procs[] = {
#define FAKE_PROC(base, symbol, since, per_thread) \
	{#base, #symbol, since, per_thread, (fake_fn)symbol},
#include "fake_api.def"
#undef FAKE_PROC
};

_Static_assert(sizeof(void *) == sizeof(fake_fn), "function pointers must fit a void *");

/* The row cuGetProcAddress returns, or NULL with *status saying why. */
static const struct fake_proc *proc_pick(const char *symbol, int cuda_version, cuuint64_t flags,
					 CUdriverProcAddressQueryResult *status)
{
	const struct fake_proc *legacy = NULL, *per_thread = NULL;
	bool known = false;
	size_t i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		const struct fake_proc *p = &procs[i];
		const struct fake_proc **best = p->per_thread ? &per_thread : &legacy;

		if (strcmp(p->base, symbol) != 0)
			continue;
		known = true;
		if (p->since <= cuda_version && (!*best || p->since > (*best)->since))
			*best = p;
	}
	if (!legacy) {
		*status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT :
				  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
		return NULL;
	}
	*status = CU_GET_PROC_ADDRESS_SUCCESS;
	if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && per_thread)
		return per_thread;
	return legacy;
}

static CUresult get_proc(const char *name, const char *symbol, void **pfn, int cuda_version,
			 cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	const struct fake_proc *p;
	struct coloc_buf line;

	fake_begin(&line, name);
	coloc_buf_printf(&line, " symbol=%s version=%d flags=%llu", symbol ? symbol : "(null)",
			 cuda_version, (unsigned long long)flags);
	if (!symbol || !pfn || flags > CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	p = proc_pick(symbol, cuda_version, flags, &st);
	if (status)
		*status = st;
	if (!p) {
		*pfn = NULL;
		coloc_buf_puts(&line, st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ?
					      " -> version-not-sufficient" : " -> not-found");
		/* The outcome is in the arrow; no error= repeats it. */
		fake_end(&line, CUDA_SUCCESS);
		return CUDA_ERROR_NOT_FOUND;
	}
	memcpy(pfn, &p->fn, sizeof(*pfn));
	coloc_buf_printf(&line, " -> %s", p->symbol);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags)
{
	return get_proc(__func__, symbol, pfn, cuda_version, flags, NULL);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	return get_proc(__func__, symbol, pfn, cuda_version, flags, status);
}
