#!/usr/bin/env python3
"""A stand-in for serve.py without a GPU or torch, for the suite's tests: the
same command line, ready line, open loop and CSV (openloop.py, as serve.py
uses them) and JSON summary, but a request only sleeps.  It sleeps FAST_MS
right after another request and IDLE_MS after the tenant was idle, as a real
tenant is slower from an idle GPU and CPU (what the open-loop calibration
measures); SHARED_MS while the file $STUB_BE_MARK exists, that is while the
stub gpt_train runs beside it."""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from betenant import stop_on_signals, stopped_by  # noqa: E402
from openloop import latencies_ms, serve, write_csv  # noqa: E402
from traffic import read_trace  # noqa: E402

FAST_MS, IDLE_MS, SHARED_MS = 2.0, 6.0, 50.0
IDLE_AFTER_S = 0.002


def main():
    p = argparse.ArgumentParser(prog="serve.py")
    p.add_argument("model")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--trace")
    how.add_argument("--calibrate", type=int)
    p.add_argument("--out")
    p.add_argument("--batch", type=int, default=1)
    a = p.parse_args()
    name = f"{a.model}_b{a.batch}"
    mark = os.environ.get("STUB_BE_MARK")
    last_done = [-1.0]

    def request(i):
        now = time.perf_counter()
        if mark and os.path.exists(mark):
            ms = SHARED_MS
        else:
            ms = FAST_MS if now - last_done[0] < IDLE_AFTER_S else IDLE_MS
        time.sleep(ms / 1000)
        last_done[0] = time.perf_counter()

    if a.calibrate:
        times = []
        for i in range(a.calibrate):
            t0 = time.perf_counter()
            request(i)
            times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        print(json.dumps({"workload": name, "requests": a.calibrate,
                          "service_ms_p50": round(times[len(times) // 2], 3), "check": "ok"}))
        return 0
    _, arrivals = read_trace(a.trace)
    stop = stop_on_signals()
    print(f"serve.py: {name} ready, {len(arrivals)} requests", file=sys.stderr, flush=True)
    rows = serve(request, arrivals, stop)
    write_csv(a.out, arrivals, rows)
    lat = sorted(latencies_ms(rows))
    pick = (lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))], 3)) if lat else \
        (lambda q: None)
    print(json.dumps({"workload": name, "requests": len(rows),
                      "unfinished": len(arrivals) - len(rows),
                      "stopped_by": stopped_by(stop) if stop else None,
                      "p50_ms": pick(0.5), "p99_ms": pick(0.99), "check": "ok"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
