/*
 * What the CUDA virtual memory API costs on this GPU, for the design of the
 * memory pools (issue 7, docs/memory-design.md).  Prints one JSON object per
 * line on standard output:
 *
 *   {"what":"vmm","page_mib":P,"total_mib":T,"op":OP,"p50_ms":..,"p99_ms":..,"max_ms":..}
 *     OP: create, map, access (cuMemSetAccess over the whole range at once),
 *     zero (cuMemsetD8Async of the range + stream sync), unmap, release;
 *     each the time for all pages of T MiB, over R repetitions
 *   {"what":"free_sync","free_ms":..,"kernel_ms":..}
 *     whether cuMemFree waits for a kernel running on another stream
 *   {"what":"scrub","child_pattern_found":N,"bytes_checked":B}
 *     run as `vmm_cost scrub-fill` then `vmm_cost scrub-check` in two
 *     processes: whether physical memory freed by one process shows its data
 *     to the next through cuMemCreate (the driver's scrubbing)
 *
 *   vmm_cost [bench [REPS [TOTAL_MIB]]] | scrub-fill MIB | scrub-check MIB | free-sync
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CK(call)                                                                          \
	do {                                                                              \
		CUresult rc_ = (call);                                                    \
		if (rc_ != CUDA_SUCCESS) {                                                \
			const char *s_ = NULL;                                            \
			cuGetErrorName(rc_, &s_);                                         \
			fprintf(stderr, "vmm_cost: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				s_ ? s_ : "?");                                           \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(double *v, int n, double p)
{
	int i = (int)(p * (n - 1) + 0.5);

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[i];
}

static CUdevice dev;
static CUcontext ctx;

static CUmemAllocationProp prop_of(void)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	return p;
}

enum { OP_CREATE, OP_MAP, OP_ACCESS, OP_ZERO, OP_UNMAP, OP_RELEASE, OP_N };
static const char *op_names[OP_N] = { "create", "map", "access", "zero", "unmap", "release" };

static void bench(int reps, size_t total_mib)
{
	static const size_t pages_mib[] = { 2, 8, 32, 64, 256 };
	CUmemAllocationProp prop = prop_of();
	CUmemAccessDesc acc;
	CUstream s;
	size_t gran;

	CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	printf("{\"what\":\"granularity\",\"bytes\":%zu}\n", gran);
	CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	memset(&acc, 0, sizeof(acc));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	for (size_t pi = 0; pi < sizeof(pages_mib) / sizeof(*pages_mib); pi++) {
		size_t page = pages_mib[pi] << 20, n = (total_mib << 20) / page, total = n * page;
		CUmemGenericAllocationHandle *h = calloc(n, sizeof(*h));
		double *t[OP_N];
		CUdeviceptr va;

		for (int o = 0; o < OP_N; o++)
			t[o] = calloc((size_t)reps, sizeof(double));
		CK(cuMemAddressReserve(&va, total, page, 0, 0));
		for (int r = 0; r < reps; r++) {
			double t0 = now_ms();

			for (size_t i = 0; i < n; i++)
				CK(cuMemCreate(&h[i], page, &prop, 0));
			t[OP_CREATE][r] = now_ms() - t0;
			t0 = now_ms();
			for (size_t i = 0; i < n; i++)
				CK(cuMemMap(va + i * page, page, 0, h[i], 0));
			t[OP_MAP][r] = now_ms() - t0;
			t0 = now_ms();
			CK(cuMemSetAccess(va, total, &acc, 1));
			t[OP_ACCESS][r] = now_ms() - t0;
			t0 = now_ms();
			CK(cuMemsetD8Async(va, 0, total, s));
			CK(cuStreamSynchronize(s));
			t[OP_ZERO][r] = now_ms() - t0;
			t0 = now_ms();
			for (size_t i = 0; i < n; i++)
				CK(cuMemUnmap(va + i * page, page));
			t[OP_UNMAP][r] = now_ms() - t0;
			t0 = now_ms();
			for (size_t i = 0; i < n; i++)
				CK(cuMemRelease(h[i]));
			t[OP_RELEASE][r] = now_ms() - t0;
		}
		CK(cuMemAddressFree(va, total));
		for (int o = 0; o < OP_N; o++) {
			double p50 = pct(t[o], reps, 0.5), p99 = pct(t[o], reps, 0.99);

			printf("{\"what\":\"vmm\",\"page_mib\":%zu,\"total_mib\":%zu,\"op\":\"%s\","
			       "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}\n",
			       pages_mib[pi], total_mib, op_names[o], p50, p99, t[o][reps - 1]);
			free(t[o]);
		}
		free(h);
	}
	/* The driver's own allocator, for comparison: the whole amount at once. */
	{
		double ta[64], tf[64];
		int r2 = reps < 64 ? reps : 64;

		for (int r = 0; r < r2; r++) {
			CUdeviceptr p;
			double t0 = now_ms();

			CK(cuMemAlloc(&p, total_mib << 20));
			ta[r] = now_ms() - t0;
			t0 = now_ms();
			CK(cuMemFree(p));
			tf[r] = now_ms() - t0;
		}
		printf("{\"what\":\"driver\",\"total_mib\":%zu,\"op\":\"cuMemAlloc\",\"p50_ms\":%.3f,"
		       "\"p99_ms\":%.3f}\n", total_mib, pct(ta, r2, 0.5), pct(ta, r2, 0.99));
		printf("{\"what\":\"driver\",\"total_mib\":%zu,\"op\":\"cuMemFree\",\"p50_ms\":%.3f,"
		       "\"p99_ms\":%.3f}\n", total_mib, pct(tf, r2, 0.5), pct(tf, r2, 0.99));
	}
	CK(cuStreamDestroy(s));
}

