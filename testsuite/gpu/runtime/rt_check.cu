// A CUDA program for the runtime's GPU check: runtime-API kernels (1-D, 2-D
// and 3-D grids that do not divide evenly, a grid-stride loop, a block
// reduction with an early return and barriers, integer atomics, more than
// 48 KB of dynamic shared memory, two streams and an event, a CUDA graph
// captured from a stream and launched three times), and driver-API
// launches of PTX loaded from text (kernelParams and packed `extra`).
// Everything it computes goes to one output file, so that runs with and
// without libcoloc, in either role, can be compared byte for byte.
//
// usage: rt_check OUT_FILE PTX_FILE
#include <cuda.h>
#include <cuda_runtime.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "cuda_check.h"
#define CHECK_CU(x)                                                                    \
	do {                                                                           \
		CUresult r_ = (x);                                                     \
		if (r_ != CUDA_SUCCESS) {                                              \
			fprintf(stderr, "%s:%d: %s: error %d\n", __FILE__, __LINE__, #x, \
				(int)r_);                                              \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

__global__ void grid_stride(const float *x, float *y, int n, float a)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = a * x[i] + y[i] * 0.5f;
}

// Early return for the tail, then barriers: the unisync path.
__global__ void block_sum(const int *x, int *partial, int *total, int n)
{
	__shared__ int s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = i < n ? x[i] : 0;
	if (blockIdx.x == gridDim.x - 1 && i >= n)
		return;
	for (int step = 1; step < blockDim.x; step *= 2) {
		__syncthreads();
		if (threadIdx.x % (2 * step) == 0 && threadIdx.x + step < blockDim.x)
			s[threadIdx.x] += s[threadIdx.x + step];
	}
	if (threadIdx.x == 0) {
		partial[blockIdx.x] = s[0];
		atomicAdd(total, s[0]);
	}
}

__global__ void stencil2d(const float *in, float *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x >= w || y >= h)
		return;
	float c = in[y * w + x];
	float l = x > 0 ? in[y * w + x - 1] : c, r = x < w - 1 ? in[y * w + x + 1] : c;
	float u = y > 0 ? in[(y - 1) * w + x] : c, d = y < h - 1 ? in[(y + 1) * w + x] : c;
	out[y * w + x] = 0.5f * c + 0.125f * (l + r + u + d);
}

__global__ void index3d(unsigned *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;

	if (x < nx && y < ny && z < nz)
		out[(z * ny + y) * nx + x] = (blockIdx.x * 7919u) ^ (blockIdx.y * 104729u) ^
					     (blockIdx.z * 1299709u) ^ (threadIdx.x + 33 * threadIdx.y);
}

