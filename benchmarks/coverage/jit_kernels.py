#!/usr/bin/env python3
"""Writes the PTX that Numba, CuPy and Triton generate for typical kernels,
one file per module, into OUT/numba, OUT/cupy and OUT/triton, for
`colocc --list` to cover what JIT compilers produce.

usage: jit_kernels.py OUT

Each generator and each kernel is tried on its own: a failure is printed
and counted, the others go on.  Needs a GPU for CuPy and Triton.
"""
import os
import sys
import traceback

OUT = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
failures = []


def save(kind, name, ptx):
    if isinstance(ptx, bytes):
        ptx = ptx.decode()
    ptx = ptx.rstrip("\0")
    d = os.path.join(OUT, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".ptx"), "w") as f:
        f.write(ptx)


def attempt(kind, name, fn):
    try:
        fn()
    except Exception:
        failures.append(f"{kind}/{name}")
        print(f"jit_kernels: {kind}/{name} failed:", file=sys.stderr)
        traceback.print_exc()


# ---- Numba: compile_ptx needs no GPU; cc=(9, 0) as on the H100.
def numba_kernels():
    import numpy
    if not hasattr(numpy, "row_stack"):
        # numba-cuda still names this alias, which NumPy 2.4 removed.
        numpy.row_stack = numpy.vstack
    from numba import cuda, float32, int32

    def saxpy(out, x, y, a):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    def matmul_naive(c, a, b):
        i, j = cuda.grid(2)
        if i < c.shape[0] and j < c.shape[1]:
            acc = float32(0)
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    def matmul_tiled(c, a, b):
        sa = cuda.shared.array((16, 16), float32)
        sb = cuda.shared.array((16, 16), float32)
        x, y = cuda.grid(2)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        acc = float32(0)
        for t in range((a.shape[1] + 15) // 16):
            sa[ty, tx] = a[x, t * 16 + ty] if x < a.shape[0] and t * 16 + ty < a.shape[1] else 0
            sb[ty, tx] = b[t * 16 + tx, y] if y < b.shape[1] and t * 16 + tx < b.shape[0] else 0
            cuda.syncthreads()
            for k in range(16):
                acc += sa[k, tx] * sb[ty, k]
            cuda.syncthreads()
        if x < c.shape[0] and y < c.shape[1]:
            c[x, y] = acc

    def block_sum(out, x):
        buf = cuda.shared.array(256, float32)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        buf[t] = x[i] if i < x.size else 0
        cuda.syncthreads()
        s = 128
        while s > 0:
            if t < s:
                buf[t] += buf[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            cuda.atomic.add(out, 0, buf[0])

    def histogram(hist, x, nbins):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.add(hist, int32(x[i] * nbins) % nbins, 1)

    def stencil(out, x):
        i, j = cuda.grid(2)
        if 0 < i < x.shape[0] - 1 and 0 < j < x.shape[1] - 1:
            out[i, j] = 0.25 * (x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])

    def warp_reduce(out, x):
        i = cuda.grid(1)
        v = x[i] if i < x.size else float32(0)
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if cuda.laneid == 0:
            cuda.atomic.add(out, 0, v)

    def math_heavy(out, x):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[i] = (v * v + 1.0) ** 0.5 + float32(2.0) ** v

    def grid_sync(out, x):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i]
        g.sync()
        if i < x.size:
            out[i] += out[x.size - 1 - i]

    kernels = [
        (saxpy, "void(float32[:], float32[:], float32[:], float32)"),
        (matmul_naive, "void(float32[:,:], float32[:,:], float32[:,:])"),
        (matmul_tiled, "void(float32[:,:], float32[:,:], float32[:,:])"),
        (block_sum, "void(float32[:], float32[:])"),
        (histogram, "void(int32[:], float32[:], int32)"),
        (stencil, "void(float64[:,:], float64[:,:])"),
        (warp_reduce, "void(float32[:], float32[:])"),
        (math_heavy, "void(float32[:], float32[:])"),
        (grid_sync, "void(float32[:], float32[:])"),
    ]
    for fn, sig in kernels:
        def one(fn=fn, sig=sig):
            ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0))
            save("numba", fn.__name__, ptx)
        attempt("numba", fn.__name__, one)


