/*
 * launch_ab: what libcoloc adds to each launch call of a latency tenant,
 * measured inside one process.  Between processes (benchmarks/colocation/
 * overhead) the launch rate alone moved by 3.2 to 5.4 us per call from run to
 * run on the GPU machine, which hides a 1% difference.  Here blocks of
 * launches alternate between two ways into the driver, with the same
 * context, kernel, stream and queue:
 *
 *   hooked  cuLaunchKernel as the program links it: libcoloc's, under
 *           LD_PRELOAD (the latency tenant's path)
 *   direct  libcuda's own cuLaunchKernel, found with libc's own dlsym (the
 *           one libcoloc exports answers with its hooks)
 *
 * usage: launch_ab [ROUNDS [LAUNCHES]]   (default 20 rounds of 20,000)
 *
 * Each round runs LAUNCHES each way, in chunks of 1,024 that alternate
 * between the two ways, each chunk ending in a synchronization (the same
 * call for both); the way that goes first alternates between rounds.  So
 * both ways meet the same conditions to within a few milliseconds: with
 * blocks of 20,000 launches a way, one round's throughput ratio on the
 * H200 spread from 77% to 119% (2026-12-04).  Each launch call is timed.
 * One chunk each way warms up first and is printed apart: the first hooked
 * launch is where libcoloc joins the coordinator (once per process).
 * Printed: that, one line per round, then
 *
 *   launch_ab: hooked against direct over R rounds: median call +D us
 *   (rounds -A to +B), throughput P% (rounds L% to H%), hooked slower in S of R
 *   launch_ab: throughput, mean of the rounds: M% (95% interval X% to Y%)
 *   launch_ab: per launch, hooked against direct: mean call +C us, synchronizations +S us
 *
 * and "launch_ab: no interposer" when both ways are the same function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The driver API's ABI, declared here: built against the real libcuda or the tests' fake. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
#define CUDA_SUCCESS 0
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name);
CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			unsigned by, unsigned bz, unsigned shmem, CUstream stream, void **params,
			void **extra);

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);
typedef void *(*dlsym_fn)(void *, const char *);

static const char ptx[] =
	".version 7.0\n.target sm_80\n.address_size 64\n"
	".visible .entry empty(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n"
	".reg .pred %q;\nmov.u32 %r1, %tid.x;\nsetp.ne.u32 %q, %r1, 1024;\n@%q ret;\n"
	"ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd1, %rd1;\nst.global.u32 [%rd1], %r1;\n"
	"ret;\n}\n";

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void check(CUresult rc, const char *what)
{
	if (rc == CUDA_SUCCESS)
		return;
	fprintf(stderr, "launch_ab: %s: CUDA error %d\n", what, rc);
	exit(1);
}

#define CHUNK 1024 /* launches between two synchronizations */

/*
 * `n` launches through `launch`, from t[0]: each call's time (us) in t, and
 * the wall time (us) of the whole, synchronizations included.
 */