// 64 KB of dynamic shared memory: needs cudaFuncSetAttribute on the kernel.
__global__ void big_shared(const int *in, int *out, int n)
{
	extern __shared__ int buf[];
	int per = 16384;

	for (int i = threadIdx.x; i < per; i += blockDim.x)
		buf[i] = in[(blockIdx.x * per + i) % n];
	__syncthreads();
	int acc = 0;
	for (int i = threadIdx.x; i < per; i += blockDim.x)
		acc += buf[per - 1 - i] * (i % 7);
	atomicAdd(&out[blockIdx.x], acc);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_u32()
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

template <typename T> static T *upload(const std::vector<T> &v)
{
	T *d;
	CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
	CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

static FILE *out;
template <typename T> static void dump(const char *what, const T *d, size_t n)
{
	std::vector<T> h(n);
	CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	fwrite(h.data(), sizeof(T), n, out);
	uint64_t sum = 0;
	for (size_t i = 0; i < n * sizeof(T); i++)
		sum = sum * 131 + ((const unsigned char *)h.data())[i];
	printf("%-12s %8zu elements, digest %016llx\n", what, n, (unsigned long long)sum);
}

static void on_alarm(int)
{
	const char msg[] = "rt_check: watchdog: no progress in 60 s\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
	}
	_exit(124);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: rt_check OUT_FILE PTX_FILE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(60);
	out = fopen(argv[1], "wb");
	if (!out)
		return 1;

	const int n = 1000003;
	std::vector<float> xf(n), yf(n);
	std::vector<int> xi(n);
	for (int i = 0; i < n; i++) {
		xf[i] = (float)(next_u32() % 10000) / 100.0f;
		yf[i] = (float)(next_u32() % 10000) / 100.0f;
		xi[i] = (int)(next_u32() % 2001) - 1000;
	}
	float *dx = upload(xf), *dy = upload(yf);
	int *di = upload(xi);
	cudaStream_t s1, s2;
	cudaEvent_t ev;
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));

	// Stream 1: the grid-stride loop, twice; stream 2 waits for it by event.
	grid_stride<<<333, 256, 0, s1>>>(dx, dy, n, 1.5f);
	grid_stride<<<1000, 128, 0, s1>>>(dx, dy, n, -0.25f);
	CHECK(cudaEventRecord(ev, s1));
	CHECK(cudaStreamWaitEvent(s2, ev, 0));

	int blocks = (n + 255) / 256;
	int *partial, *total;
	CHECK(cudaMalloc(&partial, blocks * sizeof(int)));
	CHECK(cudaMalloc(&total, sizeof(int)));
	CHECK(cudaMemsetAsync(total, 0, sizeof(int), s2));
	block_sum<<<blocks, 256, 0, s2>>>(di, partial, total, n);

	const int w = 1031, h = 517;
	float *img_out;
	CHECK(cudaMalloc(&img_out, (size_t)w * h * sizeof(float)));
	stencil2d<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8), 0, s2>>>(dy, img_out, w, h);

	const int nx = 77, ny = 45, nz = 13;
	unsigned *cube;
	CHECK(cudaMalloc(&cube, (size_t)nx * ny * nz * sizeof(unsigned)));
	index3d<<<dim3((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2), dim3(8, 4, 2)>>>(cube, nx, ny, nz);

	int *big;
	const int big_blocks = 264;
	CHECK(cudaMalloc(&big, big_blocks * sizeof(int)));
	CHECK(cudaMemset(big, 0, big_blocks * sizeof(int)));
	CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
	big_shared<<<big_blocks, 512, 65536>>>(di, big, n);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());

	dump("grid_stride", dy, n);
	dump("block_sum", partial, blocks);
	dump("total", total, 1);
	dump("stencil2d", img_out, (size_t)w * h);
	dump("index3d", cube, (size_t)nx * ny * nz);
	dump("big_shared", big, big_blocks);

	// A CUDA graph: kernels and a memset captured on s1 (global mode, where
	// any synchronizing call during the capture would invalidate it), the
	// graph launched three times; under libcoloc the captured kernels must
	// be the originals and the graph runs as one unit.
	float *gy = upload(yf);
	int *gpartial, *gtotal;
	CHECK(cudaMalloc(&gpartial, blocks * sizeof(int)));
	CHECK(cudaMalloc(&gtotal, sizeof(int)));
	cudaGraph_t graph;
	cudaGraphExec_t graph_exec;
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	grid_stride<<<333, 256, 0, s1>>>(dx, gy, n, 0.75f);
	CHECK(cudaMemsetAsync(gtotal, 0, sizeof(int), s1));
	block_sum<<<blocks, 256, 0, s1>>>(di, gpartial, gtotal, n);
	grid_stride<<<1000, 128, 0, s1>>>(dx, gy, n, -2.0f);
	CHECK(cudaStreamEndCapture(s1, &graph));
	CHECK(cudaGraphInstantiateWithFlags(&graph_exec, graph, 0));
	for (int i = 0; i < 3; i++)
		CHECK(cudaGraphLaunch(graph_exec, s1));
	CHECK(cudaStreamSynchronize(s1));
	dump("graph_stride", gy, n);
	dump("graph_sum", gpartial, blocks);
	dump("graph_total", gtotal, 1);
	CHECK(cudaGraphExecDestroy(graph_exec));
	CHECK(cudaGraphDestroy(graph));

	// The driver API: PTX text through cuModuleLoadData, launched with
	// kernelParams and with a packed buffer.
	FILE *pf = fopen(argv[2], "rb");
	if (!pf) {
		perror(argv[2]);
		return 1;
	}
	std::vector<char> ptx(1 << 20);
	size_t len = fread(ptx.data(), 1, ptx.size() - 1, pf);
	fclose(pf);
	ptx[len] = 0;
	CUmodule mod;
	CUfunction fn;
	CHECK_CU(cuModuleLoadData(&mod, ptx.data()));
	CHECK_CU(cuModuleGetFunction(&fn, mod, "scale"));
	float *dz = upload(xf);
	unsigned count = n;
	float factor = 3.0f;
	void *params[] = { &dz, &count, &factor };
	CHECK_CU(cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s1, params, NULL));
	struct {
		void *p;
		unsigned n;
		float f;
	} packed = { dz, count, 0.5f };
	size_t psize = sizeof(packed);
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &psize,
			  CU_LAUNCH_PARAM_END };
	CHECK_CU(cuLaunchKernel(fn, 977, 1, 1, 1024, 1, 1, 0, s1, NULL, extra));
	CHECK(cudaStreamSynchronize(s1));
	dump("driver_scale", dz, n);
	CHECK_CU(cuModuleUnload(mod));
	fclose(out);
	printf("rt_check: done\n");
	return 0;
}
