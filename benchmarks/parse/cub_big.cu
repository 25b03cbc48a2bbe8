// A large PTX module for the front-end speed benchmark: device-wide CUB
// algorithms instantiated for many key and value types.  Host code is only
// there to force the instantiations; the benchmark compiles with -ptx.
#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

template <typename T>
void instantiate_one(void *tmp, size_t &bytes, const T *in, T *out, int *flags, int n,
		     cudaStream_t s)
{
	cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
	cub::DeviceReduce::Max(tmp, bytes, in, out, n, s);
	cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n, s);
	cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, s);
	cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, n, 0, int(sizeof(T) * 8), s);
	cub::DeviceRadixSort::SortPairs(tmp, bytes, in, out, flags, flags, n, 0,
					int(sizeof(T) * 8), s);
	cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, flags, n, s);
	cub::DeviceSelect::Unique(tmp, bytes, in, out, flags, n, s);
	cub::DeviceRunLengthEncode::Encode(tmp, bytes, in, out, flags, flags, n, s);
	cub::DeviceSegmentedReduce::Sum(tmp, bytes, in, out, n, flags, flags + 1, s);
	cub::DeviceReduce::ArgMax(tmp, bytes, in, (cub::KeyValuePair<int, T> *)out, n, s);
	cub::DeviceReduce::ReduceByKey(tmp, bytes, in, out, flags, flags, flags, cuda::std::plus<T>(), n, s);
	cub::DevicePartition::Flagged(tmp, bytes, in, flags, out, flags, n, s);
	cub::DeviceMergeSort::SortKeys(tmp, bytes, out, n, cuda::std::less<T>(), s);
	cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, cuda::maximum<T>(), T(0), n, s);
}

#define INSTANTIATE(T) \
	template void instantiate_one<T>(void *, size_t &, const T *, T *, int *, int, cudaStream_t);
INSTANTIATE(char)
INSTANTIATE(signed char)
INSTANTIATE(unsigned char)
INSTANTIATE(short)
INSTANTIATE(unsigned short)
INSTANTIATE(int)
INSTANTIATE(unsigned int)
INSTANTIATE(long long)
INSTANTIATE(unsigned long long)
INSTANTIATE(float)
INSTANTIATE(double)
INSTANTIATE(long)
INSTANTIATE(unsigned long)
