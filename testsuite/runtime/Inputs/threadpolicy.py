"""usage: threadpolicy.py NAME SECONDS -- COMMAND...

Starts COMMAND, waits SECONDS, then prints the scheduling policy of each of
its threads named NAME ("NAME: SCHED_IDLE"; "NAME: no such thread" if none),
from /proc/PID/task/*/stat, and exits with COMMAND's status."""
import os
import subprocess
import sys
import time

POLICIES = {0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH",
            5: "SCHED_IDLE", 6: "SCHED_DEADLINE"}

name, seconds, sep, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
if sep != "--" or not cmd:
    sys.exit(__doc__)
proc = subprocess.Popen(cmd)
time.sleep(seconds)
found = []
taskdir = f"/proc/{proc.pid}/task"
for tid in sorted(os.listdir(taskdir)):
    try:
        with open(f"{taskdir}/{tid}/comm") as f:
            comm = f.read().strip()
        with open(f"{taskdir}/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    if comm == name:
        # stat's field 41 is the policy; fields here start at field 3.
        found.append(POLICIES.get(int(fields[38]), fields[38]))
print(f"{name}: " + (", ".join(found) if found else "no such thread"), flush=True)
sys.exit(proc.wait())
