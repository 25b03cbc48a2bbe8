/*
 * A fake libnvJitLink for the runtime tests (nvjitlink.test).
 *
 * It exports what Numba's binding (cuda-python) dlsyms, by plain name, and
 * the versioned names nvJitLink.h's macros make (__nvJitLinkCreate_12_8).
 * It cannot compile PTX: the "linked" cubin is the file COLOC_FAKE_NVJITLINK_CUBIN
 * names (a real cubin the test made with ptxas from the same PTX), which the
 * fake driver loads as it would any cubin.  Inputs of any type are accepted
 * and counted.
 *
 * LTO-IR (input type 3) is PTX text tagged so: it needs -lto, as the real
 * library's does.  A link created with -lto and -ptx emits PTX instead of a
 * cubin (nvJitLink's documentation: -ptx "emit ptx after linking instead of
 * cubin; only supported with -lto"), the text of its one LTO-IR input;
 * without -ptx there is no linked PTX.  COLOC_FAKE_NVJITLINK_NO_PTX=1 makes a
 * -ptx link fail at nvJitLinkComplete.  COLOC_FAKE_NVJITLINK_LOG names a
 * file each nvJitLinkCreate appends its options to.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

/* nvJitLink.h's values (LTO_NOT_ENABLED is in CUDA 13's header). */
enum {
	NVJITLINK_SUCCESS,
	NVJITLINK_ERROR_INVALID_INPUT = 3,
	NVJITLINK_ERROR_NVVM_COMPILE = 5,
	NVJITLINK_ERROR_INTERNAL = 6,
	NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS = 11,
	NVJITLINK_ERROR_LTO_NOT_ENABLED = 18,
};
enum { NVJITLINK_INPUT_LTOIR = 3 };

struct fake_nvjitlink {
	unsigned inputs, ltoir_inputs;
	bool lto, ptx_output;
	char *ltoir; /* the first LTO-IR input, as text */
	char *ptx;   /* the linked PTX (-ptx) */
	unsigned char *cubin;
	size_t size;
};

#define FAKE_NVJITLINK_API(X)                                                             \
	X(int, nvJitLinkCreate, (struct fake_nvjitlink **h, uint32_t n, const char **opts),  \
	  (h, n, opts))                                                                      \
	X(int, nvJitLinkDestroy, (struct fake_nvjitlink **h), (h))                           \
	X(int, nvJitLinkAddData,                                                             \
	  (struct fake_nvjitlink *h, int type, const void *data, size_t size, const char *name), \
	  (h, type, data, size, name))                                                       \
	X(int, nvJitLinkAddFile, (struct fake_nvjitlink *h, int type, const char *path),     \
	  (h, type, path))                                                                   \
	X(int, nvJitLinkComplete, (struct fake_nvjitlink *h), (h))                           \
	X(int, nvJitLinkGetLinkedCubinSize, (struct fake_nvjitlink *h, size_t *size), (h, size)) \
	X(int, nvJitLinkGetLinkedCubin, (struct fake_nvjitlink *h, void *cubin), (h, cubin)) \
	X(int, nvJitLinkGetLinkedPtxSize, (struct fake_nvjitlink *h, size_t *size), (h, size)) \
	X(int, nvJitLinkGetLinkedPtx, (struct fake_nvjitlink *h, char *ptx), (h, ptx))

#define X(ret, name, params, args) FAKE_EXPORT ret name params;
FAKE_NVJITLINK_API(X)
#undef X

