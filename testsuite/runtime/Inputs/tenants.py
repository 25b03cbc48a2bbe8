#!/usr/bin/env python3
"""Two tenants on one (fake) GPU, for coord.test.

usage: tenants.py MODE DIR APP PTX COLOCCTL
  gate  a latency tenant keeps its GPU busy (its kernel runs until the
        harness ends it, COLOC_FAKE_KERNEL_HOLD); a best-effort tenant that
        launches once it is busy must wait for it (1 s here; at least 300 ms)
  free  the same best-effort launch with no latency tenant: no wait (< 150 ms)
  kill  the latency tenant would stay busy 20 s but is killed after 300 ms;
        the best-effort tenant must go on soon after (< 2 s)
  other-gpu  as gate, on two GPUs (COLOC_FAKE_DEVICES=2): the latency tenant
        is busy on device 0 (until the best-effort launch returned), the
        best-effort tenant launches on device 1: no wait (< 150 ms)
  fill  as gate, but the latency tenant (COLOC_POLICY=fill) runs an NCCL
        kernel: it does not count as busy, no wait (< 150 ms)
  hold  the latency tenant's kernel takes no time, but COLOC_HOLD_US=3000000
        keeps it busy after its launch: the best-effort tenant waits (>= 300 ms)
  hold-drain  as gate, with COLOC_HOLD_US=2000000: the hold counts from the
        kernel's end (the drain), so the best-effort tenant waits >= 2.5 s
        in all (1 s of kernel, then the hold)
  (In gate, hold-drain, other-gpu, kill and hold the latency tenant is alone until the
  best-effort tenant starts: colocctl shows it unwatched, COLOC_MONITOR=auto.)
  alone  a latency tenant alone launches 2000 times (each launch 20 us in the
        fake driver, COLOC_FAKE_LAUNCH_US) and waits after its first launch
        and before synchronizing: colocctl shows it unwatched at both (it
        waits until it does), and prints how many times its monitor drained
        the context (cuCtxSynchronize in the fake's log, DIR/fake.log)
  alone-always  as alone with COLOC_MONITOR=always: colocctl shows it idle
        at both waits (it waits until it does: the monitor drained)
  park  a latency tenant alone launches once and waits (unwatched, its
        kernel long done); a best-effort tenant then launches: it must go on
        once the monitor has seen it and found the latency tenant idle, which
        colocctl then shows (within 30 s: the monitor runs at idle priority);
        the latency tenant's next launch, alone again, leaves it unwatched
  kernel  COLOC_BUSY=kernel: the latency tenant's kernel runs until its
        monitor polled it running, and the best-effort tenant's launch waited
        1 s more; the process lives on until the best-effort tenant is done;
        the best-effort tenant waits for the kernel (>= 200 ms) but not for the
        process (done within 30 s)
  preempt  the best-effort tenant's persistent kernel would run 20 s
        (COLOC_FAKE_PTB_STOP_AFTER=3, COLOC_FAKE_RESIDENT_US); a latency tenant
        busy for 300 ms once it is on the GPU must get it stopped, and the end
        of its busy time must get it resumed by a helper: the best-effort
        tenant's synchronization, after colocctl showed that, returns at once
        (< 10 s in all)
  preempt-dead  as preempt, but the latency tenant is killed while busy: the
        watcher reaps it and resumes the kernel (< 10 s in all)
  preempt-alone  as preempt, but no helper can run (COLOC_FAKE_NO_HELPERS=1,
        as when the helper stream shares a hardware queue with the stopped
        kernel's successors) and the kernel takes 1.5 s: its worker 0 must go
        on by itself once the stop is cleared (< 10 s in all; parked, the
        synchronization would give up on it after 20 s)
  preempt-nohost  as preempt, without mapped host memory for the stop's host
        copy (COLOC_FAKE_NO_HOST_ALLOC=1): the stop word alone still works
  preempt-shared  as preempt, but every stream shares one hardware queue with
        the kernel (COLOC_FAKE_SHARED_QUEUE=1; no helper can run), which takes
        1.5 s: the stop's read back misses its deadline; a second busy period of
        the latency tenant does not stop the kernel again, and the tenant's
        next launch (after synchronizing) takes another form than persistent
        (< 10 s in all)
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
        16 workers that left, as a helper (< 10 s in all)
  preempt-stream  as preempt, under time-slicing (COLOC_FAKE_MPS=0) with
        COLOC_PARK=stream: the
        launch goes with park 0 followed by waits on its stream for the stop's
        gate and relaunches (COLOC_PARK_LINKS=1 and 24 as it is not measured
        yet; the last with park 1); stopped, its workers leave, and the
        helper or the next relaunch finishes it once the stop is cleared
  preempt-stream-restart  as preempt-stream, with COLOC_RESTART=1
  preempt-host  as preempt-stream, with COLOC_PARK=host (and COLOC_FRESH=0, the
        looping form throughout): the launch goes with
        park 0 and nothing follows it on its stream; stopped, its workers
        leave and the kernel ends with blocks left, and the launching thread,
        which waits for it, relaunches it once the stop is cleared
  preempt-host-restart  as preempt-host, with COLOC_RESTART=1 and COLOC_FRESH=0
  preempt-host-fresh  as preempt-host-restart, with COLOC_FRESH=1: the held
        launch runs the kernel's one-block-a-worker variant, and after the
        stop the looping form drains the ring (park 2) before the next one
  preempt-host-side-v1  as preempt-host-side, the second thread's set on the
        default stream made by cuStreamWriteValue32 (the ABI before CUDA 11.7)
  preempt-host-slowcopy  as preempt-host, with every copy on a stream landing
        300 ms late (COLOC_FAKE_COPY_US): the stop's read back does not
        land before the watcher's 200 ms deadline, but the stopped kernel
        has ended, which ends the stop (COLOC_STOP_BY_END, or STOP_BY_END
        from the harness's environment)
  preempt-host-edge  as preempt-host, with the latency tenant under
        time-slicing too and both tenants writing one fake driver log; the
        stopped kernel leaves 20 ms after it sees the stop
        (COLOC_FAKE_LEAVE_US), and the latency tenant waits at its busy edge
        for up to 100 ms (COLOC_EDGE_WAIT_US, or EDGE_WAIT from the harness's
        environment): its launch reaches the driver only once the kernel has
        left; the launch then takes 30 ms to get into the fake driver
        (COLOC_FAKE_LAUNCH_US, or LAUNCH_US from the harness's environment),
        and the best-effort tenant must not resume meanwhile
  preempt-host-edge-fail  as preempt-host-edge, but the latency tenant's
        launch fails in the driver after its edge wait (COLOC_FAKE_LAUNCH_FAIL)
        and the latency tenant lives on 5 s: the best-effort tenant must
        resume within 2 s, while it lives (its wait at the edge is given back
        after a failed call too)
  edge-dead-be  under time-slicing, a latency tenant launches once (and joins),
        a best-effort tenant launches a persistent kernel and is killed; the
        latency tenant's next busy edge waits for the dead tenant's watcher
        until COLOC_EDGE_WAIT_US runs out, reaps it, and its next edges do
        not wait (colocctl: one wait timed out, the dead tenant gone)
  edge-idle-be  under time-slicing, a latency tenant launches once (and joins);
        a best-effort tenant's persistent launch is held to its end, then (AFTER=spin,
        the default; AFTER= for none) it launches a kernel that runs original; its
        watcher takes 50 ms to write a stop word; the latency tenant's next launch
        is a busy edge: prints how many edges waited for the best-effort tenant
  preempt-host-side  as preempt-host, and a second thread of the best-effort
        tenant puts work on the held kernel's stream once it is stopped
        (APP --side): a set on a non-blocking stream of its own, which goes at
        once, then a set and an event record on the default stream and two
        synchronizations, which wait for the held kernel's end
        (both write the best-effort tenant's statistics to RUN_DIR/be-stats.json)
  kernels  three best-effort tenants, each launching one kernel of PTX and
        waiting before it synchronizes: scale three times (a persistent form),
        spin (refused by the passes) and an NCCL kernel (always original);
        prints colocctl's lines on their kernels, sorted
  mps-mixed  an MPS daemon's control socket in DIR/mps (CUDA_MPS_PIPE_DIRECTORY),
        the fake NVML's GPU in compute mode DEFAULT: a latency tenant that
        leaves it (COLOC_MPS's default) and a best-effort tenant that stays
        (COLOC_MPS=stay), both waiting before they synchronize; prints
        colocctl's MPS lines once it shows both, the process ids taken out

The environment (LD_PRELOAD, the fake driver) comes from the caller.
Prints colocctl's view during and after, and the verdict on the wait.
Nothing here waits a fixed time for another process to get somewhere: on a
loaded machine (ctest -j on two cores) a process, or the latency tenant's
monitor at idle priority, may get no CPU for seconds.  The tenants wait on
standard input where the harness must look first (APP --wait), and the
harness polls colocctl, or the fake driver's log, for what it needs.
"""
import os
import queue
import re
import subprocess
import sys
import threading
import time

