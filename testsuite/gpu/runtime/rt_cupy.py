#!/usr/bin/env python3
"""CuPy kernels for the runtime's GPU check: an ElementwiseKernel, an
integer ReductionKernel and a RawKernel with a 2-D grid, run with
CUPY_COMPILE_WITH_PTX=1 so that CuPy hands the driver PTX (by default it
hands it cubins, which colocc cannot transform).  Writes every result to
OUT for byte comparison.

usage: rt_cupy.py OUT
"""
import os
import sys

os.environ.setdefault("CUPY_COMPILE_WITH_PTX", "1")
import cupy  # noqa: E402
import numpy as np  # noqa: E402

out_path = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)

absdiff = cupy.ElementwiseKernel("float32 a, float32 b", "float32 c",
                                 "c = a > b ? a - b : b - a", "rt_absdiff")
sumsq = cupy.ReductionKernel("int32 x", "int64 y", "(long long)x * x", "a + b", "y = a", "0",
                             "rt_sumsq")
transpose = cupy.RawKernel(r'''
extern "C" __global__ void rt_transpose(const float *in, float *out, int w, int h) {
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 16 + threadIdx.x; y = blockIdx.x * 16 + threadIdx.y;
    if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
''', "rt_transpose")


def main():
    rng = np.random.default_rng(20261122)
    n = 1_000_003
    a = cupy.asarray(rng.random(n, dtype=np.float32))
    b = cupy.asarray(rng.random(n, dtype=np.float32))
    ints = cupy.asarray(rng.integers(-1000, 1000, n, dtype=np.int32))
    img = cupy.asarray(rng.random((517, 1031), dtype=np.float32))
    c = absdiff(a, b)
    s = sumsq(ints)
    t = cupy.empty((1031, 517), dtype=np.float32)
    transpose(((1031 + 15) // 16, (517 + 15) // 16), (16, 16), (img, t, np.int32(1031), np.int32(517)))
    cupy.cuda.Device().synchronize()
    with open(out_path, "wb") as f:
        for name, arr in (("absdiff", c), ("sumsq", s), ("transpose", t)):
            h = cupy.asnumpy(arr)
            f.write(h.tobytes())
            print(f"cupy {name:10} {h.size:8} elements, sum {h.astype(np.float64).sum():.6e}")
    assert (cupy.asnumpy(t) == cupy.asnumpy(img).T).all(), "transpose is wrong"
    print("rt_cupy: done")


main()
