#!/usr/bin/env python3
"""A latency and a best-effort tenant capturing and launching graphs, for graph.test.

usage: graphs.py DIR GRAPH_APP PTX COLOCCTL

The latency tenant captures a graph of one kernel (global mode): the capture
must not make it busy.  Its graph launch must (the kernel runs on the fake
GPU until the harness ends it, 1 s after the best-effort tenant's graph
launch began: COLOC_FAKE_KERNEL_HOLD); alone, it then shows as unwatched
(COLOC_MONITOR=auto leaves it busy).  A best-effort tenant then captures
its own graph without waiting (captured launches are not gated) and launches
it: the launch must wait for the latency tenant's graph (at least 300 ms),
and be counted.  Nothing depends on how long the tenants take to start.

The environment (LD_PRELOAD, the fake driver) comes from the caller.
"""
import os
import re
import subprocess
import sys
import time

sys.stdout.reconfigure(line_buffering=True)
run_dir, app, ptx, colocctl = sys.argv[1:5]
env = dict(os.environ, COLOC_RUN_DIR=run_dir, COLOC_CACHE_DIR=os.path.join(run_dir, "cache"))


def status(tag, until=None):
    """colocctl status; with UNTIL, again until it matches (at most 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        out = subprocess.run([colocctl, "status"], env=env, capture_output=True, text=True).stdout
        if not until or re.search(until, out) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for line in out.splitlines():
        print(f"{tag}: {line}")


def start(role, **extra):
    return subprocess.Popen([app, ptx, "-"], env=dict(env, COLOC_ROLE=role, **extra),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def steps(p, *names, sent=False):
    """Runs the steps (the first already sent, with SENT); returns the milliseconds
    the last one took."""
    ms = 0
    for name in names:
        if not sent:
            p.stdin.write(name + "\n")
            p.stdin.flush()
        sent = False
        while True:
            line = p.stdout.readline()
            print(line, end="")
            m = re.match(r"app: (\S+): (-?\d+) \((\d+) ms\)", line)
            if m and m.group(1) == name:
                ms = int(m.group(3))
                break
            if not line:
                sys.exit("app ended early")
    return ms


hold = os.path.join(run_dir, "kernel-hold")
os.makedirs(run_dir, exist_ok=True)
open(hold, "w").close()
latency = start("latency", COLOC_FAKE_KERNEL_US="600000", COLOC_FAKE_KERNEL_HOLD=hold)
steps(latency, "begin:global", "launch", "end")
status("captured")
steps(latency, "graph")
# Alone, busy: its monitor leaves it so, unwatched (COLOC_MONITOR=auto).
status("launched", r"latency\s+unwatched")
best = start("best-effort")
captured = steps(best, "begin:global", "launch", "end")
best.stdin.write("graph\n")
best.stdin.flush()
time.sleep(1.0)  # its graph launch waits meanwhile
os.remove(hold)
took = steps(best, "graph", sent=True)
print("best-effort capture waited:", "no" if captured < 150 else f"YES ({captured} ms)")
print("best-effort graph waited:", "yes" if took >= 300 else f"NO ({took} ms)")
steps(best, "sync", "words")
status("both")
for p in (best, latency):
    p.stdin.close()
    print(p.stdout.read(), end="")
    p.wait()