sys.stdout.reconfigure(line_buffering=True)  # in order with the child's lines
mode, run_dir, app, ptx, colocctl = sys.argv[1:6]
env = dict(os.environ, COLOC_RUN_DIR=run_dir, COLOC_CACHE_DIR=os.path.join(run_dir, "cache"))
os.makedirs(run_dir, mode=0o700, exist_ok=True)  # for the harness's files too
if mode == "other-gpu":
    env["COLOC_FAKE_DEVICES"] = "2"


# How long the harness waits for what it needs: generous, since on a loaded
# machine (ctest -j, a 2-core CI runner) a process may get no CPU for seconds.
# Each wait ends as soon as what it waits for is there.
WAIT_S = 30


def status_until(cond=None, timeout=WAIT_S):
    """colocctl status; with COND, again until COND(out) holds (at most TIMEOUT s)."""
    deadline = time.monotonic() + timeout
    while True:
        out = subprocess.run([colocctl, "status"], env=env, capture_output=True, text=True).stdout
        if cond is None or cond(out) or time.monotonic() > deadline:
            return out
        time.sleep(0.01)


def show(tag, out):
    for line in out.splitlines():
        print(f"{tag}: {line}")
    return out


def status(tag, cond=None):
    return show(tag, status_until(cond))


def latency_busy(out):
    return re.search(r"\blatency\s+busy\b", out)


