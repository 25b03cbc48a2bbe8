#!/usr/bin/env python3
"""The Python binding of the discard protocol (python/coloc/discard.py) on the
fake driver, for discard-binding.test.

usage: discard_binding.py protocol|latency|missing DIR COLOCCTL

protocol: a best-effort tenant: the unit and phase context managers,
          pending, ack, the callback, against `colocctl discard`.
latency:  a latency tenant: every call raises ColocError(EPERM).
missing:  no libcoloc in the process and no COLOC_LIBRARY: the binding
          says so.

The library comes from LD_PRELOAD or COLOC_LIBRARY (the caller's
environment), the binding from PYTHONPATH.  The script makes its CUDA
context itself, as PyTorch would.
"""
import ctypes
import errno
import os
import subprocess
import sys

from coloc import ColocError, Discard
from cudactx import make_context

sys.stdout.reconfigure(line_buffering=True)
mode, run_dir, colocctl = sys.argv[1:4]
os.makedirs(run_dir, exist_ok=True)
os.environ.update(COLOC_RUN_DIR=run_dir)


def ctl(*args):
    r = subprocess.run([colocctl, *args], capture_output=True, text=True, timeout=30)
    for line in (r.stdout + r.stderr).splitlines():
        if "ROLE" not in line and "best-effort idle" not in line:
            print("ctl:", line)



if mode == "missing":
    try:
        Discard()
    except ColocError as e:
        print("missing:", errno.errorcode[e.errno], e)
    sys.exit()

make_context()
print("loaded:", "preloaded" if hasattr(ctypes.CDLL(None), "coloc_unit_begin") else "named")
d = Discard()
if mode == "latency":
    for call in (lambda: d.begin(1), d.pending, lambda: d.on_request(print)):
        try:
            call()
        except ColocError as e:
            print("latency:", errno.errorcode[e.errno], e)
    sys.exit()

pid = str(os.getpid())
got = []
d.on_request(got.append)
with d.unit(1):
    print("pending:", d.pending())
    ctl("discard", pid, "4096")
    print("requested:", d.requested.wait(5), got)
    print("pending:", d.pending())
    print("ack:", d.ack(100), "again:", d.ack(100), "event:", d.requested.is_set())
    with d.phase("optimizer"):
        ctl("discard", pid, "8192")
        print("in optimizer: requested:", d.requested.wait(0.2), "pending:", d.pending(),
              "phase:", d.current_phase)
        ctl("status")
    print("after optimizer: phase:", d.current_phase, "requested:", d.requested.wait(5), got)
    print("pending:", d.pending())
    print("ack:", d.ack(0))
for call in (lambda: d.set_phase("optimizer"), d.end, lambda: d.set_phase("bogus")):
    try:
        call()
    except (ColocError, ValueError) as e:
        print("outside a unit:", type(e).__name__, e)
d.off_request()
with d.unit(2):
    ctl("discard", pid)
    print("without callback: requested:", d.requested.wait(0.2), "pending:", d.pending(),
          "ack:", d.ack(0), got)
ctl("status")