# ---- CuPy: with CUPY_COMPILE_WITH_PTX=1 NVRTC returns PTX; every module
# CuPy compiles for the operations below is kept.
def cupy_kernels():
    import tempfile
    os.environ["CUPY_COMPILE_WITH_PTX"] = "1"
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-cache-")
    import cupy
    from cupy.cuda import compiler

    # Every NVRTC compilation goes through _NVRTCProgram.compile, which
    # returns the PTX (or a cubin, without CUPY_COMPILE_WITH_PTX).
    seen = {"ptx": 0, "other": 0}
    original = compiler._NVRTCProgram.compile

    def capture(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        text = result[0] if isinstance(result, tuple) else result
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode(errors="replace") if b".version" in text[:4096] else None
        if isinstance(text, str) and ".version" in text[:4096]:
            seen["ptx"] += 1
            save("cupy", f"module{seen['ptx']:03d}", text)
        else:
            seen["other"] += 1
        return result

    compiler._NVRTCProgram.compile = capture
    x = cupy.random.rand(1 << 16, dtype=cupy.float32)
    y = cupy.random.rand(1 << 16, dtype=cupy.float32)
    m = cupy.random.rand(256, 256, dtype=cupy.float32)
    ops = {
        "elementwise": lambda: cupy.exp(x) * y + 1,
        "sum": lambda: x.sum(),
        "mean_axis": lambda: m.mean(axis=1),
        "argmax": lambda: cupy.argmax(x),
        "cumsum": lambda: cupy.cumsum(x),
        "sort": lambda: cupy.sort(x),
        "where": lambda: cupy.where(x > 0.5, x, y),
        "take": lambda: cupy.take(x, cupy.arange(0, 1 << 16, 7)),
        "histogram": lambda: cupy.histogram(x, bins=64),
        "unique": lambda: cupy.unique((x * 100).astype(cupy.int32)),
        "norm": lambda: cupy.linalg.norm(m),
        "transpose_copy": lambda: cupy.ascontiguousarray(m.T),
        "elementwise_kernel": lambda: cupy.ElementwiseKernel(
            "float32 a, float32 b", "float32 c", "c = a > b ? a - b : b - a", "absdiff")(x, y),
        "reduction_kernel": lambda: cupy.ReductionKernel(
            "float32 x", "float32 y", "x * x", "a + b", "y = sqrt(a)", "0", "l2")(x),
        "raw_kernel": lambda: cupy.RawKernel(r'''
extern "C" __global__ void tile_sum(const float *x, float *out, int n) {
    __shared__ float buf[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}''', "tile_sum")((256,), (256,), (x, cupy.zeros(1, cupy.float32), cupy.int32(x.size))),
    }
    for name, op in ops.items():
        attempt("cupy", name, lambda op=op: (op(), cupy.cuda.Device().synchronize()))
    compiler._NVRTCProgram.compile = original
    print(f"jit_kernels: CuPy compiled {seen['ptx']} PTX modules ({seen['other']} other results)")


# ---- Triton: the compiled kernel a launch returns carries its PTX.
def triton_kernels():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    @triton.jit
    def softmax(out_ptr, in_ptr, stride, ncols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        v = tl.load(in_ptr + row * stride + cols, mask=cols < ncols, other=-float("inf"))
        v = v - tl.max(v, axis=0)
        e = tl.exp(v)
        tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < ncols)

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

    n = 1 << 16
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    o = torch.empty_like(x)
    m = torch.rand(128, 1000, device="cuda")
    mo = torch.empty_like(m)
    a = torch.rand(256, 256, device="cuda", dtype=torch.float16)
    b = torch.rand(256, 256, device="cuda", dtype=torch.float16)
    c = torch.empty(256, 256, device="cuda", dtype=torch.float32)
    launches = {
        "add": lambda: add[(n // 1024,)](x, y, o, n, BLOCK=1024),
        "softmax": lambda: softmax[(128,)](mo, m, m.stride(0), 1000, BLOCK=1024),
        "matmul": lambda: matmul[(4, 4)](a, b, c, 256, 256, 256, BM=64, BN=64, BK=32),
    }
    for name, launch in launches.items():
        def one(name=name, launch=launch):
            compiled = launch()
            torch.cuda.synchronize()
            save("triton", name, compiled.asm["ptx"])
        attempt("triton", name, one)


for gen in (numba_kernels, cupy_kernels, triton_kernels):
    attempt("generator", gen.__name__, gen)
print(f"jit_kernels: {len(failures)} failures: {' '.join(failures) or '-'}")
