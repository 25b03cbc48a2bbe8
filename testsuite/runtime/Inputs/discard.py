#!/usr/bin/env python3
"""The discard protocol between a tenant and `colocctl discard`, for discard.test.

usage: discard.py protocol DIR DISCARD_APP COLOCCTL
       discard.py latency DIR MEM_APP COLOCCTL

protocol: runs DISCARD_APP as a best-effort tenant reading its steps from
standard input and, between steps, posts discard requests and reads
`colocctl status`, through the protocol's states.  Prints every line of
both: the app's as they come ("app: ..."), colocctl's tagged "ctl:".  A
step's output ends with its own line; callback lines come before it.

latency: MEM_APP allocates as a latency tenant (which joins the table);
colocctl must refuse to post it a request.

The environment (LD_PRELOAD, the fake driver) comes from the caller.
"""
import os
import subprocess
import sys

sys.stdout.reconfigure(line_buffering=True)
mode, run_dir, app_path, colocctl = sys.argv[1:5]
os.makedirs(run_dir, exist_ok=True)
env = dict(os.environ, COLOC_RUN_DIR=run_dir, COLOC_CACHE_DIR=os.path.join(run_dir, "cache"),
           COLOC_ROLE="latency" if mode == "latency" else "best-effort")
args = ["alloc:4096", "sleep:30000"] if mode == "latency" else ["-"]
app = subprocess.Popen([app_path, *args], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       text=True)
pid = str(app.pid)
print(app.stdout.readline(), end="")  # the pid, or the allocation: the tenant has joined


def step(s):
    app.stdin.write(s + "\n")
    app.stdin.flush()
    name = s if s == "pending" else s + ":"
    while True:
        line = app.stdout.readline()
        if not line:
            sys.exit(f"app ended during step {s}")
        print(line, end="")
        if line.startswith(f"app: {name}"):
            return


def ctl(*args):
    r = subprocess.run([colocctl, *args], env=env, capture_output=True, text=True, timeout=30)
    for line in (r.stdout + r.stderr).splitlines():
        print("ctl:", line)
    print("ctl: exit", r.returncode)


if mode == "latency":
    ctl("discard", pid)
    app.kill()
else:
    # Nothing outstanding: nothing to report or acknowledge; no unit open.
    for s in ("pending", "ack:0", "phase:optimizer", "end", "callback", "begin:7", "begin:8",
              "phase:9", "phase:none"):
        step(s)
    ctl("status")
    # A request in phase compute: the callback hears of it once, pending reports it
    # with its bytes, the acknowledgement clears it, and a second one has nothing left.
    ctl("discard", pid, "1048576")
    step("wait-callback:1")
    step("pending")
    ctl("status")
    step("ack:4096")
    step("ack:4096")
    step("pending")
    # A request during the model update waits: neither pending nor the callback
    # sees it through optimizer and collective; back in compute, both do.
    step("phase:optimizer")
    ctl("discard", pid, "2097152")
    step("sleep:200")
    step("count")
    step("pending")
    ctl("status")
    step("phase:collective")
    step("pending")
    step("phase:compute")
    step("wait-callback:2")
    step("pending")
    step("ack:8192")
    step("end")
    # Between units it waits for the next one.
    ctl("discard", pid)
    step("sleep:200")
    step("count")
    step("pending")
    step("begin:8")
    step("wait-callback:3")
    step("pending")
    # A request posted after pending reported stays outstanding past the
    # acknowledgement of the first, with what both wanted.
    ctl("discard", pid, "100")
    step("wait-callback:4")
    step("ack:0")
    step("pending")
    step("ack:1")
    step("pending")
    step("end")
    # Without a callback nothing is called; pending still reports.
    step("uncallback")
    step("begin:9")
    ctl("discard", pid, "5")
    step("sleep:200")
    step("count")
    step("pending")
    step("ack:5")
    step("end")
    ctl("status")
app.stdin.close()
print(app.stdout.read(), end="")
print("app: exit", app.wait())
ctl("discard", pid)
