/*
 * Device memory calls for mem.test, in the order the arguments give them,
 * through the driver's exported symbols (libcoloc.so interposes on them).
 *
 *   alloc:N async:N managed:N pitch:W:H create:N   allocate (N bytes)
 *   free:I     frees the I-th allocation made (from 0), the way it was made
 *   info       cuMemGetInfo
 *   sleep:MS
 *
 * One line per step: "app: STEP: RC" (and free=/total= for info).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_abi.h"

CUresult cuInit(unsigned flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream stream);
CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned flags);
CUresult cuMemAllocPitch_v2(CUdeviceptr *ptr, size_t *pitch, size_t width, size_t height,
			    unsigned elem);
CUresult cuMemFree_v2(CUdeviceptr ptr);
CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream stream);
CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t bytes,
		     const CUmemAllocationProp *prop, unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total);

static struct {
	char kind; /* a: cuMemAlloc and the like, s: stream-ordered, h: handle */
	uint64_t v;
} made[256];
static int nmade;

int main(int argc, char **argv)
{
	CUcontext ctx;
	long long prop[16] = { 0 }; /* the fake only needs a CUmemAllocationProp to exist */

	setvbuf(stdout, NULL, _IONBF, 0);
	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx)) {
		printf("app: no context\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *arg = strchr(a, ':');
		unsigned long long n = arg ? strtoull(arg + 1, NULL, 10) : 0;
		CUdeviceptr p = 0;
		CUmemGenericAllocationHandle h = 0;
		size_t pitch, free_bytes = 0, total = 0;
		CUresult rc;
		char kind = 'a';

		if (!strncmp(a, "alloc:", 6)) {
			rc = cuMemAlloc_v2(&p, n);
		} else if (!strncmp(a, "async:", 6)) {
			rc = cuMemAllocAsync(&p, n, NULL);
			kind = 's';
		} else if (!strncmp(a, "managed:", 8)) {
			rc = cuMemAllocManaged(&p, n, 1);
		} else if (!strncmp(a, "pitch:", 6)) {
			rc = cuMemAllocPitch_v2(&p, &pitch, n, strtoull(strchr(arg + 1, ':') + 1, NULL, 10),
						4);
		} else if (!strncmp(a, "create:", 7)) {
			rc = cuMemCreate(&h, n, (const CUmemAllocationProp *)(void *)prop, 0);
			kind = 'h';
			p = h;
		} else if (!strncmp(a, "free:", 5)) {
			if ((int)n >= nmade) {
				printf("app: %s: no such allocation\n", a);
				return 2;
			}
			rc = made[n].kind == 'h' ? cuMemRelease(made[n].v) :
			     made[n].kind == 's' ? cuMemFreeAsync(made[n].v, NULL) :
						   cuMemFree_v2(made[n].v);
			printf("app: %s: %d\n", a, rc);
			continue;
		} else if (!strcmp(a, "info")) {
			rc = cuMemGetInfo_v2(&free_bytes, &total);
			printf("app: info: %d free=%zu total=%zu\n", rc, free_bytes, total);
			continue;
		} else if (!strncmp(a, "sleep:", 6)) {
			struct timespec t = { (time_t)(n / 1000), (long)(n % 1000) * 1000000 };

			nanosleep(&t, NULL);
			continue;
		} else {
			printf("app: unknown step %s\n", a);
			return 2;
		}
		printf("app: %s: %d\n", a, rc);
		if (rc == CUDA_SUCCESS && nmade < 256) {
			made[nmade].kind = kind;
			made[nmade++].v = p;
		}
	}
	return 0;
}
