#!/usr/bin/env python3
"""A latency and a best-effort tenant capturing and launching graphs, for graph.test.

usage: graphs.py DIR GRAPH_APP PTX COLOCCTL

The latency tenant captures a graph of one kernel (global mode): the capture
must not make it busy.  Its graph launch must (the kernel takes 600 ms on the
fake GPU).  A best-effort tenant then captures its own graph without waiting
(captured launches are not gated) and launches it: the launch must wait for
the latency tenant's graph (at least 300 ms), and be counted.

The environment (LD_PRELOAD, the fake driver) comes from the caller.
"""
import os
import re
import subprocess
import sys

sys.stdout.reconfigure(line_buffering=True)
run_dir, app, ptx, colocctl = sys.argv[1:5]
env = dict(os.environ, COLOC_RUN_DIR=run_dir, COLOC_CACHE_DIR=os.path.join(run_dir, "cache"))


def status(tag):
    out = subprocess.run([colocctl, "status"], env=env, capture_output=True, text=True).stdout
    for line in out.splitlines():
        print(f"{tag}: {line}")


def start(role, **extra):
    return subprocess.Popen([app, ptx, "-"], env=dict(env, COLOC_ROLE=role, **extra),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def steps(p, *names):
    """Runs the steps; returns the milliseconds the last one took."""
    ms = 0
    for name in names:
        p.stdin.write(name + "\n")
        p.stdin.flush()
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


latency = start("latency", COLOC_FAKE_KERNEL_US="600000")
steps(latency, "begin:global", "launch", "end")
status("captured")
steps(latency, "graph")
status("launched")
best = start("best-effort")
captured = steps(best, "begin:global", "launch", "end")
took = steps(best, "graph")
print("best-effort capture waited:", "no" if captured < 150 else f"YES ({captured} ms)")
print("best-effort graph waited:", "yes" if took >= 300 else f"NO ({took} ms)")
steps(best, "sync", "words")
status("both")
for p in (best, latency):
    p.stdin.close()
    print(p.stdout.read(), end="")
    p.wait()
