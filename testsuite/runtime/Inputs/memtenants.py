#!/usr/bin/env python3
"""Two tenants sharing one (fake) GPU's memory budget, for mem.test.

usage: memtenants.py DIR MEM_APP COLOCCTL

COLOC_MEM_BUDGET=64M, COLOC_MEM_RESERVE=16M.  A latency tenant allocates
40 MiB and stays; a best-effort tenant may then hold 64 - 16 - 40 = 8 MiB:
16 MiB is refused, 8 MiB is not.  colocctl shows both.  The latency tenant
and the best-effort tenant are killed; a new best-effort tenant's 16 MiB
succeeds (the dead tenants' shares come back when they are reaped).

The environment (LD_PRELOAD, the fake driver) comes from the caller.
"""
import os
import subprocess
import sys
import time

sys.stdout.reconfigure(line_buffering=True)
run_dir, app, colocctl = sys.argv[1:4]
MIB = 1 << 20
os.makedirs(run_dir, exist_ok=True)


def show(tag, text):
    for line in text.splitlines():
        print(tag, line)


env = dict(os.environ, COLOC_RUN_DIR=run_dir, COLOC_CACHE_DIR=os.path.join(run_dir, "cache"),
           COLOC_MEM_BUDGET="64M", COLOC_MEM_RESERVE="16M")

latency = subprocess.Popen([app, f"alloc:{40 * MIB}", "sleep:30000"],
                           env=dict(env, COLOC_ROLE="latency"), stdout=subprocess.PIPE, text=True)
print("latency", latency.stdout.readline(), end="")  # its allocation is made
be = subprocess.Popen([app, "info", f"alloc:{16 * MIB}", f"alloc:{8 * MIB}", "info",
                       "sleep:30000"], env=dict(env, COLOC_ROLE="best-effort"),
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
for _ in range(4):  # its steps are done; it sleeps, still holding its memory
    show("be", be.stdout.readline())
status = subprocess.run([colocctl, "status"], env=env, capture_output=True, text=True, timeout=30)
print(status.stdout, end="")
for p in (be, latency):
    p.kill()
    p.wait()
show("be", be.stderr.read())
after = subprocess.run([app, f"alloc:{16 * MIB}", "info"], env=dict(env, COLOC_ROLE="best-effort"),
                       capture_output=True, text=True, timeout=30)
show("after", after.stdout)
