// Relocatable device code: a kernel calling a device function defined in
// rdc_b.cu.
__device__ int rdc_helper(int x);

__global__ void rdc_caller(int *p) { p[threadIdx.x] = rdc_helper(threadIdx.x); }
