"""Runs a latency tenant and stops it as the suite does at its cap.
usage: stop_after.py SECONDS GRACE CMD...
Waits for the tenant's ready line on standard error, then SECONDS more, then
sends SIGTERM and waits at most GRACE seconds for it to exit (SIGKILL after).
The tenant's output passes through; the last line says what happened, and
the exit status is the tenant's (1 if it had to be killed or ended first)."""
import signal
import subprocess
import sys
import threading
import time

wait_s, grace_s, cmd = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
for line in p.stderr:
    sys.stderr.write(line)
    if " ready" in line:
        break
threading.Thread(target=lambda: sys.stderr.write(p.stderr.read()), daemon=True).start()
time.sleep(wait_s)
if p.poll() is not None:
    print(f"stop_after: it exited before SIGTERM (status {p.returncode})", flush=True)
    sys.exit(1)
p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(grace_s)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    print(f"stop_after: still running {grace_s:g} s after SIGTERM: killed", flush=True)
    sys.exit(1)
print(f"stop_after: exit status {rc} within {grace_s:g} s of SIGTERM", flush=True)
sys.exit(rc)
