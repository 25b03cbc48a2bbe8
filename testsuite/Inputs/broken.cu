__global__ void broken(float *y)
{
	y[threadIdx.x] = undefined_name;
}