static double chunk(launch_fn launch, CUfunction fn, int n, double *t, double *sync_us)
{
	CUdeviceptr none = 0;
	void *args[] = { &none };
	double start = now_us(), s;

	for (int i = 0; i < n; i++) {
		double a = now_us();

		check(launch(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel");
		t[i] = now_us() - a;
	}
	s = now_us();
	check(cuCtxSynchronize(), "cuCtxSynchronize");
	*sync_us += now_us() - s;
	return now_us() - start;
}

struct way {
	double median, mean; /* one call, us */
	double rate;         /* launches per second, synchronizations included */
	double sync_us;      /* in the synchronizations */
};

/*
 * One round: N launches each way, in alternating chunks of CHUNK, `first`
 * going first, so that both ways run under the same conditions to within
 * a few milliseconds.
 */
static void round_ab(launch_fn first, launch_fn second, CUfunction fn, int n, double *t1,
		     double *t2, struct way *w1, struct way *w2)
{
	double us1 = 0, us2 = 0, sum1 = 0, sum2 = 0;

	w1->sync_us = w2->sync_us = 0;
	for (int i = 0; i < n; i += CHUNK) {
		int k = n - i < CHUNK ? n - i : CHUNK;

		us1 += chunk(first, fn, k, t1 + i, &w1->sync_us);
		us2 += chunk(second, fn, k, t2 + i, &w2->sync_us);
	}
	w1->rate = n / (us1 / 1e6);
	w2->rate = n / (us2 / 1e6);
	for (int i = 0; i < n; i++)
		sum1 += t1[i], sum2 += t2[i];
	w1->mean = sum1 / n;
	w2->mean = sum2 / n;
	qsort(t1, (size_t)n, sizeof(*t1), cmp_double);
	qsort(t2, (size_t)n, sizeof(*t2), cmp_double);
	w1->median = t1[n / 2];
	w2->median = t2[n / 2];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20, n = argc > 2 ? atoi(argv[2]) : 20000;
	dlsym_fn libc_dlsym;
	launch_fn hooked = cuLaunchKernel, direct;
	void *libcuda, *libc, *p;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	double *t, *t2, *diff, *ratio, sum = 0, sum2 = 0, mean, half, mean_diff = 0, sync_diff = 0;
	double warm = 0, warm_direct, warm_hooked;
	int slower = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	alarm(600);
	if (argc > 3 || rounds < 1 || rounds > 10000 || n < 1 || n > 10000000) {
		fprintf(stderr, "usage: launch_ab [ROUNDS [LAUNCHES]]\n");
		return 2;
	}
	/*
	 * libc's dlsym, from libc itself (glibc 2.34 on; libdl before): RTLD_NEXT
	 * from here would find libcoloc's, preloaded after the program.  Object
	 * to function pointers by copy: ISO C has no cast between them.
	 */
	p = (libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD)) ?
		    dlvsym(libc, "dlsym", "GLIBC_2.34") : NULL;
	if (!p && (libc = dlopen("libdl.so.2", RTLD_LAZY)))
		p = dlvsym(libc, "dlsym", "GLIBC_2.2.5");
	memcpy(&libc_dlsym, &p, sizeof(p));
	libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (p && libcuda)
		p = libc_dlsym(libcuda, "cuLaunchKernel");
	memcpy(&direct, &p, sizeof(p));
	if (!p || !libcuda) {
		fprintf(stderr, "launch_ab: libcuda's own cuLaunchKernel not found\n");
		return 1;
	}
	check(cuInit(0), "cuInit");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	check(cuModuleLoadData(&mod, ptx), "cuModuleLoadData");
	check(cuModuleGetFunction(&fn, mod, "empty"), "cuModuleGetFunction");
	t = malloc(sizeof(*t) * (size_t)n);
	t2 = malloc(sizeof(*t2) * (size_t)n);
	diff = malloc(sizeof(*diff) * (size_t)rounds);
	ratio = malloc(sizeof(*ratio) * (size_t)rounds);
	if (!t || !t2 || !diff || !ratio)
		return 1;
	if (hooked == direct)
		printf("launch_ab: no interposer (both ways are libcuda's cuLaunchKernel)\n");
	/*
	 * Warm up both ways, one chunk each, outside the rounds: libcoloc joins
	 * its GPU's coordinator and starts its monitor at the first hooked
	 * launch, once per process, which is not the cost of a launch.  Said
	 * apart, so that it is seen.
	 */
	warm_direct = chunk(direct, fn, n < CHUNK ? n : CHUNK, t, &warm);
	warm_hooked = chunk(hooked, fn, n < CHUNK ? n : CHUNK, t, &warm);
	printf("launch_ab: warm-up, %d launches each way: direct %.0f us, hooked %.0f us (the first "
	       "hooked launch starts the interposer), not in the rounds\n", n < CHUNK ? n : CHUNK,
	       warm_direct, warm_hooked);
	printf("launch_ab: round  direct us  hooked us   diff us  direct/s  hooked/s\n");
	for (int r = 0; r < rounds; r++) {
		struct way d, h;

		if (r % 2)
			round_ab(hooked, direct, fn, n, t, t2, &h, &d);
		else
			round_ab(direct, hooked, fn, n, t, t2, &d, &h);
		diff[r] = h.median - d.median;
		ratio[r] = h.rate / d.rate;
		sum += ratio[r];
		sum2 += ratio[r] * ratio[r];
		mean_diff += h.mean - d.mean;
		sync_diff += (h.sync_us - d.sync_us) / n;
		slower += h.rate < d.rate;
		printf("launch_ab: %5d %10.3f %10.3f %+9.3f %9.0f %9.0f\n", r, d.median, h.median,
		       diff[r], d.rate, h.rate);
	}
	mean = sum / rounds;
	/* The mean's 95% interval, normal approximation (a t quantile for few rounds is wider). */
	half = rounds > 1 ? 1.96 * sqrt((sum2 - rounds * mean * mean) / (rounds - 1) / rounds) : 0;
	qsort(diff, (size_t)rounds, sizeof(*diff), cmp_double);
	qsort(ratio, (size_t)rounds, sizeof(*ratio), cmp_double);
	printf("launch_ab: hooked against direct over %d rounds: median call %+.3f us (rounds %+.3f "
	       "to %+.3f), throughput %.2f%% (rounds %.2f%% to %.2f%%), hooked slower in %d of %d\n",
	       rounds, diff[rounds / 2], diff[0], diff[rounds - 1], 100 * ratio[rounds / 2],
	       100 * ratio[0], 100 * ratio[rounds - 1], slower, rounds);
	printf("launch_ab: throughput, mean of the rounds: %.2f%% (95%% interval %.2f%% to %.2f%%)\n",
	       100 * mean, 100 * (mean - half), 100 * (mean + half));
	/* Where a difference in throughput comes from: the calls (mean, not median), or the waits. */
	printf("launch_ab: per launch, hooked against direct: mean call %+.3f us, synchronizations "
	       "%+.3f us\n", mean_diff / rounds, sync_diff / rounds);
	return 0;
}
