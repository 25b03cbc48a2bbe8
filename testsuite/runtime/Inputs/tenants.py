#!/usr/bin/env python3
"""Two tenants on one (fake) GPU, for coord.test.

usage: tenants.py MODE DIR APP PTX COLOCCTL
  gate  a latency tenant keeps its GPU busy 600 ms; a best-effort tenant
        that launches once it is busy must wait for it (at least 300 ms)
  free  the same best-effort launch with no latency tenant: no wait (< 150 ms)
  kill  the latency tenant would stay busy 20 s but is killed after 300 ms;
        the best-effort tenant must go on soon after (< 2 s)
  other-gpu  as gate, on two GPUs (COLOC_FAKE_DEVICES=2): the latency tenant
        is busy on device 0, the best-effort tenant launches on device 1: no
        wait (< 150 ms)
  fill  as gate, but the latency tenant (COLOC_POLICY=fill) runs an NCCL
        kernel: it does not count as busy, no wait (< 150 ms)
  hold  the latency tenant's kernel takes no time, but COLOC_HOLD_US=600000
        keeps it busy after its launch: the best-effort tenant waits (>= 300 ms)
  kernel  COLOC_BUSY=kernel: the latency tenant's kernel takes 400 ms and the
        process lives 1.5 s more; the best-effort tenant, started once the
        latency tenant is busy, waits for the kernel (>= 200 ms) but not for
        the process (< 1 s)
  preempt  the best-effort tenant's persistent kernel would run 20 s
        (COLOC_FAKE_PTB_STOP_AFTER=3, COLOC_FAKE_RESIDENT_US); a latency tenant
        busy for 300 ms from 150 ms on must get it stopped, and the end of its
        busy time must get it resumed by a helper: the best-effort tenant's
        synchronization, 1 s after its launch, returns at once (< 3 s in all)
  preempt-dead  as preempt, but the latency tenant is killed while busy: the
        watcher reaps it and resumes the kernel (< 3 s in all)
  preempt-alone  as preempt, but no helper can run (COLOC_FAKE_NO_HELPERS=1,
        as when the helper stream shares a hardware queue with the stopped
        kernel's successors) and the kernel takes 1.5 s: its worker 0 must go
        on by itself once the stop is cleared (< 3 s in all)
  preempt-nohost  as preempt, without mapped host memory for the stop's host
        copy (COLOC_FAKE_NO_HOST_ALLOC=1): the stop word alone still works
  preempt-shared  as preempt, but every stream shares one hardware queue with
        the kernel (COLOC_FAKE_SHARED_QUEUE=1; no helper can run), which takes
        1.5 s: the stop's read back misses its deadline; a second busy period of
        the latency tenant does not stop the kernel again, and the tenant's
        next launch (after synchronizing) takes another form than persistent
        (< 3 s in all)
  preempt-shared-decided  as preempt-shared, for a kernel whose profile (in
        RUN_DIR/cache, written by an earlier run) decides the persistent form:
        grid 21120 with the timing of that run (COLOC_FAKE_BLOCK_US=1000,
        COLOC_FAKE_VARIANT_US=300, COLOC_TURNAROUND_US=1000); the choice made
        in this process must be made again once persistent kernels are off
  preempt-stuck  as preempt, but the first stop stream shares a hardware queue
        with the kernel (COLOC_FAKE_STUCK_STREAM=1): the stop goes through the
        second one too, and its read back moves there, so the stop ends long
        before the watcher's 200 ms deadline
  preempt-share  as preempt, with COLOC_SHARE=0.5: the busy edge narrows
        the kernel (the stop word 1 + 512) instead of stopping it, a second
        best-effort tenant launching while the latency tenant is busy does not
        wait (< 150 ms), and the idle edge gives the kernel back the 8 of its
        16 workers that left, as a helper (< 3 s in all)
  preempt-stream  as preempt, under time-slicing (COLOC_FAKE_MPS=0) with
        COLOC_PARK=auto: the
        launch goes with park 0 followed by waits on its stream for the stop's
        gate and relaunches (COLOC_PARK_LINKS=1 and 24 as it is not measured
        yet; the last with park 1); stopped, its workers leave, and the
        helper or the next relaunch finishes it once the stop is cleared
  preempt-stream-restart  as preempt-stream, with COLOC_RESTART=1
  preempt-host  as preempt-stream, with COLOC_PARK=host: the launch goes with
        park 0 and nothing follows it on its stream; stopped, its workers
        leave and the kernel ends with blocks left, and the launching thread,
        which waits for it, relaunches it once the stop is cleared
  preempt-host-restart  as preempt-host, with COLOC_RESTART=1
        (both write the best-effort tenant's statistics to RUN_DIR/be-stats.json)

The environment (LD_PRELOAD, the fake driver) comes from the caller.
Prints colocctl's view during and after, and the verdict on the wait.
"""
import os
import re
import subprocess
import sys
import time

