__device__ int rdc_helper(int x) { return 3 * x + 1; }

__global__ void rdc_other(long long *p, int a) { p[blockIdx.x] = a; }
