#!/usr/bin/env python3
"""One CUDA process for the MPS probe (run): whether the driver made it an
MPS client, and how much GEMM work it got done.

usage: mps_probe.py LABEL SECONDS
Prints one line: LABEL pid=P mps_enabled=0|1 gemms_per_s=R ok=1.  The GEMM
result is checked against a float64 product of the same inputs (ok=0 if not).
"""
import ctypes
import os
import sys
import time

import torch

label, seconds = sys.argv[1], float(sys.argv[2])
torch.manual_seed(7)
a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
torch.cuda.synchronize()
cuda = ctypes.CDLL("libcuda.so.1")
dev, mps = ctypes.c_int(), ctypes.c_int(-1)
cuda.cuDeviceGet(ctypes.byref(dev), 0)
cuda.cuDeviceGetAttribute(ctypes.byref(mps), 133, dev)  # CU_DEVICE_ATTRIBUTE_MPS_ENABLED
n, t0 = 0, time.monotonic()
while time.monotonic() - t0 < seconds:
    c = a @ b
    n += 1
    if n % 16 == 0:
        torch.cuda.synchronize()
torch.cuda.synchronize()
rate = n / (time.monotonic() - t0)
ref = (a.double() @ b.double()).float()
ok = int(torch.allclose(c, ref, rtol=1e-2, atol=1e-1))
print(f"{label} pid={os.getpid()} mps_enabled={mps.value} gemms_per_s={rate:.0f} ok={ok}",
      flush=True)
sys.exit(0 if ok else 1)
