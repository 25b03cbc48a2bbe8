"""Runs benchmarks/suite/run's Snapshots against a stub colocctl whose first
two answers show a latency and a best-effort tenant, and whose later ones
show only the best-effort tenant (the latency tenant left first), for about
3.5 s; prints the text the suite keeps and what colocc_summary reads from it.
usage: snapshots.py RUN TMPDIR"""
import importlib.machinery
import importlib.util
import os
import sys
import time

loader = importlib.machinery.SourceFileLoader("suite_run", sys.argv[1])
spec = importlib.util.spec_from_loader("suite_run", loader)
run = importlib.util.module_from_spec(spec)
loader.exec_module(run)

tmp = sys.argv[2]
os.makedirs(tmp, exist_ok=True)
header = ("  PID      ROLE        STATE  NAME              KERNELS  REFUSED  ORIGINAL    SLICED"
          "   PERSIST  FALLBACK   GRAPHS  GATED(ms)   PREEMPT%   MEM(MiB)   MEM-OOM")
lat = ("  659      latency     busy   python3                 0        0         0         0"
       "         0         0     N        0.0          -     1024.0         0")
be = ("  566      best-effort idle   gpt_train              12        0         0       347"
      "       425         0        0     8123.4       55.1     4096.0         0")
stub = os.path.join(tmp, "colocctl")
with open(stub, "w") as f:
    f.write(f"""#!/bin/sh
n=$(cat {tmp}/calls 2>/dev/null || echo 0); n=$((n + 1)); echo $n > {tmp}/calls
echo "GPU 0000:10:00.0 (/tmp/run): 2 tenants, 0 reaped"
echo "{header}"
if [ $n -le 2 ]; then
  echo "{lat}" | sed "s/ N / $((1000 * n)) /"
fi
echo "{be}"
echo "  566      preemptions $((10 * n)), helpers 0"
if [ $n -le 2 ]; then
  echo "  659      busy periods $((1000 * n)), waits for best-effort tenants timed out 0 of 0"
fi
""")
os.chmod(stub, 0o755)


class Tenant:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def alive(self):
        return time.monotonic() < self.end


snap = run.Snapshots(stub, tmp, dict(os.environ), Tenant(3.5))
snap.start()
snap.join(15)
print(f"snapshots={snap.count}")
print(snap.text(), end="")
col = run.colocc_summary(os.path.join(tmp, "none.json"), snap, lambda p: p)
print(f"busy_periods={col['busy_periods']} preemptions={col['preemptions']}")
