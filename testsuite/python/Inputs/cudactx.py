"""A CUDA context made through the driver with ctypes, as PyTorch makes one
on a GPU: the discard protocol binds to the context current at its first
call.  On the fake driver (LD_LIBRARY_PATH) in the runtime's tests."""
import ctypes
import sys


def make_context():
    cuda = ctypes.CDLL("libcuda.so.1")
    ctx = ctypes.c_void_p()
    if (cuda.cuInit(0) or cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
            or cuda.cuCtxSetCurrent(ctx)):
        sys.exit("no CUDA context")
