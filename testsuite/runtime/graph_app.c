/*
 * Stream capture and graph launches for graph.test, through the driver's
 * exported symbols (libcoloc.so interposes on them), on one created stream
 * and a buffer of four 32-bit words:
 *
 *   graph_app PTX STEP... [-]
 *
 *   launch         cuLaunchKernel of scale(buffer, 1000, 2.0f), grid 4, block 128
 *   set:W:V        cuMemsetD32Async of word W to V
 *   begin:MODE     cuStreamBeginCapture_v2 in mode global, thread or relaxed
 *   end            cuStreamEndCapture, then cuGraphInstantiateWithFlags
 *   graph          cuGraphLaunch of the instantiated graph
 *   sync           cuStreamSynchronize
 *   words          reads the buffer back: "app: words: A,B,C,D"
 *   destroy        cuGraphExecDestroy and cuGraphDestroy
 *   sleep:MS
 *   await:TEXT     waits (60 s at most) until a line of the fake driver's log
 *                  (COLOC_FAKE_LOG) begins with TEXT: another thread's call, made
 *                  when that thread gets the CPU (CUDA_ERROR_NOT_READY if not)
 *
 * After "-", one step per line of standard input, so that a driver script
 * can interleave them with another tenant.  One line per step:
 * "app: STEP: RC (N ms)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_abi.h"

#define AWAIT_MS 60000

CUresult cuInit(unsigned flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream stream);
CUresult cuStreamCreate(CUstream *stream, unsigned flags);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			unsigned by, unsigned bz, unsigned shmem, CUstream stream, void **params,
			void **extra);
CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream);
CUresult cuGraphExecDestroy(CUgraphExec exec);
CUresult cuGraphDestroy(CUgraph graph);

static CUfunction scale;
static CUstream stream;
static CUdeviceptr buf;
static CUgraph graph;
static CUgraphExec exec;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)n + 1);
	if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* Whether a line of the file at `path` begins with `text`. */
static int logged(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) >= 0)
		found = !strncmp(line, text, strlen(text));
	free(line);
	fclose(f);
	return found;
}

static CUresult await_log(const char *text)
{
	const char *path = getenv("COLOC_FAKE_LOG");
	double deadline = now_ms() + AWAIT_MS;
	struct timespec t = { 0, 5000000 };

	if (!path || !*path)
		return CUDA_ERROR_INVALID_VALUE;
	while (!logged(path, text)) {
		if (now_ms() > deadline)
			return CUDA_ERROR_NOT_READY;
		nanosleep(&t, NULL);
	}
	return CUDA_SUCCESS;
}

static CUresult step(const char *s)
{
	unsigned w, v;

	if (!strcmp(s, "launch")) {
		unsigned n = 1000;
		float k = 2.0f;
		void *params[] = { &buf, &n, &k };

		return cuLaunchKernel(scale, 4, 1, 1, 128, 1, 1, 0, stream, params, NULL);
	}
	if (sscanf(s, "set:%u:%u", &w, &v) == 2)
		return cuMemsetD32Async(buf + 4 * w, v, 1, stream);
	if (!strncmp(s, "begin:", 6)) {
		CUstreamCaptureMode mode = !strcmp(s + 6, "thread")  ? CU_STREAM_CAPTURE_MODE_THREAD_LOCAL :
					   !strcmp(s + 6, "relaxed") ? CU_STREAM_CAPTURE_MODE_RELAXED :
								       CU_STREAM_CAPTURE_MODE_GLOBAL;

		return cuStreamBeginCapture_v2(stream, mode);
	}
	if (!strcmp(s, "end")) {
		CUresult rc = cuStreamEndCapture(stream, &graph);

		return rc ? rc : cuGraphInstantiateWithFlags(&exec, graph, 0);
	}
	if (!strcmp(s, "graph"))
		return cuGraphLaunch(exec, stream);
	if (!strcmp(s, "sync"))
		return cuStreamSynchronize(stream);
	if (!strcmp(s, "words")) {
		uint32_t word[4];
		CUresult rc = cuMemcpyDtoH_v2(word, buf, sizeof(word));

		printf("app: words: %u,%u,%u,%u\n", word[0], word[1], word[2], word[3]);
		return rc;
	}
	if (!strcmp(s, "destroy")) {
		CUresult rc = cuGraphExecDestroy(exec);

		return rc ? rc : cuGraphDestroy(graph);
	}
	if (!strncmp(s, "await:", 6))
		return await_log(s + 6);
	if (sscanf(s, "sleep:%u", &v) == 1) {
		struct timespec t = { (time_t)(v / 1000), (long)(v % 1000) * 1000000 };

		nanosleep(&t, NULL);
		return CUDA_SUCCESS;
	}
	printf("app: unknown step %s\n", s);
	return CUDA_ERROR_INVALID_VALUE;
}

static int run(const char *s)
{
	double start = now_ms();
	CUresult rc = step(s);

	printf("app: %s: %d (%.0f ms)\n", s, rc, now_ms() - start);
	fflush(stdout);
	return rc != CUDA_SUCCESS;
}

int main(int argc, char **argv)
{
	CUcontext ctx;
	CUmodule module;
	char *ptx, line[256];
	int failed = 0;

	if (argc < 2 || !(ptx = read_file(argv[1]))) {
		fprintf(stderr, "usage: graph_app PTX STEP... [-]\n");
		return 2;
	}
	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx) ||
	    cuModuleLoadData(&module, ptx) || cuModuleGetFunction(&scale, module, "scale") ||
	    cuMemAlloc_v2(&buf, 16) || cuStreamCreate(&stream, 1 /* NON_BLOCKING */)) {
		printf("app: setup failed\n");
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "-") != 0) {
			failed |= run(argv[i]);
			continue;
		}
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = 0;
			if (*line)
				failed |= run(line);
		}
	}
	printf("app: done\n");
	free(ptx);
	return failed;
}
