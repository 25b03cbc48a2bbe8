#!/usr/bin/env python3
"""Checks a trace written by benchmarks/suite/traffic.py, reading it on its own
(not with traffic.read_trace), and prints what it measured.

usage: tracestat.py TRACE --seconds S [--rate R --rate-tol T] [--window W]
                    [--max-window-rate X] [--min-peak-rate X]
                    [--dispersion-min D] [--dispersion-max D]

Always checked: every non-comment line is a time with exactly 6 decimals; times
ascend and lie in [0, S); the header's count and mean_rate match the lines.
--rate-tol is relative: |count/S - R| <= T x R.  The window statistics count
arrivals in consecutive W-second windows (default 1): the highest count / W,
and the index of dispersion, variance / mean of the counts (1 for Poisson
arrivals, whatever the rate).  Exits 1 after printing 'FAIL: ...' lines.
"""
import argparse
import re
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--rate", type=float)
    p.add_argument("--rate-tol", type=float)
    p.add_argument("--window", type=float, default=1.0)
    p.add_argument("--max-window-rate", type=float)
    p.add_argument("--min-peak-rate", type=float)
    p.add_argument("--dispersion-min", type=float)
    p.add_argument("--dispersion-max", type=float)
    a = p.parse_args()

    fails = []
    header, times = {}, []
    for n, line in enumerate(open(a.trace), 1):
        line = line.rstrip("\n")
        if line.startswith("#"):
            m = re.fullmatch(r"# (\w+): (.*)", line)
            if m:
                header[m.group(1)] = m.group(2)
            continue
        if not re.fullmatch(r"\d+\.\d{6}", line):
            fails.append(f"line {n}: '{line}' is not a time with 6 decimals")
            continue
        t = float(line)
        if times and t < times[-1]:
            fails.append(f"line {n}: {line} is below the previous arrival")
        if not 0 <= t < a.seconds:
            fails.append(f"line {n}: {line} is outside [0, {a.seconds:g})")
        times.append(t)

    count = len(times)
    mean_rate = count / a.seconds
    if header.get("count") != str(count):
        fails.append(f"header count {header.get('count')} but {count} arrivals")
    if header.get("mean_rate") != f"{mean_rate:.6f}":
        fails.append(f"header mean_rate {header.get('mean_rate')} but {mean_rate:.6f}")
    for key in ("generator", "rate", "seconds", "seed"):
        if key not in header:
            fails.append(f"header has no '{key}'")

    windows = [0] * max(1, int(a.seconds / a.window))
    for t in times:
        windows[min(int(t / a.window), len(windows) - 1)] += 1
    peak = max(windows) / a.window
    mean = sum(windows) / len(windows)
    var = sum((c - mean) ** 2 for c in windows) / max(1, len(windows) - 1)
    dispersion = var / mean if mean else 0.0
    print(f"count={count} mean_rate={mean_rate:.4f} max_window_rate={peak:.1f} "
          f"dispersion={dispersion:.3f}")

    if a.rate is not None and abs(mean_rate - a.rate) > a.rate_tol * a.rate:
        fails.append(f"mean rate {mean_rate:.4f} is not within {a.rate_tol:g} of {a.rate:g}")
    if a.max_window_rate is not None and peak > a.max_window_rate:
        fails.append(f"max window rate {peak:g} is above {a.max_window_rate:g}")
    if a.min_peak_rate is not None and peak < a.min_peak_rate:
        fails.append(f"max window rate {peak:g} is below {a.min_peak_rate:g}")
    if a.dispersion_min is not None and dispersion < a.dispersion_min:
        fails.append(f"dispersion {dispersion:.3f} is below {a.dispersion_min:g}")
    if a.dispersion_max is not None and dispersion > a.dispersion_max:
        fails.append(f"dispersion {dispersion:.3f} is above {a.dispersion_max:g}")
    for f in fails[:20]:
        print(f"FAIL: {f}")
    if not fails:
        print("ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
