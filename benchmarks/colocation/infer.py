#!/usr/bin/env python3
"""A latency tenant: stock PyTorch ResNet-50 inference (random weights,
the model built here with torch.nn,
batch 1) under open-loop Poisson arrivals; prints p50/p90/p99 latency.

usage: infer.py RATE SECONDS [SEED]
"""
import sys
import time

import numpy as np
import torch
from torch import nn


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width),
            nn.ReLU(inplace=True), nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.skip = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return torch.relu(self.body(x) + self.skip(x))


def resnet50():
    """ResNet-50's layout (3, 4, 6, 3 bottlenecks), so torchvision is not needed."""
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
    return nn.Sequential(*layers)


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
