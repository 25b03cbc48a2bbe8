"""usage: threadpolicy.py NAME SECONDS -- COMMAND...

Starts COMMAND and waits, SECONDS at most, until it has a thread named NAME
whose scheduling policy is no longer SCHED_OTHER (a thread starts with its
creator's and may change it itself, after naming itself); then prints the
policy of each of its threads named NAME ("NAME: SCHED_IDLE"; "NAME: no such
thread" if none), from /proc/PID/task/*/stat, closes COMMAND's standard input
(a program run with --wait=sync goes on then) and exits with COMMAND's
status.  On a loaded machine the thread may come late: nothing here assumes
when."""
import os
import subprocess
import sys
import time

POLICIES = {0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH",
            5: "SCHED_IDLE", 6: "SCHED_DEADLINE"}

name, seconds, sep, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
if sep != "--" or not cmd:
    sys.exit(__doc__)
proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)


def policies():
    found = []
    taskdir = f"/proc/{proc.pid}/task"
    try:
        tids = sorted(os.listdir(taskdir))
    except OSError:
        return found
    for tid in tids:
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
    return found


deadline = time.monotonic() + seconds
while True:
    found = policies()
    if (found and "SCHED_OTHER" not in found) or time.monotonic() > deadline or \
            proc.poll() is not None:
        break
    time.sleep(0.01)
print(f"{name}: " + (", ".join(found) if found else "no such thread"), flush=True)
proc.stdin.close()
sys.exit(proc.wait())
