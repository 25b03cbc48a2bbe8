/*
 * Device memory calls for mem.test, pool.test and handover.test, in the
 * order the arguments give them, through the driver's exported symbols
 * (libcoloc.so interposes on them); after an argument "-", one step per
 * line of standard input, so that a driver script can time them.
 *
 *   alloc:N async:N managed:N pitch:W:H create:N   allocate (N bytes)
 *   free:I       frees the I-th allocation made (from 0), the way it was made
 *   info         cuMemGetInfo
 *   write:I:B    cuMemsetD8 of all of allocation I to byte B (timed)
 *   check:I      reads allocation I back: "all 0xBB" or "mixed (first 0xBB)"
 *   range:I:OFF  cuMemGetAddressRange of allocation I + OFF: base as I+OFF, size
 *   ipc:I        cuIpcGetMemHandle of allocation I
 *   unit         coloc_unit_begin(1): the discard protocol
 *   optimizer    coloc_unit_phase(COLOC_PHASE_OPTIMIZER); compute: back to COMPUTE
 *   discard:I,J  waits (10 s at most) for a discard request, frees those
 *                allocations and acknowledges with their size
 *   sleep:MS
 *   dev:N        makes device N's primary context current
 *   pid          prints the process id
 *
 * One line per step: "app: STEP: RC" (and what the step reports).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coloc/discard.h"
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
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr ptr);
CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr ptr);

static struct {
	char kind; /* a: cuMemAlloc and the like, s: stream-ordered, h: handle */
	uint64_t v;
	size_t size;
} made[256];
static int nmade;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec t = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

static CUresult free_made(int i)
{
	return made[i].kind == 'h' ? cuMemRelease(made[i].v) :
	       made[i].kind == 's' ? cuMemFreeAsync(made[i].v, NULL) :
				     cuMemFree_v2(made[i].v);
}

/* Index I of "step:I..." when it names an allocation made, else -1 after a line. */
static int index_of(const char *a, const char *arg)
{
	int i = arg ? atoi(arg + 1) : -1;

	if (i < 0 || i >= nmade) {
		printf("app: %s: no such allocation\n", a);
		return -1;
	}
	return i;
}

static void check(const char *a, int i)
{
	unsigned char *host = malloc(made[i].size);
	size_t odd = 0;
	CUresult rc;

	if (!host) {
		printf("app: %s: no host memory\n", a);
		return;
	}
	rc = cuMemcpyDtoH_v2(host, made[i].v, made[i].size);
	for (size_t k = 1; rc == CUDA_SUCCESS && k < made[i].size; k++)
		odd += host[k] != host[0];
	if (rc != CUDA_SUCCESS)
		printf("app: %s: %d\n", a, rc);
	else if (odd)
		printf("app: %s: 0 mixed (first 0x%02x, %zu bytes differ)\n", a, host[0], odd);
	else
		printf("app: %s: 0 all 0x%02x\n", a, host[0]);
	free(host);
}