sys.stdout.reconfigure(line_buffering=True)  # in order with the child's lines
mode, run_dir, app, ptx, colocctl = sys.argv[1:6]
env = dict(os.environ, COLOC_RUN_DIR=run_dir, COLOC_CACHE_DIR=os.path.join(run_dir, "cache"))
if mode == "other-gpu":
    env["COLOC_FAKE_DEVICES"] = "2"


def status(tag):
    out = subprocess.run([colocctl, "status"], env=env, capture_output=True, text=True).stdout
    for line in out.splitlines():
        print(f"{tag}: {line}")
    return out


def best_effort():
    extra = ["--device=1"] if mode == "other-gpu" else []
    out = subprocess.run([app, "--timed"] + extra + [ptx], env=dict(env, COLOC_ROLE="best-effort"),
                         capture_output=True, text=True, timeout=60).stdout
    print(out, end="")
    return int(re.search(r"took (\d+) ms", out).group(1))


if mode.startswith("preempt"):
    be_env = dict(env, COLOC_ROLE="best-effort", COLOC_FAKE_PTB_STOP_AFTER="3",
                  COLOC_FAKE_RESIDENT_US="20000000")
    if mode == "preempt-alone":
        be_env.update(COLOC_FAKE_NO_HELPERS="1", COLOC_FAKE_RESIDENT_US="1500000")
    if mode == "preempt-nohost":
        be_env["COLOC_FAKE_NO_HOST_ALLOC"] = "1"
    be_args = ["--grid=16,1,1", "--sleep-ms=1000"]
    if mode.startswith("preempt-shared"):
        be_env.update(COLOC_FAKE_SHARED_QUEUE="1", COLOC_FAKE_RESIDENT_US="1500000",
                      COLOC_FAKE_NO_HELPERS="1", COLOC_LOG="warn")
        be_args = ["--grid=16,1,1", "--repeat=2", "--sync-each"]
    if mode == "preempt-shared-decided":
        be_env.update(COLOC_FAKE_BLOCK_US="1000", COLOC_FAKE_VARIANT_US="300",
                      COLOC_TURNAROUND_US="1000", COLOC_BE_DEPTH="0")
        be_args = ["--via=getproc", "--grid=21120,1,1", "--repeat=2", "--sync-each"]
    if mode == "preempt-share":
        be_env["COLOC_SHARE"] = "0.5"
    if mode == "preempt-stuck":
        be_env.update(COLOC_FAKE_STUCK_STREAM="1", COLOC_LOG="debug",
                      COLOC_LOG_FILE=os.path.join(run_dir, "be.log"))
    if mode in ("preempt-stream", "preempt-stream-restart"):
        # Time-slicing: a stopped kernel waits on its stream, not on the GPU;
        # 1 + 24 relaunches (it is not measured yet).
        be_env.update(COLOC_FAKE_MPS="0", COLOC_PARK="auto", COLOC_PARK_LINKS="1")
    if mode in ("preempt-host", "preempt-host-restart"):
        # Time-slicing: a stopped kernel is held by its launching thread.
        # Its relaunch is, like the launch, a kernel on the application's
        # stream: in the fake both stay COLOC_FAKE_RESIDENT_US unless stopped.
        be_env.update(COLOC_FAKE_MPS="0", COLOC_PARK="host", COLOC_FAKE_RESIDENT_US="800000")
        be_env["COLOC_STATS_FILE"] = os.path.join(run_dir, "be-stats.json")
    if mode in ("preempt-restart", "preempt-stream-restart", "preempt-host-restart"):
        be_env.update(COLOC_RESTART="1", COLOC_LOG="debug",
                      COLOC_LOG_FILE=os.path.join(run_dir, "be.log"))
    start = time.time()
    be = subprocess.Popen([app] + be_args + [ptx], env=be_env, stdout=subprocess.PIPE, text=True)
    time.sleep(0.15)
    lat_env = dict(env, COLOC_ROLE="latency", COLOC_FAKE_KERNEL_US="300000")
    lat_env.pop("COLOC_FAKE_LOG", None)
    if mode == "preempt-share":
        latency = subprocess.Popen([app, ptx], stdout=subprocess.DEVNULL, env=lat_env)
        deadline = time.time() + 10
        while time.time() < deadline and not re.search(r"\blatency\s+busy\b", subprocess.run(
                [colocctl, "status"], env=env, capture_output=True, text=True).stdout):
            time.sleep(0.01)
        second_env = dict(env, COLOC_ROLE="best-effort", COLOC_SHARE="0.5")
        second_env.pop("COLOC_FAKE_LOG", None)
        out = subprocess.run([app, "--timed", "--grid=16,1,1", ptx], env=second_env,
                             capture_output=True, text=True, timeout=60).stdout
        waited = int(re.search(r"took (\d+) ms", out).group(1))
        print("second best-effort tenant waited:", "no" if waited < 150 else f"YES ({waited} ms)")
        latency.wait()
    elif mode == "preempt-dead":
        lat_env["COLOC_FAKE_KERNEL_US"] = "20000000"
        latency = subprocess.Popen([app, "--sleep-ms=30000", ptx], stdout=subprocess.DEVNULL,
                                   env=lat_env)
        time.sleep(0.3)
        latency.kill()
        latency.wait()
        print("latency tenant killed")
    else:
        subprocess.run([app, ptx], stdout=subprocess.DEVNULL, env=lat_env, check=True)
        if mode.startswith("preempt-shared"):
            time.sleep(0.1)
            subprocess.run([app, ptx], stdout=subprocess.DEVNULL, env=lat_env, check=True)
    time.sleep(0.3)
    seen = status("stopped-and-resumed")
    if mode in ("preempt-restart", "preempt-stuck", "preempt-stream-restart",
                "preempt-host-restart"):
        # A stop ends when every block taken is done or given up (in the redo
        # ring); counted as still running, it would last until the watcher's
        # 200 ms deadline.
        p99 = re.search(r"turnaround p50 \d+ us, p99 (\d+) us", seen)
        print("stop ended before the deadline:",
              "yes" if p99 and int(p99.group(1)) < 150000 else f"NO ({p99 and p99.group(1)} us)")
    out = be.communicate(timeout=60)[0]
    took = time.time() - start
    print(out, end="")
    print("best-effort resumed:", "yes" if took < 3 else f"NO ({took:.1f} s)")
    sys.exit(0 if took < 3 and be.returncode == 0 else 1)

