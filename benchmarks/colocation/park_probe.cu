/*
 * park_probe: does a stopped best-effort kernel's way of holding its stream
 * cost another process's kernels under time-slicing?
 *
 *   park_probe probe SECONDS [N]  the latency side: a short kernel over every
 *                                 SM, 1 ms apart, each timed from launch to
 *                                 its end on the host; prints p50/p99/max;
 *                                 with N, bursts of N shorter kernels back
 *                                 to back (as a graphed model's request)
 *   park_probe empty N            N met waits and relaunches of a wave of
 *                                 workers with nothing to do, timed
 *   park_probe hold HOW SECONDS   the best-effort side holds a stream for
 *                                 SECONDS, HOW being
 *                                 spin: one block polling a device word with
 *                                       nanosleep (a parked ptb worker)
 *                                 wait: cuStreamWaitValue32 on that word (no
 *                                       kernel resident while it waits)
 *                                 then writes the word from another stream
 *                                 and checks that the stream moved on.
 *                                 waithost: cuStreamWaitValue32 on a word of
 *                                       mapped host memory
 *   park_probe hold threads       a stream held by cuStreamWaitValue32 while
 *                                 another thread copies from pageable memory
 *                                 and launches a kernel not loaded yet; a
 *                                 kernel launched after 1 s releases it.
 *   park_probe hold load          the same, but the other thread loads a
 *                                 module from PTX, allocates and frees memory
 *                                 and launches its kernel; a copy releases it.
 *
 * Every mode has its own watchdog (alarm).
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "park_probe: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CHECK_CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = "?"; \
	cuGetErrorString(r_, &s_); fprintf(stderr, "park_probe: %s: %s\n", #x, s_); exit(1); } } while (0)

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* About ITERS dependent multiply-adds per thread; out keeps it from being folded. */
__global__ void busy(float *out, int iters)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = 0; i < iters; i++)
		x = x * 0.999f + 0.001f;
	out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void spin(volatile unsigned *word)
{
	while (*word == 0)
		__nanosleep(1000);
}

__global__ void mark(unsigned *where) { *where = 7; }
__global__ void release(unsigned *word) { *word = 1; }
__global__ void late(unsigned *where) { *where = 9; }

/* Another thread's work while a stream is held: a pageable copy, a kernel loaded late. */
struct other {
	unsigned *dst;
	bool load;
	const char *ptx;
	double copy_us, late_us;
	int rc;
};

static void *other_thread(void *p)
{
	struct other *o = (struct other *)p;
	static unsigned pageable = 5;
	cudaStream_t c;
	double t;

	o->rc = 1;
	if (cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking) != cudaSuccess)
		return NULL;
	t = now_us();
	if (cudaMemcpyAsync(o->dst, &pageable, 4, cudaMemcpyHostToDevice, c) != cudaSuccess)
		return NULL;
	o->copy_us = now_us() - t;
	t = now_us();
	if (o->load) {
		/* A module loaded explicitly, as a JIT (colocc, Triton, NVRTC users) does. */
		CUmodule m;
		CUfunction f;
		CUdeviceptr scratch;
		void *args[] = { &o->dst };

		if (cuModuleLoadData(&m, o->ptx) != CUDA_SUCCESS ||
		    cuModuleGetFunction(&f, m, "poke") != CUDA_SUCCESS ||
		    cuMemAlloc(&scratch, 1 << 20) != CUDA_SUCCESS || cuMemFree(scratch) != CUDA_SUCCESS ||
		    cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)c, args, NULL) != CUDA_SUCCESS)
			return NULL;
	} else {
		late<<<1, 1, 0, c>>>(o->dst);
		if (cudaGetLastError() != cudaSuccess)
			return NULL;
	}
	o->late_us = now_us() - t;
	o->rc = cudaStreamSynchronize(c) != cudaSuccess;
	return NULL;
}

/*
 * A stream held by cuStreamWaitValue32 while another thread copies from
 * pageable memory and launches a kernel not yet loaded (with
 * CUDA_MODULE_LOADING=LAZY loading it may wait for the context's work);
 * after 1 s this thread launches a loaded kernel that releases the hold.
 * A deadlock here ends in the watchdog.
 */
