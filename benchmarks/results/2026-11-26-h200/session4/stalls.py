#!/usr/bin/env python3
"""Requests whose service took more than LIMIT ms, with the colocc log lines (COLOC_LOG_TIME=1)
of both tenants from 60 ms before their start to their end.  usage: stalls.py RUNDIR CELL [LIMIT]"""
import csv, glob, re, sys
d, cell = sys.argv[1:3]
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 5
err = open(f"{d}/logs/{cell}.lat.err").read()
m = re.search(r"clock start at perf_counter ([\d.]+), monotonic ([\d.]+)", err)
t0 = float(m.group(2))
lines = []
for f in (f"{d}/logs/{cell}.be.err", f"{d}/logs/{cell}.lat.err"):
    for l in open(f):
        g = re.match(r"([\d]+\.[\d]{6}) (colocc.*)", l)
        if g:
            lines.append((float(g.group(1)) - t0, f.split(".")[-2], g.group(2)))
lines.sort()
rows = list(csv.DictReader(open(f"{d}/latency/{cell}.csv")))
n = 0
for r in rows:
    if not r["done_s"]:
        continue
    s, e = float(r["start_s"]), float(r["done_s"])
    if (e - s) * 1e3 < limit:
        continue
    n += 1
    print(f"-- request {r['i']}: start {s:.4f} s, service {(e - s) * 1e3:.1f} ms")
    for t, who, l in lines:
        if s - 0.06 <= t <= e:
            print(f"   {t:.4f} {who} {l[:260]}")
print(f"{n} requests over {limit} ms; {len(lines)} log lines")
