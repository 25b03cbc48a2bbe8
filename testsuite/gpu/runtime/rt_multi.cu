// Several GPUs in one process, for the runtime's multi-GPU check: one host
// thread per visible device, each with its own inputs (from SEED and the
// device's number), runs ROUNDS rounds of a compute-heavy elementwise
// kernel (many short blocks: a persistent form stops between them) and a
// block reduction with an early return and barriers, then writes its
// results.  Everything computed goes to OUT_FILE, device after device, so
// runs with and without libcoloc can be compared byte for byte; each
// device's wall time from its first launch to its last synchronization is
// printed ("dev D: ... ms"), so a run beside a latency tenant on one GPU
// shows whether colocc held back the other GPU's work too.
//
// usage: rt_multi OUT_FILE SEED ROUNDS
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda_check.h"

// Each element: a chain of 256 dependent multiply-adds, so a block of 256
// threads takes a few microseconds and a launch thousands of blocks.
__global__ void burn(const float *x, float *y, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	float v = x[i];
	for (int k = 0; k < 256; k++)
		v = v * a + 0.25f * __sinf(v);
	y[i] = v;
}

// Early return for the tail, then barriers: the unisync path.
__global__ void block_sum(const float *x, float *partial, unsigned *hist, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	if (blockIdx.x == gridDim.x - 1 && i >= n)
		return;
	for (int step = 1; step < blockDim.x; step *= 2) {
		__syncthreads();
		if (threadIdx.x % (2 * step) == 0 && threadIdx.x + step < blockDim.x)
			s[threadIdx.x] += s[threadIdx.x + step];
	}
	if (threadIdx.x == 0) {
		partial[blockIdx.x] = s[0];
		atomicAdd(&hist[((unsigned)__float_as_uint(s[0]) >> 7) % 64], 1u);
	}
}

struct result {
	std::vector<float> y, partial;
	std::vector<unsigned> hist;
	double ms = 0;
	bool ok = false;
};

static void run_device(int dev, uint64_t seed, int rounds, result *r)
{
	const int n = (1 << 22) + 77, threads = 256, blocks = (n + threads - 1) / threads;
	std::vector<float> x(n);
	uint64_t s = seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(dev + 1));
	float *dx, *dy, *dpart;
	unsigned *dhist;

	CHECK(cudaSetDevice(dev));
	for (int i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x[i] = (float)(s >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
	}
	CHECK(cudaMalloc(&dx, n * sizeof(float)));
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	CHECK(cudaMalloc(&dpart, blocks * sizeof(float)));
	CHECK(cudaMalloc(&dhist, 64 * sizeof(unsigned)));
	CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dhist, 0, 64 * sizeof(unsigned)));
	CHECK(cudaDeviceSynchronize());
	auto t0 = std::chrono::steady_clock::now();
	for (int k = 0; k < rounds; k++) {
		burn<<<blocks, threads>>>(dx, dy, n, 0.5f + 0.01f * (float)(k % 7));
		block_sum<<<blocks, threads>>>(dy, dpart, dhist, n);
		std::swap(dx, dy);
	}
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	r->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	r->y.resize(n);
	r->partial.resize(blocks);
	r->hist.resize(64);
	CHECK(cudaMemcpy(r->y.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(r->partial.data(), dpart, blocks * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(r->hist.data(), dhist, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(dx));
	CHECK(cudaFree(dy));
	CHECK(cudaFree(dpart));
	CHECK(cudaFree(dhist));
	r->ok = true;
}

int main(int argc, char **argv)
{
	int ndev = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: rt_multi OUT_FILE SEED ROUNDS\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[2], NULL, 0);
	int rounds = atoi(argv[3]);
	CHECK(cudaGetDeviceCount(&ndev));
	if (ndev < 2) {
		fprintf(stderr, "rt_multi: %d device(s) visible; the check needs two or more\n", ndev);
		return 2;
	}
	std::vector<result> res(ndev);
	std::vector<std::thread> th;
	for (int d = 0; d < ndev; d++)
		th.emplace_back(run_device, d, seed, rounds, &res[d]);
	for (auto &t : th)
		t.join();
	FILE *out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	for (int d = 0; d < ndev; d++) {
		if (!res[d].ok)
			return 1;
		fwrite(res[d].y.data(), sizeof(float), res[d].y.size(), out);
		fwrite(res[d].partial.data(), sizeof(float), res[d].partial.size(), out);
		fwrite(res[d].hist.data(), sizeof(unsigned), res[d].hist.size(), out);
		printf("dev %d: %.1f ms for %d rounds\n", d, res[d].ms, rounds);
	}
	if (fclose(out) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