/* Waits for a discard request, frees the allocations listed in `list` and acknowledges. */
static void serve_discard(const char *a, const char *list)
{
	uint64_t want = 0, freed = 0;
	double t0 = now_ms();
	int rc;

	while ((rc = coloc_discard_pending(&want)) == 0 && now_ms() - t0 < 10000)
		sleep_ms(1);
	if (rc != 1) {
		printf("app: %s: no request (%d)\n", a, rc);
		return;
	}
	for (const char *p = list; p && *p;) {
		int i = atoi(p);

		if (i >= 0 && i < nmade && free_made(i) == CUDA_SUCCESS)
			freed += made[i].size;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	rc = coloc_discard_ack(freed);
	printf("app: %s: %d freed=%llu wanted=%llu\n", a, rc, (unsigned long long)freed,
	       (unsigned long long)want);
}

/* Runs one step; -1 when it is not one. */
static int step(char *a)
{
	char *arg = strchr(a, ':');
	unsigned long long n = arg ? strtoull(arg + 1, NULL, 10) : 0;
	long long prop[16] = { 0 }; /* the fake only needs a CUmemAllocationProp to exist */
	CUdeviceptr p = 0;
	CUmemGenericAllocationHandle h = 0;
	size_t pitch, free_bytes = 0, total = 0, size = n;
	CUresult rc;
	char kind = 'a';
	int i;

	a[strcspn(a, "\n")] = '\0';
	if (!*a)
		return 0;
	if (!strncmp(a, "dev:", 4)) {
		CUcontext ctx;

		rc = cuDevicePrimaryCtxRetain(&ctx, (CUdevice)n);
		if (rc == CUDA_SUCCESS)
			rc = cuCtxSetCurrent(ctx);
		printf("app: %s: %d\n", a, rc);
		return 0;
	} else if (!strncmp(a, "alloc:", 6)) {
		rc = cuMemAlloc_v2(&p, n);
	} else if (!strncmp(a, "async:", 6)) {
		rc = cuMemAllocAsync(&p, n, NULL);
		kind = 's';
	} else if (!strncmp(a, "managed:", 8)) {
		rc = cuMemAllocManaged(&p, n, 1);
	} else if (!strncmp(a, "pitch:", 6)) {
		size_t height = strtoull(strchr(arg + 1, ':') + 1, NULL, 10);

		rc = cuMemAllocPitch_v2(&p, &pitch, n, height, 4);
		if (rc == CUDA_SUCCESS)
			printf("app: %s: pitch=%zu\n", a, pitch);
		size = rc == CUDA_SUCCESS ? pitch * height : 0;
	} else if (!strncmp(a, "create:", 7)) {
		rc = cuMemCreate(&h, n, (const CUmemAllocationProp *)(void *)prop, 0);
		kind = 'h';
		p = h;
	} else if (!strncmp(a, "free:", 5)) {
		if ((i = index_of(a, arg)) < 0)
			return -1;
		printf("app: %s: %d\n", a, free_made(i));
		return 0;
	} else if (!strcmp(a, "info")) {
		rc = cuMemGetInfo_v2(&free_bytes, &total);
		printf("app: info: %d free=%zu total=%zu\n", rc, free_bytes, total);
		return 0;
	} else if (!strncmp(a, "write:", 6)) {
		double t0 = now_ms();

		if ((i = index_of(a, arg)) < 0)
			return -1;
		rc = cuMemsetD8_v2(made[i].v, (unsigned char)strtoul(strchr(arg + 1, ':') + 1, NULL, 0),
				   made[i].size);
		printf("app: %s: %d (%.0f ms)\n", a, rc, now_ms() - t0);
		return 0;
	} else if (!strncmp(a, "check:", 6)) {
		if ((i = index_of(a, arg)) < 0)
			return -1;
		check(a, i);
		return 0;
	} else if (!strncmp(a, "range:", 6)) {
		CUdeviceptr base = 0;
		size_t off;

		if ((i = index_of(a, arg)) < 0)
			return -1;
		off = strtoull(strchr(arg + 1, ':') + 1, NULL, 10);
		rc = cuMemGetAddressRange_v2(&base, &size, made[i].v + off);
		printf("app: %s: %d base=%d+%lld size=%zu\n", a, rc, i,
		       (long long)(base - made[i].v), size);
		return 0;
	} else if (!strncmp(a, "ipc:", 4)) {
		CUipcMemHandle ipc;

		if ((i = index_of(a, arg)) < 0)
			return -1;
		printf("app: %s: %d\n", a, cuIpcGetMemHandle(&ipc, made[i].v));
		return 0;
	} else if (!strcmp(a, "optimizer") || !strcmp(a, "compute")) {
		printf("app: %s: %d\n", a, coloc_unit_phase(strcmp(a, "compute") ?
							     COLOC_PHASE_OPTIMIZER :
							     COLOC_PHASE_COMPUTE));
		return 0;
	} else if (!strcmp(a, "unit")) {
		printf("app: unit: %d\n", coloc_unit_begin(1));
		return 0;
	} else if (!strncmp(a, "discard:", 8)) {
		serve_discard(a, arg + 1);
		return 0;
	} else if (!strncmp(a, "sleep:", 6)) {
		sleep_ms(n);
		return 0;
	} else if (!strcmp(a, "pid")) {
		printf("app: pid %d\n", (int)getpid());
		return 0;
	} else {
		printf("app: unknown step %s\n", a);
		return -1;
	}
	printf("app: %s: %d\n", a, rc);
	if (rc == CUDA_SUCCESS && nmade < 256) {
		made[nmade].kind = kind;
		made[nmade].size = size;
		made[nmade++].v = p;
	}
	return 0;
}

int main(int argc, char **argv)
{
	CUcontext ctx;
	char line[256];

	setvbuf(stdout, NULL, _IONBF, 0);
	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx)) {
		printf("app: no context\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			while (fgets(line, sizeof(line), stdin))
				if (step(line) < 0)
					return 2;
			continue;
		}
		snprintf(line, sizeof(line), "%s", argv[i]);
		if (step(line) < 0)
			return 2;
	}
	return 0;
}
