// A latency tenant for the runtime's multi-GPU check: on its first visible
// device, it runs a one-block kernel that spins for KERNEL_US, waits for it,
// sleeps GAP_US, and so on for SECONDS; so the GPU is busy about
// KERNEL_US / (KERNEL_US + GAP_US) of the time.  It prints "rt_busy: ready"
// once its first kernel is done; at the end (SECONDS passed, or SIGTERM)
// the number of kernels and the p50 and p99 of their launch-to-done times.
//
// usage: rt_busy SECONDS KERNEL_US GAP_US
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cuda_check.h"

__global__ void spin(unsigned long long ns, unsigned *count)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
	if (threadIdx.x == 0)
		atomicAdd(count, 1u);
}

static volatile sig_atomic_t stop;

static void on_term(int)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: rt_busy SECONDS KERNEL_US GAP_US\n");
		return 2;
	}
	double seconds = atof(argv[1]);
	unsigned long long kernel_ns = strtoull(argv[2], NULL, 10) * 1000ull;
	long gap_us = atol(argv[3]);
	unsigned *count;
	std::vector<double> us;

	signal(SIGTERM, on_term);
	CHECK(cudaMalloc(&count, sizeof(unsigned)));
	CHECK(cudaMemset(count, 0, sizeof(unsigned)));
	auto start = std::chrono::steady_clock::now();
	while (!stop) {
		auto t0 = std::chrono::steady_clock::now();
		if (std::chrono::duration<double>(t0 - start).count() >= seconds)
			break;
		spin<<<1, 32>>>(kernel_ns, count);
		CHECK(cudaDeviceSynchronize());
		auto t1 = std::chrono::steady_clock::now();
		if (us.empty()) {
			printf("rt_busy: ready\n");
			fflush(stdout);
		}
		us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
		std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
	}
	unsigned done = 0;
	CHECK(cudaMemcpy(&done, count, sizeof(unsigned), cudaMemcpyDeviceToHost));
	if (done != us.size()) {
		fprintf(stderr, "rt_busy: %u kernels counted on the GPU, %zu launched\n", done,
			us.size());
		return 1;
	}
	std::sort(us.begin(), us.end());
	printf("rt_busy: %zu kernels, p50 %.0f us, p99 %.0f us\n", us.size(),
	       us.empty() ? 0.0 : us[us.size() / 2],
	       us.empty() ? 0.0 : us[std::min(us.size() - 1, us.size() * 99 / 100)]);
	return 0;
}
