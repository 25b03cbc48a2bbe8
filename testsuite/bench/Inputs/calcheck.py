"""Checks what the suite in OUT made of its calibration: the service time M
of LAT is the open-loop step's mean busy time, the traces and records use it,
and it is above the back-to-back p50 by more than FACTOR.
usage: calcheck.py OUT LAT FACTOR"""
import json
import os
import sys

out, lat, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
cal = json.load(open(os.path.join(out, "calibration.json")))[lat]
m, b2b = cal["service_ms"], cal["back_to_back"]["service_ms_p50"]
print("M is the light busy mean:", m == cal["light"]["busy_ms_mean"])
traces = [n for n in os.listdir(os.path.join(out, "traces")) if "calibrate" not in n]
for n in sorted(traces):
    header = dict(line[2:].strip().split(": ", 1) for line in open(os.path.join(out, "traces", n))
                  if line.startswith("# ") and ": " in line)
    print(f"trace {n} scaled by M:", float(header["service_ms"]) == m)
for n in sorted(os.listdir(os.path.join(out, "runs"))):
    rec = json.load(open(os.path.join(out, "runs", n)))
    if rec.get("latency_workload") == lat:
        print(f"record {n} has M:", rec["service_ms"] == m and
              rec["service_ms_back_to_back"] == b2b)
print(f"M over the back-to-back p50 above {factor:g}:", m / b2b > factor)