latency = None
if mode in ("gate", "other-gpu", "kill", "fill", "hold", "kernel"):
    busy_us = {"kill": 20000000, "hold": 0, "kernel": 400000}.get(mode, 600000)
    args = {"gate": [app, ptx], "other-gpu": [app, ptx], "kill": [app, "--sleep-ms=30000", ptx],
            "fill": [app, "--kernel=ncclDevKernel_AllReduce_Sum_f32", ptx],
            "hold": [app, "--sleep-ms=1500", ptx], "kernel": [app, "--sleep-ms=1500", ptx]}[mode]
    lat_env = dict(env, COLOC_ROLE="latency", COLOC_FAKE_KERNEL_US=str(busy_us))
    if mode == "kernel":
        lat_env["COLOC_BUSY"] = "kernel"
    if mode == "fill":
        lat_env["COLOC_POLICY"] = "fill"
    if mode == "hold":
        lat_env["COLOC_HOLD_US"] = "600000"
    latency = subprocess.Popen(args, stdout=subprocess.DEVNULL, env=lat_env)
    if mode == "fill":
        time.sleep(0.1)  # its kernel never makes it busy: nothing to wait for
    else:
        # Until its launch made it busy: on a loaded machine it can take long to start.
        deadline = time.time() + 10
        while time.time() < deadline and not re.search(r"\blatency\s+busy\b", subprocess.run(
                [colocctl, "status"], env=env, capture_output=True, text=True).stdout):
            time.sleep(0.01)
    status("during")
if mode == "kill":
    killer = time.time() + 0.3
    be = subprocess.Popen([sys.executable, __file__, "be-only", run_dir, app, ptx, colocctl], env=env)
    time.sleep(max(0, killer - time.time()))
    latency.kill()
    latency.wait()
    print("latency tenant killed")
    be.wait()
    status("after")
    sys.exit(be.returncode)
if mode == "be-only":
    took = best_effort()
    print("best-effort went on:", "yes" if took < 2000 else f"NO ({took} ms)")
    sys.exit(0 if took < 2000 else 1)

took = best_effort()
if mode in ("gate", "hold"):
    print("waited:", "yes" if took >= 300 else f"NO ({took} ms)")
    latency.wait()
elif mode == "kernel":
    print("waited for the kernel:", "yes" if took >= 200 else f"NO ({took} ms)")
    print("waited for the process:", "no" if took < 1000 else f"YES ({took} ms)")
    latency.wait()
else:
    print("waited:", "no" if took < 150 else f"YES ({took} ms)")
    if latency:
        latency.wait()
status("after")
