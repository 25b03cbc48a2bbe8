// A kernel whose static shared memory (40 KB) is larger than its cubin: the
// .nv.shared section (type 0x7000000a) has a size but no bytes in the file.
__global__ void big_shared(int *out)
{
	__shared__ int buf[10240];
	buf[threadIdx.x] = threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}
