#!/usr/bin/env python3
"""Reads a trace with traffic.read_trace, generates it again with
traffic.poisson or traffic.bursty from the parameters in its header, and writes
it again with traffic.write_trace: the module must agree with the command line.

usage: roundtrip.py BENCHDIR TRACE
"""
import io
import sys


def main():
    sys.path.insert(0, sys.argv[1])
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    import traffic

    try:
        header, arrivals = traffic.read_trace(sys.argv[2])
    except ValueError as e:
        print(f"error: {e}")
        return 1
    print(f"read: {len(arrivals)} arrivals, header count {header['count']}")
    rate, seconds, seed = float(header["rate"]), float(header["seconds"]), int(header["seed"])
    if header["generator"] == "poisson":
        again = traffic.poisson(rate, seconds, seed)
    else:
        again = traffic.bursty(rate, seconds, seed, float(header["peak_ratio"]),
                               float(header["on_mean_s"]), float(header["off_ratio"]))
    print("generated again:", "same" if again == arrivals else "different")
    params = {k: v for k, v in header.items() if k not in ("count", "mean_rate")}
    text = io.StringIO()
    traffic.write_trace(text, arrivals, params, seconds)
    with open(sys.argv[2]) as f:
        print("written again:", "same" if text.getvalue() == f.read() else "different")
    return 0


if __name__ == "__main__":
    sys.exit(main())
