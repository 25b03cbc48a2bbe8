// Launch overhead of a latency tenant: N launches of an empty kernel, the
// time of each launch call, and the throughput of the whole loop.
// usage: launch_bench N
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty(int *p)
{
	if (p && threadIdx.x == 1024)
		*p = 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	std::vector<double> t(n);
	empty<<<1, 32>>>(nullptr);
	cudaDeviceSynchronize();
	auto start = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++) {
		auto a = std::chrono::steady_clock::now();
		empty<<<1, 32>>>(nullptr);
		auto b = std::chrono::steady_clock::now();
		t[i] = std::chrono::duration<double, std::micro>(b - a).count();
		if (i % 1024 == 1023)
			cudaDeviceSynchronize(); /* keep the queue from filling */
	}
	cudaDeviceSynchronize();
	double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	std::sort(t.begin(), t.end());
	printf("launch_bench: %d launches, median call %.3f us, p99 %.3f us, %.0f launches/s, %s\n", n,
	       t[n / 2], t[n * 99 / 100], n / total, cudaGetErrorString(cudaGetLastError()));
	return 0;
}