def latency_unwatched(out):
    """Busy, and left so by its monitor: no best-effort tenant on its GPU (COLOC_MONITOR=auto)."""
    return re.search(r"\blatency\s+unwatched\b", out)


class Tenant:
    """An app run with --wait: its lines are read as they come (a thread)."""

    def __init__(self, args, tenant_env):
        self.p = subprocess.Popen(args, env=tenant_env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.out = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, prefix, timeout=WAIT_S):
        """Reads lines up to one that starts with PREFIX; False at the end or after TIMEOUT s."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return False
            if line is None:
                self.lines.put(None)
                return False
            if not line.startswith("app: waiting "):  # the harness's, not the test's
                self.out.append(line)
            if line.startswith(prefix):
                return True

    def step(self):
        """Lets a program that waits (--wait) go on to its next wait."""
        self.p.stdin.write("\n")
        self.p.stdin.flush()

    def go(self):
        """Lets a program that waits (--wait) go on."""
        if not self.p.stdin.closed:
            self.p.stdin.close()

    def finish(self, timeout=60):
        """Lets it go on to its end; its lines."""
        self.go()
        self.p.wait(timeout=timeout)
        while self.until("app: ", timeout):  # the rest of its lines
            pass
        return "".join(self.out)


def started(tenant_args, tenant_env):
    """A latency tenant started ahead: it waits before its launch until go()."""
    t = Tenant([app, "--wait=launch"] + tenant_args, tenant_env)
    if not t.until("app: waiting before the launches"):
        sys.exit(f"latency tenant did not start: {''.join(t.out)}")
    return t


def kernel_launched(log, be, timeout=WAIT_S):
    """Until the best-effort tenant's persistent kernel is on the (fake) GPU: its launch in LOG."""
    deadline = time.monotonic() + timeout
    launch = re.compile(r"^cuLaunchKernel fn=__coloc_(ptb|fresh)_.* (resident|parked)=\d+", re.M)
    while time.monotonic() < deadline and be.p.poll() is None:
        if os.path.exists(log):
            with open(log) as f:
                if launch.search(f.read()):
                    return True
        time.sleep(0.01)
    return False


def best_effort(timeout=60):
    extra = ["--device=1"] if mode == "other-gpu" else []
    out = subprocess.run([app, "--timed"] + extra + [ptx], env=dict(env, COLOC_ROLE="best-effort"),
                         capture_output=True, text=True, timeout=timeout).stdout
    print(out, end="")
    return int(re.search(r"took (\d+) ms", out).group(1))


def lone_latency(repeat, **extra_env):
    """A latency tenant without MPS that launched once and waits before its
    next launches (REPEAT in all): alone, it stays busy, unwatched; a
    best-effort tenant's persistent launch waits until the monitor has seen
    it and found the tenant idle, which it stays until its next launch."""
    lat_env = dict(env, COLOC_ROLE="latency", COLOC_FAKE_MPS="0", COLOC_FAKE_KERNEL_US="1000",
                   **extra_env)
    lat = Tenant([app, f"--repeat={repeat}", "--sync-each", "--wait=between", "--wait=sync", ptx],
                 lat_env)
    if not lat.until("app: waiting between the launches"):
        sys.exit(f"latency tenant did not launch: {''.join(lat.out)}")
    status_until(latency_unwatched)
    return lat


