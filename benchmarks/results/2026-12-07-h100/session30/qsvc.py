"""Service time (done - start) of the graphed ResNet-50's requests in suite runs, split by
whether a request arrived while the one before was still running (queued) or found the
server idle.  usage: python3 qsvc.py RUN_DIR...  (each a suite OUT with latency/*.csv)"""
import csv
import glob
import os
import sys


def pct(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))] * 1e3 if v else float("nan")


for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "latency", "resnet50_graph_b1--*.csv"))):
        queued, idle, prev_done = [], [], -1.0
        for r in csv.DictReader(open(f)):
            try:
                a, s, e = float(r["arrival_s"]), float(r["start_s"]), float(r["done_s"])
            except ValueError:  # unfinished at the end of the trace
                continue
            (queued if a < prev_done else idle).append(e - s)
            prev_done = e
        cell = os.path.basename(f)[len("resnet50_graph_b1"):-len(".csv")]
        print(f"{d} {cell} queued {len(queued)} p10 {pct(queued, .1):.3f} p50 {pct(queued, .5):.3f}"
              f" | idle {len(idle)} p50 {pct(idle, .5):.3f}")