static const char poke_ptx[] =
	".version 7.0\n.target sm_80\n.address_size 64\n"
	".visible .entry poke(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n"
	"ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, 11;\n"
	"st.global.u32 [%rd1], %r1;\nret;\n}\n";

static int hold_threads(bool load, bool copy_release)
{
	unsigned *word, *dst;
	cudaStream_t a, b;
	pthread_t t;
	struct other o = {};

	CHECK(cudaMalloc(&word, 4));
	CHECK(cudaMalloc(&dst, 4));
	CHECK(cudaMemset(word, 0, 4));
	release<<<1, 1>>>(dst); /* loaded now */
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CHECK_CU(cuStreamWaitValue32((CUstream)a, (CUdeviceptr)word, 1, CU_STREAM_WAIT_VALUE_GEQ));
	o.dst = dst;
	o.load = load;
	o.ptx = poke_ptx;
	unsigned *one;
	CHECK(cudaMallocHost(&one, 4));
	*one = 1;
	double t0 = now_us();
	pthread_create(&t, NULL, other_thread, &o);
	usleep(1000000);
	double t1 = now_us();
	if (copy_release) {
		CHECK(cudaMemcpyAsync(word, one, 4, cudaMemcpyHostToDevice, b));
	} else {
		release<<<1, 1, 0, b>>>(word);
		CHECK(cudaGetLastError());
	}
	printf("hold: threads: the releasing launch took %.1f us\n", now_us() - t1);
	CHECK(cudaStreamSynchronize(a));
	pthread_join(t, NULL);
	printf("hold: threads: released after %.1f ms; the other thread's pageable copy call took "
	       "%.1f us, its late-loaded launch %.1f us, rc %d\n", (now_us() - t0) / 1e3, o.copy_us,
	       o.late_us, o.rc);
	return o.rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A persistent launch's relaunch that finds nothing left: each block takes once and leaves. */
__global__ void empty_worker(unsigned *next, unsigned total)
{
	__shared__ unsigned got;
	if (threadIdx.x == 0)
		got = atomicAdd(next, 1);
	__syncthreads();
	if (got < total && threadIdx.x == 0)
		next[1] = got;
}

/*
 * What a launch parked on the stream pays when it is never stopped: N times
 * a met cuStreamWaitValue32 and a relaunch of a wave of workers that find
 * nothing left, timed on the host around a synchronization.
 */
static int empty(int n)
{
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	unsigned *ctl, *gate;
	CHECK(cudaMalloc(&ctl, 8));
	CHECK(cudaMalloc(&gate, 4));
	CHECK(cudaMemset(gate, 0, 4));
	CHECK(cudaMemset(ctl, 0xff, 4));
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int round = 0; round < 4; round++) {
		for (int with_wait = 0; with_wait < 2; with_wait++) {
			CHECK(cudaStreamSynchronize(s));
			double t = now_us();
			for (int i = 0; i < n; i++) {
				if (with_wait)
					CHECK_CU(cuStreamWaitValue32((CUstream)s, (CUdeviceptr)gate, 0,
								     CU_STREAM_WAIT_VALUE_EQ));
				empty_worker<<<sms * 8, 256, 0, s>>>(ctl, 0);
			}
			double issued = now_us() - t;
			CHECK(cudaStreamSynchronize(s));
			double all = now_us() - t;
			printf("empty: round %d, %d relaunches of %d workers%s: %.2f us each (%.2f us each "
			       "to issue)\n", round, n, sms * 8, with_wait ? " behind met waits" : "",
			       all / n, issued / n);
		}
	}
	return 0;
}

static int probe(double seconds, int burst)
{
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	int blocks = sms * 4, threads = 256;
	float *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks * threads));
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int i = 0; i < 20; i++) /* warm up */
		busy<<<blocks, threads, 0, s>>>(out, 4000);
	CHECK(cudaStreamSynchronize(s));
	size_t cap = (size_t)(seconds * 2000) + 16, n = 0;
	double *t = (double *)malloc(cap * sizeof(double));
	double end = now_us() + seconds * 1e6;
	while (now_us() < end && n < cap) {
		double a = now_us();
		if (burst)
			for (int k = 0; k < burst; k++)
				busy<<<blocks, threads, 0, s>>>(out, 100);
		else
			busy<<<blocks, threads, 0, s>>>(out, 4000);
		CHECK(cudaStreamSynchronize(s));
		t[n++] = now_us() - a;
		usleep(1000);
	}
	qsort(t, n, sizeof(double), cmp_double);
	printf("probe: %zu %s, p50 %.1f us, p99 %.1f us, max %.1f us\n", n,
	       burst ? "bursts" : "kernels", t[n / 2],
	       t[(size_t)(n * 0.99)], t[n - 1]);
	free(t);
	return 0;
}

