"""The open loop of the suite's Python latency tenants (serve.py, and the stub
tenants of testsuite/bench): requests served from an arrival trace, stopped
early by SIGTERM or SIGINT, and the per-request CSV.  gpt_serve.cu does the
same in C.  Standard library only.

A request is due at the clock's start plus its arrival time.  When idle the
tenant sleeps until then; when busy the request waits its turn.  A stop
signal lets the request in flight finish; the requests not served by then
are written as unfinished: `i,arrival_s,,,` (no start, done or latency).
report.py counts them as SLO misses with an infinite latency."""
import os
import sys
import time

CSV_HEADER = "i,arrival_s,start_s,done_s,latency_ms"
NAP_S = 0.05  # longest sleep between looks at the stop list


def wait_until(due, stop):
    """Sleeps until DUE (perf_counter time) or a stop signal; False if
    stopped.  The last half millisecond is spun, since sleep can overshoot by
    more than a fast request takes."""
    while not stop:
        left = due - time.perf_counter()
        if left <= 0:
            return True
        if left > 0.0005:
            time.sleep(min(left - 0.0005, NAP_S))
    return False


def serve(request, arrivals, stop):
    """Calls REQUEST(i) (which returns once request i is done) at each
    arrival, open loop, until the trace ends or STOP is non-empty.  Returns
    the served requests' (arrival_s, start_s, done_s) in trace order."""
    rows = []
    start = time.perf_counter()
    # For lining the CSV's times up with colocc's log lines when they carry times
    # (COLOC_LOG_TIME=1): on Linux, perf_counter and monotonic both read CLOCK_MONOTONIC.
    if os.environ.get("COLOC_LOG_TIME") == "1":
        print(f"openloop: clock start at perf_counter {start:.6f}, "
              f"monotonic {time.monotonic():.6f}", file=sys.stderr, flush=True)
    for i, arrival in enumerate(arrivals):
        if not wait_until(start + arrival, stop):
            break
        begun = time.perf_counter()
        request(i)
        rows.append((arrival, begun - start, time.perf_counter() - start))
    return rows


def write_csv(path, arrivals, rows):
    """The CSV: one line per request of the trace, those past ROWS unfinished."""
    with open(path, "w") as f:
        f.write(CSV_HEADER + "\n")
        for i, arrival in enumerate(arrivals):
            if i < len(rows):
                _, begun, done = rows[i]
                f.write(f"{i},{arrival:.6f},{begun:.6f},{done:.6f},"
                        f"{(done - arrival) * 1e3:.3f}\n")
            else:
                f.write(f"{i},{arrival:.6f},,,\n")


def latencies_ms(rows):
    return [(done - arrival) * 1e3 for arrival, _, done in rows]
