// Host program for the binary tests; its own kernel sits in a second
// translation unit's fatbin.
__global__ void vec_add(float *out, const float *a, const float *b, int n);

__global__ void app_kernel(int *p) { p[threadIdx.x] = threadIdx.x; }

int main()
{
	vec_add<<<1, 32>>>(nullptr, nullptr, nullptr, 0);
	app_kernel<<<1, 32>>>(nullptr);
	return 0;
}