static int hold(const char *how, double seconds)
{
	CHECK(cudaFree(0));
	unsigned *word, *marked;
	CHECK(cudaMalloc(&word, 4));
	CHECK(cudaMalloc(&marked, 4));
	CHECK(cudaMemset(word, 0, 4));
	CHECK(cudaMemset(marked, 0, 4));
	unsigned *one;
	CHECK(cudaMallocHost(&one, 4));
	*one = 1;
	mark<<<1, 1>>>(marked); /* loads the module now: a lazy load later waits for the held stream */
	CHECK(cudaMemset(marked, 0, 4));
	CHECK(cudaDeviceSynchronize());
	cudaStream_t a, b;
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	unsigned *host_word;
	CUdeviceptr host_dev;
	CHECK(cudaHostAlloc(&host_word, 4, cudaHostAllocMapped | cudaHostAllocPortable));
	*host_word = 0;
	CHECK_CU(cuMemHostGetDevicePointer(&host_dev, host_word, 0));
	printf("hold: %s: queueing\n", how);
	if (!strcmp(how, "spin"))
		spin<<<1, 128, 0, a>>>(word);
	else if (!strcmp(how, "wait"))
		CHECK_CU(cuStreamWaitValue32((CUstream)a, (CUdeviceptr)word, 1, CU_STREAM_WAIT_VALUE_GEQ));
	else if (!strcmp(how, "waithost"))
		CHECK_CU(cuStreamWaitValue32((CUstream)a, host_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
	else {
		fprintf(stderr, "park_probe: hold: HOW is spin, wait or waithost, not '%s'\n", how);
		return 2;
	}
	mark<<<1, 1, 0, a>>>(marked);
	CHECK(cudaGetLastError());
	printf("hold: %s for %.1f s\n", how, seconds);
	usleep((useconds_t)(seconds * 1e6));
	if (cudaStreamQuery(a) != cudaErrorNotReady) {
		fprintf(stderr, "park_probe: hold: the held stream moved on before its word was set\n");
		return 1;
	}
	printf("hold: %s: releasing\n", how);
	__atomic_store_n(host_word, 1, __ATOMIC_SEQ_CST);
	CHECK(cudaMemcpyAsync(word, one, 4, cudaMemcpyHostToDevice, b));
	CHECK(cudaStreamSynchronize(a));
	unsigned m = 0;
	CHECK(cudaMemcpy(&m, marked, 4, cudaMemcpyDeviceToHost));
	if (m != 7) {
		fprintf(stderr, "park_probe: hold: the kernel after the hold did not run\n");
		return 1;
	}
	printf("hold: %s released\n", how);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "probe")) {
		alarm((unsigned)atof(argv[2]) + 30);
		return probe(atof(argv[2]), argc == 4 ? atoi(argv[3]) : 0);
	}
	if (argc == 3 && !strcmp(argv[1], "empty")) {
		alarm(60);
		return empty(atoi(argv[2]));
	}
	if (argc == 3 && !strcmp(argv[1], "hold") && !strcmp(argv[2], "threads")) {
		alarm(20);
		return hold_threads(false, false);
	}
	if (argc == 3 && !strcmp(argv[1], "hold") && !strcmp(argv[2], "load")) {
		alarm(20);
		return hold_threads(true, true);
	}
	if (argc == 4 && !strcmp(argv[1], "hold")) {
		alarm((unsigned)atof(argv[3]) + 30);
		return hold(argv[2], atof(argv[3]));
	}
	fprintf(stderr, "usage: park_probe probe SECONDS [N] | park_probe empty N | park_probe hold spin|wait|waithost SECONDS | "
		"park_probe hold threads|load\n");
	return 2;
}
