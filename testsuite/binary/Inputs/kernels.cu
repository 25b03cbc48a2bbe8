// Kernels for the binary tests: plain, struct and scalar parameters, a
// template instance, shared memory with a barrier, and C linkage.
struct Params {
	char tag;
	double scale;
	int dims[3];
};

__global__ void vec_add(float *out, const float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a[i] + b[i];
}

__global__ void with_struct(Params p, char c, short *out)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = (short)(p.tag + c + p.dims[2] * p.scale);
}

template <typename T> __global__ void scale(T *x, T k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= k;
}
template __global__ void scale<double>(double *, double, int);

__global__ void block_sum(const int *in, int *out)
{
	__shared__ int buf[256];
	buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			buf[threadIdx.x] += buf[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = buf[0];
}

extern "C" __global__ void c_linkage(unsigned long long *p)
{
	p[threadIdx.x] = clock64();
}
