#!/usr/bin/env python3
"""A latency tenant: stock PyTorch ResNet-50 inference (random weights,
the suite's model, built with torch.nn,
batch 1) under open-loop Poisson arrivals; prints p50/p90/p99 latency.

usage: infer.py RATE SECONDS [SEED]
"""
import os
import sys
import time

import numpy as np
import torch

# The model is the suite's (benchmarks/suite/serve.py): next to this file
# where prepare put it, or in the source tree.
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "suite")]
from serve import resnet50  # noqa: E402

rate, seconds = float(sys.argv[1]), float(sys.argv[2])
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
torch.manual_seed(0)
model = resnet50().cuda().eval()
x = torch.randn(1, 3, 224, 224, device="cuda")
with torch.no_grad():
    for _ in range(20):
        model(x)
    torch.cuda.synchronize()
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1.0 / rate, int(rate * seconds * 1.5) + 10)
    start = time.perf_counter()
    arrival = start
    lat = []
    for g in gaps:
        arrival += g
        if arrival - start > seconds:
            break
        now = time.perf_counter()
        if now < arrival:
            time.sleep(arrival - now)
        model(x)
        torch.cuda.synchronize()
        lat.append((time.perf_counter() - arrival) * 1000)
lat = np.array(lat)
print(f"infer: {len(lat)} requests, p50 {np.percentile(lat, 50):.2f} ms, "
      f"p90 {np.percentile(lat, 90):.2f} ms, p99 {np.percentile(lat, 99):.2f} ms")