int nvJitLinkCreate(struct fake_nvjitlink **h, uint32_t n, const char **opts)
{
	const char *log = getenv("COLOC_FAKE_NVJITLINK_LOG");
	bool lto = false, ptx = false;
	FILE *f;

	for (uint32_t i = 0; opts && i < n; i++) {
		lto |= opts[i] && strcmp(opts[i], "-lto") == 0;
		ptx |= opts[i] && strcmp(opts[i], "-ptx") == 0;
	}
	if (log && (f = fopen(log, "a"))) {
		fputs("nvJitLinkCreate", f);
		for (uint32_t i = 0; opts && i < n; i++)
			fprintf(f, " %s", opts[i] ? opts[i] : "(null)");
		fputc('\n', f);
		fclose(f);
	}
	if (!h)
		return NVJITLINK_ERROR_INVALID_INPUT;
	if (ptx && !lto)
		return NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS;
	if (!(*h = calloc(1, sizeof(**h))))
		return NVJITLINK_ERROR_INTERNAL;
	(*h)->lto = lto;
	(*h)->ptx_output = ptx;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkDestroy(struct fake_nvjitlink **h)
{
	if (!h || !*h)
		return NVJITLINK_ERROR_INVALID_INPUT;
	free((*h)->cubin);
	free((*h)->ltoir);
	free((*h)->ptx);
	free(*h);
	*h = NULL;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkAddData(struct fake_nvjitlink *h, int type, const void *data, size_t size,
		     const char *name)
{
	(void)name;
	if (!h || !data || !size)
		return NVJITLINK_ERROR_INVALID_INPUT;
	if (type == NVJITLINK_INPUT_LTOIR) {
		if (!h->lto)
			return NVJITLINK_ERROR_LTO_NOT_ENABLED;
		if (!h->ltoir_inputs && !(h->ltoir = strndup(data, size)))
			return NVJITLINK_ERROR_INTERNAL;
		h->ltoir_inputs++;
	}
	h->inputs++;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkAddFile(struct fake_nvjitlink *h, int type, const char *path)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	char *data = NULL;
	long n = 0;
	int rc = NVJITLINK_ERROR_INVALID_INPUT;

	if (h && f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) &&
	    fread(data, 1, (size_t)n, f) == (size_t)n)
		rc = nvJitLinkAddData(h, type, data, (size_t)n, path);
	if (f)
		fclose(f);
	free(data);
	return rc;
}

int nvJitLinkComplete(struct fake_nvjitlink *h)
{
	const char *path = getenv("COLOC_FAKE_NVJITLINK_CUBIN");
	FILE *f;
	long n;

	if (h && h->ptx_output) {
		/* The fake's LTO "links" one LTO-IR input: its text is the PTX. */
		const char *no_ptx = getenv("COLOC_FAKE_NVJITLINK_NO_PTX");

		if ((no_ptx && strcmp(no_ptx, "1") == 0) || h->ltoir_inputs != 1 ||
		    h->inputs != 1)
			return NVJITLINK_ERROR_NVVM_COMPILE;
		free(h->ptx);
		h->ptx = strdup(h->ltoir);
		return h->ptx ? NVJITLINK_SUCCESS : NVJITLINK_ERROR_INTERNAL;
	}
	if (!h || !h->inputs || !path || !(f = fopen(path, "rb")))
		return NVJITLINK_ERROR_INTERNAL;
	free(h->cubin);
	h->cubin = NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (h->cubin = malloc((size_t)n)) && fread(h->cubin, 1, (size_t)n, f) == (size_t)n)
		h->size = (size_t)n;
	fclose(f);
	return h->size ? NVJITLINK_SUCCESS : NVJITLINK_ERROR_INTERNAL;
}

int nvJitLinkGetLinkedCubinSize(struct fake_nvjitlink *h, size_t *size)
{
	if (!h || !h->cubin || !size)
		return NVJITLINK_ERROR_INVALID_INPUT;
	*size = h->size;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkGetLinkedCubin(struct fake_nvjitlink *h, void *cubin)
{
	if (!h || !h->cubin || !cubin)
		return NVJITLINK_ERROR_INVALID_INPUT;
	memcpy(cubin, h->cubin, h->size);
	return NVJITLINK_SUCCESS;
}

/* Linked PTX exists only after a link created with -lto and -ptx. */
int nvJitLinkGetLinkedPtxSize(struct fake_nvjitlink *h, size_t *size)
{
	if (!h || !h->ptx || !size)
		return NVJITLINK_ERROR_INVALID_INPUT;
	*size = strlen(h->ptx) + 1;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkGetLinkedPtx(struct fake_nvjitlink *h, char *ptx)
{
	if (!h || !h->ptx || !ptx)
		return NVJITLINK_ERROR_INVALID_INPUT;
	memcpy(ptx, h->ptx, strlen(h->ptx) + 1);
	return NVJITLINK_SUCCESS;
}

/* The names nvJitLink.h's macros give C programs: the same functions. */
#define X(ret, name, params, args) \
	FAKE_EXPORT ret __##name##_12_8 params; \
	ret __##name##_12_8 params { return name args; }
FAKE_NVJITLINK_API(X)
#undef X
