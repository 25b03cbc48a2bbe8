#!/usr/bin/env python3
"""Runs a command and, once it printed a line that begins with MARK, colocctl status.

usage: status_during.py MARK STATUS_OUT COLOCCTL RUN_DIR -- COMMAND...

The command (an app run with --wait=sync, which prints "app: waiting before
synchronizing" once its launches returned and then waits for its standard
input) is held there while colocctl looks: however long it took to get there
on a loaded machine.  Its standard input is closed after (60 s at most
without MARK).  STATUS_OUT gets colocctl's output; the command's own output
goes to this script's stdout, without the MARK line; the exit status is the
command's (or colocctl's, when the command succeeded and colocctl did not).
"""
import queue
import subprocess
import sys
import threading

mark, out, colocctl, run_dir, sep = sys.argv[1:6]
if sep != "--" or len(sys.argv) < 7:
    sys.exit(__doc__)
cmd = subprocess.Popen(sys.argv[6:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
lines = queue.Queue()


def read():
    for line in cmd.stdout:
        lines.put(line)
    lines.put(None)


threading.Thread(target=read, daemon=True).start()
ctl = None
while True:
    try:
        line = lines.get(timeout=60 if ctl is None else None)
    except queue.Empty:
        line = ""  # no MARK: looks anyway
    if ctl is None and (not line or line.startswith(mark)):
        with open(out, "w") as f:
            ctl = subprocess.run([colocctl, "--run-dir", run_dir, "status"], stdout=f).returncode
        cmd.stdin.close()
        if line:
            continue
    if line is None:
        break
    sys.stdout.write(line)
rc = cmd.wait(timeout=120)
sys.exit(rc or ctl)
