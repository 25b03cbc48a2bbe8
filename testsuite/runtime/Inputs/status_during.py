#!/usr/bin/env python3
"""Runs a command and, DELAY seconds into it, colocctl status.

usage: status_during.py DELAY STATUS_OUT COLOCCTL RUN_DIR -- COMMAND...

STATUS_OUT gets colocctl's output; the command's own output goes to this
script's stdout; the exit status is the command's (or colocctl's, when the
command succeeded and colocctl did not).
"""
import subprocess
import sys
import time

delay, out, colocctl, run_dir, sep = sys.argv[1:6]
if sep != "--" or len(sys.argv) < 7:
    sys.exit(__doc__)
cmd = subprocess.Popen(sys.argv[6:])
time.sleep(float(delay))
with open(out, "w") as f:
    ctl = subprocess.run([colocctl, "--run-dir", run_dir, "status"], stdout=f).returncode
rc = cmd.wait(timeout=120)
sys.exit(rc or ctl)
