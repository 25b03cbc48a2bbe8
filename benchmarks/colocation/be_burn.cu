// A best-effort tenant whose kernels carry PTX: for a given time it runs a
// compute-heavy kernel over and over (each launch about a few milliseconds
// on an H100, blocks of tens of microseconds) and reports how many it
// completed, checking its result against the CPU on a sample.
//
// usage: be_burn SECONDS [BLOCKS]
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

__global__ void burn(const float *x, float *y, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float a = x[i], b = 0.5f;
	for (int r = 0; r < rounds; r++) {
		b = fmaf(a, b, 0.25f);
		a = fmaf(b, 0.999f, -0.125f);
	}
	y[i] = a + b;
}

static float burn_cpu(float a, int rounds)
{
	float b = 0.5f;
	for (int r = 0; r < rounds; r++) {
		b = fmaf(a, b, 0.25f);
		a = fmaf(b, 0.999f, -0.125f);
	}
	return a + b;
}

static void on_alarm(int)
{
	const char m[] = "be_burn: watchdog\n";
	if (write(2, m, sizeof(m) - 1) < 0) {
	}
	_exit(124);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	int blocks = argc > 2 ? atoi(argv[2]) : 21120;
	int n = blocks * 256, rounds = 65536;
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGALRM, on_alarm);
	alarm((unsigned)seconds + 60);
	std::vector<float> h(n);
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 1000) / 1000.0f;
	float *x, *y;
	cudaMalloc(&x, n * sizeof(float));
	cudaMalloc(&y, n * sizeof(float));
	cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	auto t0 = std::chrono::steady_clock::now();
	long iters = 0;
	double elapsed = 0;
	while (elapsed < seconds) {
		for (int k = 0; k < 4; k++)
			burn<<<blocks, 256>>>(x, y, n, rounds);
		cudaDeviceSynchronize();
		iters += 4;
		elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	}
	cudaError_t e = cudaGetLastError();
	std::vector<float> out(n);
	cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
	int bad = 0;
	for (int i = 0; i < n; i += 997)
		bad += std::fabs(out[i] - burn_cpu(h[i], rounds)) > 1e-3f * (1 + std::fabs(out[i]));
	printf("be_burn: %ld kernels in %.2f s: %.1f kernels/s, %s, check %s\n", iters, elapsed,
	       iters / elapsed, cudaGetErrorString(e), bad ? "FAILED" : "ok");
	return bad || e != cudaSuccess;
}