if mode == "edge-dead-be":
    lat = lone_latency(3)
    be_env = dict(env, COLOC_ROLE="best-effort", COLOC_FAKE_MPS="0", COLOC_FAKE_RESIDENT_US="20000000",
                  COLOC_FAKE_PTB_STOP_AFTER="3",
                  COLOC_FAKE_LOG=os.path.join(run_dir, "be-fake.log"))
    be = Tenant([app, "--grid=16,1,1", "--wait=sync", ptx], be_env)
    if not kernel_launched(be_env["COLOC_FAKE_LOG"], be):
        sys.exit(f"best-effort kernel not launched: {''.join(be.out)}")
    be.p.kill()
    be.p.wait()
    print("best-effort tenant killed")
    lat.step()
    if not lat.until("app: waiting before synchronizing"):
        sys.exit(f"latency tenant did not finish its launches: {''.join(lat.out)}")
    out = status_until(lambda o: "timed out" in o)
    print(out, end="")
    lat.finish()
    sys.exit(lat.p.returncode)

if mode == "edge-idle-be":
    # A latency tenant's busy edge waits for a best-effort tenant's watcher
    # only while that tenant has a persistent launch out (coord.h, ptb_out).
    # The best-effort tenant's persistent launch is held until done (1 ms),
    # then, with AFTER=spin (the default), it launches a kernel the passes
    # refuse, which runs original and looks at its records first
    # (coloc_ptb_poll).  Its watcher takes 50 ms to write a stop word
    # (COLOC_FAKE_WRITE_VALUE_US): an edge that waited for it shows in
    # colocctl's count of waits.
    lat = lone_latency(2, COLOC_EDGE_WAIT_US="100000")
    be_env = dict(env, COLOC_ROLE="best-effort", COLOC_FAKE_MPS="0", COLOC_FAKE_RESIDENT_US="1000",
                  COLOC_FAKE_WRITE_VALUE_US="50000",
                  COLOC_FAKE_LOG=os.path.join(run_dir, "be-fake.log"))
    after = os.environ.get("AFTER", "spin")
    be = Tenant([app, "--grid=16,1,1", "--sync-each"] + ([f"--after={after}"] if after else []) +
                ["--wait=sync", ptx], be_env)
    if not be.until("app: waiting before synchronizing"):
        sys.exit(f"best-effort tenant did not launch: {''.join(be.out)}")
    with open(be_env["COLOC_FAKE_LOG"]) as f:
        print("best-effort persistent launch:",
              "yes" if re.search(r"^cuLaunchKernel fn=__coloc_(ptb|fresh)_scale ", f.read(), re.M)
              else "no")
    lat.step()
    if not lat.until("app: waiting before synchronizing"):
        sys.exit(f"latency tenant did not finish its launches: {''.join(lat.out)}")
    out = status_until()
    m = re.search(r"busy periods \d+, waits for best-effort tenants timed out (\d+) of (\d+)", out)
    # colocctl shows the busy periods also where no edge waited.
    print("latency tenant's busy periods shown:", "yes" if m else "no")
    print("latency tenant's edge waits:", m.group(2) if m else 0,
          "timed out:", m.group(1) if m else 0)
    lat.finish()
    be.finish()
    sys.exit(lat.p.returncode or be.p.returncode)

if mode in ("alone", "alone-always"):
    log = os.path.join(run_dir, "fake.log")
    lat_env = dict(env, COLOC_ROLE="latency", COLOC_FAKE_LAUNCH_US="20", COLOC_FAKE_LOG=log)
    state = latency_unwatched
    if mode == "alone-always":
        lat_env["COLOC_MONITOR"] = "always"
        state = lambda o: re.search(r"\blatency\s+idle\b", o)
    lat = Tenant([app, "--via=getproc", "--repeat=2000", "--wait=between", "--wait=sync", ptx],
                 lat_env)
    if not lat.until("app: waiting between the launches"):
        sys.exit(f"latency tenant did not launch: {''.join(lat.out)}")
    status("during", state)
    lat.step()
    if not lat.until("app: waiting before synchronizing"):
        sys.exit(f"latency tenant did not finish its launches: {''.join(lat.out)}")
    status("launched", state)
    print(lat.finish(), end="")
    with open(log) as f:
        print("monitor drains:", len(re.findall(r"^cuCtxSynchronize", f.read(), re.M)))
    sys.exit(lat.p.returncode)

