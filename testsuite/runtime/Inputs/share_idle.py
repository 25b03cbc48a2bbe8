#!/usr/bin/env python3
"""Under COLOC_SHARE, a kernel whose original the profiler measured within
the bound and faster than its persistent form (profile.test's SHARE run,
whose profile is in CACHE) runs persistent while a latency tenant is busy
and original while none is.  Prints, for a best-effort run of two launches
beside a busy latency tenant and for one after it, how many launches ran
in each form, from the fake driver's log.

usage: share_idle.py DIR CACHE APP PTX COLOCCTL
The environment (LD_PRELOAD, the fake driver) comes from the caller.
The latency tenant's kernel runs until the best-effort run beside it is done
(COLOC_FAKE_KERNEL_HOLD): however long that run takes to start on a loaded
machine, its launches come while the latency tenant is busy.
"""
import os
import re
import subprocess
import sys
import time

run_dir, cache, app, ptx, colocctl = sys.argv[1:6]
env = dict(os.environ, COLOC_RUN_DIR=os.path.join(run_dir, "run"), COLOC_CACHE_DIR=cache)
be_env = dict(env, COLOC_ROLE="best-effort", COLOC_SHARE="0.5", COLOC_FAKE_BLOCK_US="1000",
              COLOC_FAKE_VARIANT_US="300", COLOC_TURNAROUND_US="3000")


def forms(tag):
    log = os.path.join(run_dir, tag + ".log")
    subprocess.run([app, "--via=getproc", "--grid=100", "--repeat=2", ptx],
                   env=dict(be_env, COLOC_FAKE_LOG=log), stdout=subprocess.DEVNULL,
                   check=True, timeout=60)
    text = open(log).read()
    print(f"{tag}: persistent {len(re.findall(r'^cuLaunchKernel fn=__coloc_ptb_scale ', text, re.M))}"
          f", original {len(re.findall(r'^cuLaunchKernel fn=scale ', text, re.M))}")


hold = os.path.join(run_dir, "kernel-hold")
open(hold, "w").close()
latency = subprocess.Popen([app, ptx], stdout=subprocess.DEVNULL,
                           env=dict(env, COLOC_ROLE="latency", COLOC_FAKE_KERNEL_HOLD=hold))
deadline = time.time() + 30
# Alone, its monitor may leave it unwatched (COLOC_MONITOR=auto): busy all the same.
while time.time() < deadline and not re.search(r"\blatency\s+(busy|unwatched)\b", subprocess.run(
        [colocctl, "status"], env=env, capture_output=True, text=True).stdout):
    time.sleep(0.01)
forms("busy")
os.remove(hold)
latency.wait()
forms("idle")
