/*
 * A fake libnvJitLink for the runtime tests (nvjitlink.test).
 *
 * It exports what Numba's binding (cuda-python) dlsyms, by plain name, and
 * the versioned names nvJitLink.h's macros make (__nvJitLinkCreate_12_8).
 * It cannot compile PTX: the "linked" cubin is the file COLOC_FAKE_NVJITLINK_CUBIN
 * names (a real cubin the test made with ptxas from the same PTX), which the
 * fake driver loads as it would any cubin.  Inputs of any type are accepted
 * and counted; nothing else is checked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

enum { NVJITLINK_SUCCESS, NVJITLINK_ERROR_INVALID_INPUT = 4, NVJITLINK_ERROR_INTERNAL = 6 };

struct fake_nvjitlink {
	unsigned inputs;
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
	X(int, nvJitLinkGetLinkedCubin, (struct fake_nvjitlink *h, void *cubin), (h, cubin))

#define X(ret, name, params, args) FAKE_EXPORT ret name params;
FAKE_NVJITLINK_API(X)
#undef X

int nvJitLinkCreate(struct fake_nvjitlink **h, uint32_t n, const char **opts)
{
	(void)n;
	(void)opts;
	if (!h || !(*h = calloc(1, sizeof(**h))))
		return NVJITLINK_ERROR_INTERNAL;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkDestroy(struct fake_nvjitlink **h)
{
	if (!h || !*h)
		return NVJITLINK_ERROR_INVALID_INPUT;
	free((*h)->cubin);
	free(*h);
	*h = NULL;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkAddData(struct fake_nvjitlink *h, int type, const void *data, size_t size,
		     const char *name)
{
	(void)type;
	(void)name;
	if (!h || !data || !size)
		return NVJITLINK_ERROR_INVALID_INPUT;
	h->inputs++;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkAddFile(struct fake_nvjitlink *h, int type, const char *path)
{
	FILE *f = path ? fopen(path, "rb") : NULL;

	(void)type;
	if (!h || !f)
		return NVJITLINK_ERROR_INVALID_INPUT;
	fclose(f);
	h->inputs++;
	return NVJITLINK_SUCCESS;
}

int nvJitLinkComplete(struct fake_nvjitlink *h)
{
	const char *path = getenv("COLOC_FAKE_NVJITLINK_CUBIN");
	FILE *f;
	long n;

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

/* The names nvJitLink.h's macros give C programs: the same functions. */
#define X(ret, name, params, args) \
	FAKE_EXPORT ret __##name##_12_8 params; \
	ret __##name##_12_8 params { return name args; }
FAKE_NVJITLINK_API(X)
#undef X