/* A kernel that spins for `ns` nanoseconds of the global timer. */
static const char spin_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry spin(.param .u64 ns)\n{\n"
	"\t.reg .u64 %rd<5>;\n\t.reg .pred %p;\n"
	"\tld.param.u64 %rd1, [ns];\n\tmov.u64 %rd2, %globaltimer;\n"
	"L:\n\tmov.u64 %rd3, %globaltimer;\n\tsub.u64 %rd4, %rd3, %rd2;\n"
	"\tsetp.lt.u64 %p, %rd4, %rd1;\n\t@%p bra L;\n\tret;\n}\n";

static void free_sync(void)
{
	CUmodule m;
	CUfunction f;
	CUstream s;
	CUdeviceptr p;
	unsigned long long ns = 200000000ull; /* 200 ms */
	void *args[] = { &ns };
	double t0, t1, t2;

	CK(cuModuleLoadData(&m, spin_ptx));
	CK(cuModuleGetFunction(&f, m, "spin"));
	CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CK(cuMemAlloc(&p, 1 << 20));
	t0 = now_ms();
	CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
	CK(cuMemFree(p));
	t1 = now_ms();
	CK(cuStreamSynchronize(s));
	t2 = now_ms();
	printf("{\"what\":\"free_sync\",\"free_ms\":%.3f,\"kernel_ms\":%.3f}\n", t1 - t0, t2 - t0);
	CK(cuStreamDestroy(s));
	CK(cuModuleUnload(m));
}

static void scrub(int fill, size_t mib)
{
	CUmemAllocationProp prop = prop_of();
	CUmemAccessDesc acc;
	CUmemGenericAllocationHandle h;
	size_t bytes = mib << 20, found = 0;
	CUdeviceptr va;
	unsigned *host;

	memset(&acc, 0, sizeof(acc));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CK(cuMemAddressReserve(&va, bytes, 0, 0, 0));
	CK(cuMemCreate(&h, bytes, &prop, 0));
	CK(cuMemMap(va, bytes, 0, h, 0));
	CK(cuMemSetAccess(va, bytes, &acc, 1));
	if (fill) {
		CK(cuMemsetD32(va, 0xC0100CC0u, bytes / 4));
		CK(cuCtxSynchronize());
		printf("{\"what\":\"scrub_fill\",\"bytes\":%zu}\n", bytes);
	} else {
		size_t chunk = (size_t)1 << 30;

		host = malloc(chunk);
		for (size_t off = 0; off < bytes; off += chunk) {
			size_t n = bytes - off < chunk ? bytes - off : chunk;

			CK(cuMemcpyDtoH(host, va + off, n));
			for (size_t i = 0; i < n / 4; i++)
				found += host[i] == 0xC0100CC0u;
		}
		printf("{\"what\":\"scrub\",\"child_pattern_found\":%zu,\"bytes_checked\":%zu}\n",
		       found, bytes);
		free(host);
	}
	CK(cuMemUnmap(va, bytes));
	CK(cuMemRelease(h));
	CK(cuMemAddressFree(va, bytes));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "bench";

	setvbuf(stdout, NULL, _IONBF, 0);
	alarm(120);
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	if (!strcmp(what, "bench"))
		bench(argc > 2 ? atoi(argv[2]) : 20, argc > 3 ? strtoul(argv[3], NULL, 10) : 2048);
	else if (!strcmp(what, "free-sync"))
		free_sync();
	else if (!strcmp(what, "scrub-fill") || !strcmp(what, "scrub-check"))
		scrub(!strcmp(what, "scrub-fill"), argc > 2 ? strtoul(argv[2], NULL, 10) : 1024);
	else {
		fprintf(stderr, "usage: vmm_cost [bench [REPS [TOTAL_MIB]]] | scrub-fill MIB | "
				"scrub-check MIB | free-sync\n");
		return 2;
	}
	return 0;
}
