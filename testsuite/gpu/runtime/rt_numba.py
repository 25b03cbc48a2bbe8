#!/usr/bin/env python3
"""Numba kernels for the runtime's GPU check: a 1-D kernel, a 2-D kernel
whose grid does not divide evenly, a shared-memory block reduction with
barriers, and integer atomics.  Writes every result to OUT, so that runs
with and without libcoloc can be compared byte for byte.

usage: rt_numba.py OUT
"""
import sys

import numpy as np

# numba-cuda on the GPU machine still names np.row_stack, which NumPy 2.4 removed.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
from numba import cuda, int32, float32  # noqa: E402

out_path = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)


@cuda.jit
def axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@cuda.jit
def blur(src, dst):
    x, y = cuda.grid(2)
    h, w = src.shape
    if y < h and x < w:
        c = src[y, x]
        l = src[y, x - 1] if x > 0 else c
        r = src[y, x + 1] if x < w - 1 else c
        dst[y, x] = float32(0.5) * c + float32(0.25) * (l + r)


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(256, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


@cuda.jit
def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)


def main():
    rng = np.random.default_rng(20261122)
    n = 1_000_003
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    img = rng.random((517, 1031), dtype=np.float32)
    ints = rng.integers(0, 1 << 20, n, dtype=np.int32)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    axpy[(n + 255) // 256, 256](np.float32(2.5), dx, dy)
    dimg, dblur = cuda.to_device(img), cuda.device_array_like(img)
    blur[((1031 + 15) // 16, (517 + 15) // 16), (16, 16)](dimg, dblur)
    blocks = (n + 255) // 256
    dints, dpart = cuda.to_device(ints), cuda.device_array(blocks, np.int32)
    block_sum[blocks, 256](dints, dpart)
    dbins = cuda.to_device(np.zeros(97, np.int32))
    histogram[(n + 511) // 512, 512](dints, dbins)
    cuda.synchronize()
    with open(out_path, "wb") as f:
        for name, a in (("axpy", dy), ("blur", dblur), ("block_sum", dpart), ("histogram", dbins)):
            h = a.copy_to_host()
            f.write(h.tobytes())
            print(f"numba {name:10} {h.size:8} elements, sum {h.astype(np.float64).sum():.6e}")
    print("rt_numba: done")


main()
