#!/usr/bin/env python3
"""p99 of each mode's requests pooled over the repetitions of one suite run,
against the runs alone pooled the same way; mean service time likewise.
usage: pooled.py SUITE_OUT (run from anywhere)"""
import csv
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "suite"))
from report import percentile  # noqa: E402


def load(out, pattern):
    lat, svc = [], []
    for f in sorted(glob.glob(os.path.join(out, "latency", pattern))):
        for r in csv.DictReader(open(f)):
            lat.append(float(r["latency_ms"]))
            svc.append((float(r["done_s"]) - float(r["start_s"])) * 1e3)
    return sorted(lat), svc


out = sys.argv[1]
base, bsvc = load(out, "resnet50_b1--none--alone--*")
print(f"alone: {len(base)} requests, p99 {percentile(base, 99):.2f} ms, "
      f"service {statistics.mean(bsvc):.3f} ms")
for be in ("gpt_train_long", "gpt_train_short"):
    for mode in ("timeslice", "colocc-share"):
        lat, svc = load(out, f"resnet50_b1--{be}--{mode}--*")
        if not lat:
            continue
        print(f"{be} {mode}: {len(lat)} requests, p99 {percentile(lat, 99):.2f} ms "
              f"({100 * (percentile(lat, 99) / percentile(base, 99) - 1):+.1f}%), service "
              f"{100 * (statistics.mean(svc) / statistics.mean(bsvc) - 1):+.1f}%")