if mode == "park":
    lat = Tenant([app, "--repeat=2", "--wait=between", "--wait=sync", ptx],
                 dict(env, COLOC_ROLE="latency", COLOC_FAKE_KERNEL_US="1000"))
    if not lat.until("app: waiting between the launches"):
        sys.exit(f"latency tenant did not launch: {''.join(lat.out)}")
    status("alone", latency_unwatched)
    try:
        took = best_effort(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        took = None
    print("best-effort went on:", "yes" if took is not None else f"NO (not after {WAIT_S} s)")
    # The best-effort tenant has left: the latency tenant stays idle until its next launch.
    status("watched", lambda o: re.search(r"\blatency\s+idle\b", o))
    lat.step()
    if not lat.until("app: waiting before synchronizing"):
        sys.exit(f"latency tenant did not launch again: {''.join(lat.out)}")
    status("again", latency_unwatched)
    lat.finish()
    sys.exit(lat.p.returncode or (took is None))

if mode == "mps-mixed":
    import socket
    pipe = os.path.join(run_dir, "mps")
    os.makedirs(pipe, exist_ok=True)
    if not os.path.exists(os.path.join(pipe, "control")):
        socket.socket(socket.AF_UNIX).bind(os.path.join(pipe, "control"))
    mps_env = dict(env, CUDA_MPS_PIPE_DIRECTORY=pipe, COLOC_FAKE_COMPUTE_MODE="0")
    lat = Tenant([app, "--wait=sync", ptx], dict(mps_env, COLOC_ROLE="latency"))
    be = Tenant([app, "--wait=sync", ptx], dict(mps_env, COLOC_ROLE="best-effort", COLOC_MPS="stay"))
    for t in (lat, be):
        if not t.until("app: waiting before synchronizing"):
            sys.exit(f"tenant did not launch: {''.join(t.out)}")
    out = status_until(lambda o: len(re.findall(r"^\s+\d+\s+MPS: ", o, re.M)) == 2)
    for line in out.splitlines():
        if "MPS" in line:
            print(re.sub(r"^\s*\d+\s+", "", line).replace(run_dir, "DIR"))
    for t in (lat, be):
        t.go()
        t.p.wait()
    sys.exit(max(t.p.returncode for t in (lat, be)))

if mode == "kernels":
    be_env = dict(env, COLOC_ROLE="best-effort")
    bes = [Tenant([app, f"--kernel={k}", "--wait=sync"] + extra + [ptx], be_env)
           for k, extra in (("scale", ["--repeat=3"]), ("spin", []),
                            ("ncclDevKernel_AllReduce_Sum_f32", []))]
    for be in bes:
        if not be.until("app: waiting before synchronizing"):
            sys.exit(f"best-effort tenant did not launch: {''.join(be.out)}")
    out = status_until()
    for line in sorted(re.sub(r"^\s*\d+\s+", "", l) for l in out.splitlines()
                       if "kernels launched" in l):
        print(line)
    for be in bes:
        be.go()
        be.p.wait()
    sys.exit(max(be.p.returncode for be in bes))

if mode.startswith("preempt"):
    be_env = dict(env, COLOC_ROLE="best-effort", COLOC_FAKE_PTB_STOP_AFTER="3",
                  COLOC_FAKE_RESIDENT_US="20000000")
    if mode == "preempt-alone":
        be_env.update(COLOC_FAKE_NO_HELPERS="1", COLOC_FAKE_RESIDENT_US="1500000")
    if mode == "preempt-nohost":
        be_env["COLOC_FAKE_NO_HOST_ALLOC"] = "1"
    be_args = ["--grid=16,1,1"]
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
        be_env.update(COLOC_FAKE_MPS="0", COLOC_PARK="stream", COLOC_PARK_LINKS="1")
    if mode in ("preempt-host", "preempt-host-restart", "preempt-host-side", "preempt-host-edge",
                "preempt-host-edge-fail", "preempt-host-slowcopy", "preempt-host-side-v1", "preempt-host-fresh"):
        # Time-slicing: a stopped kernel is held by its launching thread.
        # Its relaunch is, like the launch, a kernel on the application's
        # stream: in the fake both stay COLOC_FAKE_RESIDENT_US unless stopped.
        be_env.update(COLOC_FAKE_MPS="0", COLOC_PARK="host", COLOC_FAKE_RESIDENT_US="800000")
        be_env["COLOC_STATS_FILE"] = os.path.join(run_dir, "be-stats.json")
    # The held launch is the fresh variant (COLOC_FRESH, the default).
    if mode in ("preempt-host-side", "preempt-host-side-v1"):
        be_args = be_args + ["--side=fn=__coloc_fresh_scale left"]
    if mode == "preempt-host-side-v1":
        be_args = be_args + ["--side-op=write-value"]
    if mode in ("preempt-host-edge", "preempt-host-edge-fail"):
        be_env["COLOC_FAKE_LEAVE_US"] = "20000"
    if mode == "preempt-host-slowcopy":
        be_env.update(COLOC_FAKE_COPY_US="300000", COLOC_LOG="debug",
                      COLOC_LOG_FILE=os.path.join(run_dir, "be.log"))
        if "STOP_BY_END" in os.environ:
            be_env["COLOC_STOP_BY_END"] = os.environ["STOP_BY_END"]
    if mode in ("preempt-restart", "preempt-stream-restart", "preempt-host-restart",
                "preempt-host-fresh"):
        be_env.update(COLOC_RESTART="1", COLOC_LOG="debug",
                      COLOC_LOG_FILE=os.path.join(run_dir, "be.log"))
    # COLOC_FRESH is the default; preempt-host and preempt-host-restart run the looping form.
    if mode == "preempt-host-fresh":
        be_env["COLOC_FRESH"] = "1"
    if mode in ("preempt-host", "preempt-host-restart"):
        be_env["COLOC_FRESH"] = "0"
    # The best-effort tenant's kernel must be on the GPU when the latency
    # tenant turns busy, and the best-effort tenant must still be there when
    # colocctl shows what its watcher did: it waits before synchronizing
    # (--wait=sync) until the harness has looked.  The latency tenants start
    # meanwhile and wait before their launch (--wait=launch), so that their
    # start-up, long on a loaded machine, is not inside the kernel's time.
    be_env.setdefault("COLOC_FAKE_LOG", os.path.join(run_dir, "be-fake.log"))
    start = time.time()
    be = Tenant([app] + be_args + ["--wait=sync", ptx], be_env)
    lat_env = dict(env, COLOC_ROLE="latency", COLOC_FAKE_KERNEL_US="300000")
    lat_env.pop("COLOC_FAKE_LOG", None)
    if mode in ("preempt-host-edge", "preempt-host-edge-fail"):
        # One log for both (one write(2) per line, O_APPEND): its order is the calls'.
        lat_env.update(COLOC_FAKE_MPS="0", COLOC_FAKE_LOG=be_env["COLOC_FAKE_LOG"],
                       COLOC_EDGE_WAIT_US=os.environ.get("EDGE_WAIT", "100000"),
                       COLOC_FAKE_LAUNCH_US=os.environ.get("LAUNCH_US", "30000"))
    if mode == "preempt-host-edge-fail":
        lat_env["COLOC_FAKE_LAUNCH_FAIL"] = "1"
    if mode == "preempt-dead":
        lat_env["COLOC_FAKE_KERNEL_US"] = "20000000"
        latencies = [started(["--sleep-ms=30000", ptx], lat_env)]
    elif mode == "preempt-host-edge-fail":
        latencies = [started(["--sleep-ms=5000", ptx], lat_env)]
    else:
        latencies = [started([ptx], lat_env) for _ in range(2 if mode.startswith("preempt-shared")
                                                            else 1)]
    if not kernel_launched(be_env["COLOC_FAKE_LOG"], be):
        print("best-effort kernel not launched:", be.finish(), end="")
        sys.exit(1)
    latency = latencies[0]
    latency.go()
    if mode == "preempt-share":
        status_until(latency_busy)
        second_env = dict(env, COLOC_ROLE="best-effort", COLOC_SHARE="0.5")
        second_env.pop("COLOC_FAKE_LOG", None)
        out = subprocess.run([app, "--timed", "--grid=16,1,1", ptx], env=second_env,
                             capture_output=True, text=True, timeout=60).stdout
        waited = int(re.search(r"took (\d+) ms", out).group(1))
        print("second best-effort tenant waited:", "no" if waited < 150 else f"YES ({waited} ms)")
        latency.finish()
    elif mode == "preempt-host-edge-fail":
        # The stopped kernel left; its relaunch must come while the latency
        # tenant still lives (it sleeps 5 s after its failed launch).
        relaunch = re.compile(r"^cuLaunchKernel fn=__coloc_fresh_scale .*resident=2", re.M)
        deadline = time.monotonic() + 2
        resumed = False
        while time.monotonic() < deadline and not resumed:
            with open(be_env["COLOC_FAKE_LOG"]) as f:
                resumed = bool(relaunch.search(f.read()))
            time.sleep(0.01)
        print("best-effort resumed while the failed latency tenant lives:",
              "yes" if resumed and latency.p.poll() is None else "NO")
        latency.finish()
        if latency.p.returncode == 0:
            sys.exit("latency tenant's launch did not fail")
    elif mode == "preempt-dead":
        status_until(latency_busy)  # killed while busy
        latency.p.kill()
        latency.p.wait()
        print("latency tenant killed")
    else:
        latency.finish()
        if latency.p.returncode:
            sys.exit(f"latency tenant failed: {latency.p.returncode}")
        if mode.startswith("preempt-shared"):
            time.sleep(0.1)
            latencies[1].finish()

    def stops_seen(out):
        """The watcher is done with the latency tenant's busy time(s): resumed, or helped."""
        m = re.search(r"preemptions (\d+), helpers (\d+)(?:, narrowings (\d+))?", out)
        if not m:
            return False
        stops, helpers, narrowed = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        if mode == "preempt-alone" or mode.startswith(("preempt-shared", "preempt-host")):
            # No helper runs (with COLOC_PARK=host the launching thread
            # relaunches): each stop counted, its turnaround too if measured.
            last = re.search(r"\(last (\d+)\)", out)
            return stops >= 1 and (not last or int(last.group(1)) == stops)
        return stops + narrowed >= 1 and helpers == stops + narrowed

    seen = status("stopped-and-resumed", stops_seen)
    if mode in ("preempt-restart", "preempt-stuck", "preempt-stream-restart",
                "preempt-host-restart", "preempt-host-slowcopy", "preempt-host-fresh"):
        # A stop ends when every block taken is done or given up (in the redo
        # ring); counted as still running, it would last until the watcher's
        # 200 ms deadline, and its log says so.
        with open(os.path.join(run_dir, "be.log")) as f:
            stops = re.findall(r"preemption: stopped(?: after \d+ us( \(still running at the poll "
                               r"limit\))?;|(; turnaround not measured))", f.read())
        late = [m for m in stops if any(m)]
        print("stop ended before the deadline:",
              "yes" if stops and not late else f"NO ({len(late)} of {len(stops)} stops)")
    out = be.finish()
    took = time.time() - start
    print(out, end="")
    # Not stopped and resumed, the kernel would run 20 s (COLOC_FAKE_RESIDENT_US), or
    # stay parked until the synchronization gave up on it (20 s); the harness's
    # waits take a second or two at most on a loaded machine.
    print("best-effort resumed:", "yes" if took < 10 else f"NO ({took:.1f} s)")
    sys.exit(0 if took < 10 and be.p.returncode == 0 else 1)

latency = None
# gate, other-gpu, kernel: the latency tenant's kernel runs until the harness
# removes this file (COLOC_FAKE_KERNEL_HOLD), so that the best-effort tenant,
# however long it takes to start, launches while it runs.
hold_file = os.path.join(run_dir, "kernel-hold")
if mode in ("gate", "other-gpu", "kill", "fill", "hold", "hold-drain", "kernel"):
    busy_us = {"kill": 20000000, "hold": 0, "kernel": 400000}.get(mode, 600000)
    args = {"gate": [app, ptx], "hold-drain": [app, "--wait=sync", ptx], "other-gpu": [app, ptx],
            "kill": [app, "--sleep-ms=30000", ptx],
            "fill": [app, "--kernel=ncclDevKernel_AllReduce_Sum_f32", "--wait=sync", ptx],
            "hold": [app, "--wait=sync", ptx], "kernel": [app, "--wait=sync", ptx]}[mode]
    lat_env = dict(env, COLOC_ROLE="latency", COLOC_FAKE_KERNEL_US=str(busy_us))
    if mode in ("gate", "hold-drain", "other-gpu", "kernel"):
        open(hold_file, "w").close()
        lat_env["COLOC_FAKE_KERNEL_HOLD"] = hold_file
    if mode == "kernel":
        # Its monitor must poll the kernel while it is alone (below), which
        # under COLOC_MONITOR=auto it leaves unwatched.
        lat_env.update(COLOC_BUSY="kernel", COLOC_MONITOR="always")
    if mode == "fill":
        lat_env["COLOC_POLICY"] = "fill"
    if mode == "hold":
        # 3 s: the best-effort tenant, started once the latency tenant is
        # busy, launches within it however loaded the machine.
        lat_env["COLOC_HOLD_US"] = "3000000"
    if mode == "hold-drain":
        lat_env["COLOC_HOLD_US"] = "2000000"
    if mode in ("fill", "kernel", "hold", "hold-drain"):
        # It waits before synchronizing (--wait=sync) until the best-effort
        # tenant is done: its process lives on for as long as that takes.
        latency = Tenant(args, lat_env)
    else:
        latency = subprocess.Popen(args, stdout=subprocess.DEVNULL, env=lat_env)
    if mode == "fill":
        # Its kernel never makes it busy: until it is launched.
        latency.until("app: waiting before synchronizing")
        status("during")
    else:
        # Until its launch made it busy: on a loaded machine it can take long to
        # start.  The status shown is the one that saw it busy, unwatched
        # when it is alone (COLOC_MONITOR=auto: all modes here but kernel).
        status("during", latency_busy if mode == "kernel" else latency_unwatched)
    if mode == "kernel":
        # Its monitor, at idle priority, polls the stream: until it saw the
        # kernel still running (the fake's log).
        log = env.get("COLOC_FAKE_LOG")
        deadline = time.monotonic() + WAIT_S
        while log and time.monotonic() < deadline and not (os.path.exists(log) and re.search(
                r"^cuStreamQuery stream=0 error=CUDA_ERROR_NOT_READY", open(log).read(), re.M)):
            time.sleep(0.01)
if mode == "kill":
    killer = time.time() + 0.3
    be = subprocess.Popen([sys.executable, __file__, "be-only", run_dir, app, ptx, colocctl], env=env)
    time.sleep(max(0, killer - time.time()))
    # Said before the kill: after it, the best-effort tenant may reap the dead
    # tenant, launch and print before this process runs again.
    print("killing the latency tenant", flush=True)
    latency.kill()
    latency.wait()
    be.wait()
    status("after")
    sys.exit(be.returncode)
if mode == "be-only":
    took = best_effort()
    print("best-effort went on:", "yes" if took < 2000 else f"NO ({took} ms)")
    sys.exit(0 if took < 2000 else 1)

def held_best_effort(hold_s):
    """The best-effort tenant, started and initialized, launches; the latency
    tenant's kernel ends HOLD_S later (its hold file removed), or once the
    launch returned when HOLD_S is None (at most WAIT_S).  Its launch's time."""
    extra = ["--device=1"] if mode == "other-gpu" else []
    be = Tenant([app, "--wait=launch", "--timed"] + extra + [ptx],
                dict(env, COLOC_ROLE="best-effort"))
    be.until("app: waiting before the launches")
    be.go()
    if hold_s is None:
        be.until("app: launch 0:")
    else:
        time.sleep(hold_s)
    os.remove(hold_file)
    try:
        out = be.finish(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        be.p.kill()
        raise
    print(out, end="")
    return int(re.search(r"took (\d+) ms", out).group(1))


if mode == "kernel":
    # Its monitor runs at idle priority: on a loaded machine the latency tenant
    # may count as busy for seconds after its kernel; but not for as long as
    # its process lives, which is until the best-effort tenant is done.
    try:
        took = held_best_effort(1.0)
    except subprocess.TimeoutExpired:
        took = None
    print("waited for the kernel:", "yes" if took is not None and took >= 200 else f"NO ({took} ms)")
    print("waited for the process:",
          "no" if took is not None else f"YES (still waiting after {WAIT_S} s)")
    latency.finish()
    status("after")
    sys.exit(0)
if mode in ("gate", "other-gpu"):
    # The best-effort tenant launches while the latency tenant's kernel runs:
    # on the same GPU it must wait for it (1 s), on another not.
    took = held_best_effort(1.0 if mode == "gate" else None)
elif mode == "hold-drain":
    took = held_best_effort(1.0)
    # The kernel ends 1 s after the launch, more than 1 s after the latency
    # tenant's launch; counted from that launch the 2 s hold would be over
    # about 1 s after the kernel's end, counted from the drain 2 s after it.
    print("waited the hold past the kernel's end:", "yes" if took >= 2500 else f"NO ({took} ms)")
    latency.finish()
    status("after")
    sys.exit(0)
else:
    took = best_effort()
if mode in ("gate", "hold"):
    print("waited:", "yes" if took >= 300 else f"NO ({took} ms)")
    if mode == "hold":
        latency.finish()
    else:
        latency.wait()
else:
    print("waited:", "no" if took < 150 else f"YES ({took} ms)")
    if mode == "fill":
        latency.finish()
    elif latency:
        latency.wait()
status("after")
