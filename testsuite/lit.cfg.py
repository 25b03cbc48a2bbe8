# lit configuration for colocc's tests.
import os
import shutil
import subprocess

import lit.formats

config.name = "colocc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx", ".cu", ".test"]
config.excludes = ["Inputs", "tools", "fuzz", "unit", "gpu", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.colocc_obj_root, "testsuite")

tools = os.path.join(config.test_source_root, "tools")
py = config.python_executable

config.environment["PATH"] = os.pathsep.join(
    [config.colocc_obj_root, os.path.dirname(config.ptxas), config.environment.get("PATH", "")])
for var in ("CUDA_HOME", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%colocctl", os.path.join(config.colocc_obj_root, "colocctl")))
config.substitutions.append(("%colocc", os.path.join(config.colocc_obj_root, "colocc")))
config.substitutions.append(("%ptxas-verify", f"{py} {tools}/ptxas-verify.py --ptxas {config.ptxas}"))
config.substitutions.append(("%cubin-cmp", f"{py} {tools}/cubin-cmp.py --ptxas={config.ptxas}"))
config.substitutions.append(("%corpus-check",
                             f"{py} {tools}/corpus-check.py --colocc {config.colocc_obj_root}/colocc "
                             f"--nvcc {config.nvcc} --ptxas {config.ptxas} "
                             f"--cubin-cmp {tools}/cubin-cmp.py "
                             f"--keep-root {config.colocc_obj_root}/testsuite/corpus-ptx"))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%nvcc", config.nvcc))
# After %ptxas-verify, which it would otherwise cut short.
config.substitutions.append(("%ptxas", config.ptxas))
config.substitutions.append(("%python", py))
# The benchmark suite's scripts (benchmarks/suite), tested by testsuite/bench.
config.substitutions.append(("%benchdir", os.path.join(os.path.dirname(config.test_source_root),
                                                       "benchmarks", "suite")))
rt = os.path.join(config.colocc_obj_root, "testsuite", "runtime")
config.substitutions.append(("%libcoloc", os.path.join(config.colocc_obj_root, "libcoloc.so")))
config.substitutions.append(("%fakedir", os.path.join(rt, "fake")))
config.substitutions.append(("%rt_app", os.path.join(rt, "coloc_rt_app")))
config.substitutions.append(("%launch_ab", os.path.join(rt, "coloc_launch_ab")))
config.substitutions.append(("%mem_app", os.path.join(rt, "coloc_mem_app")))
config.substitutions.append(("%discard_app", os.path.join(rt, "coloc_discard_app")))
config.substitutions.append(("%graph_app", os.path.join(rt, "coloc_graph_app")))
# A program under libcoloc on the fake driver, with nothing inherited from the caller's
# COLOC_* settings; tests add COLOC_FAKE_LOG, COLOC_ROLE and the rest.
# Coordinator segments go to the build's own directory (tests may name another), so that
# a segment left in /dev/shm by another build or version cannot change what a test sees:
# one directory per test, %t/coord (made by libcoloc; emptied with %t where a test starts
# with rm -rf %t, as they do: a segment of an older layout would only make tenants refuse
# it), since lit runs tests in parallel and a latency tenant of one test, busy in a
# segment shared with another's best-effort tenant, gates and stops that tenant's kernels
# (control.test's and forms.test's persistent launches ran nothing under lit -j8).
config.substitutions.append(("%coloc-run", "env -u COLOC_ROLE -u COLOC_LOG -u COLOC_FORM "
                             "-u COLOC_DISABLE -u COLOC_LOG_TIME -u COLOC_LOG_FILE -u CUDA_DEVICE_MAX_CONNECTIONS -u COLOC_AOT_CACHE -u COLOC_CACHE_DIR "
                             "-u COLOC_PROFILE -u COLOC_TURNAROUND_US -u COLOC_POLICY "
                             "-u COLOC_HOLD_US -u COLOC_BUSY -u COLOC_BE_DEPTH -u COLOC_GATED_DEPTH -u COLOC_SETTLE_LOOK_US -u COLOC_MONITOR -u COLOC_STATS_FILE "
                             "-u COLOC_MEM_BUDGET -u COLOC_MEM_RESERVE -u COLOC_POOL_PAGE "
                             "-u COLOC_MEM_WATERMARK -u COLOC_MEM_IDLE_MS -u COLOC_MEM_WAIT_MS "
                             "-u COLOC_SHARE -u COLOC_SHARE_HOLD_US -u COLOC_RESTART -u COLOC_PARK -u COLOC_PARK_LINKS -u COLOC_FAKE_DIRTY -u COLOC_FAKE_MPS "
                             "-u COLOC_STOP_COPY -u COLOC_STOP_BY_END -u COLOC_STOP_READ -u COLOC_EDGE_WAIT_US -u COLOC_RESUME "
                             # No MPS daemon but where a test puts one (mps.test).
                             "-u COLOC_MPS -u COLOC_MPS_LEFT -u CUDA_MPS_PIPE_DIRECTORY "
                             # The pools change which calls reach the driver: tests that
                             # read the fake's log of other calls keep the driver's
                             # cuMemAlloc; the memory tests turn them on.
                             "COLOC_MEM_POOL=0 "
                             # Persistent forms that finish stopped blocks, as the
                             # tests were written for; COLOC_RESTART=1 is the
                             # runtime's default, which tests of it ask for with
                             # `env -u COLOC_RESTART`, and with it COLOC_RESUME's
                             # default, 1 (tests of restart alone set
                             # COLOC_RESUME=0).
                             "COLOC_RESTART=0 "
                             # The fake's contexts are MPS clients, the setting colocc's
                             # persistent forms are for; tests of time-slicing set
                             # COLOC_FAKE_MPS=0.
                             "COLOC_FAKE_MPS=1 "
                             "COLOC_RUN_DIR=%t/coord "
                             f"LD_LIBRARY_PATH={os.path.join(rt, 'fake')} "
                             f"LD_PRELOAD={os.path.join(config.colocc_obj_root, 'libcoloc.so')}"))
config.substitutions.append(("%next_app", os.path.join(rt, "coloc_next_app")))
config.substitutions.append(("%next_a", os.path.join(rt, "libcoloc_next_a.so")))
config.substitutions.append(("%next_b", os.path.join(rt, "libcoloc_next_b.so")))


def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def torch_python():
    """A Python that has PyTorch (CPU is enough), for the discard trainer's test."""
    for python in dict.fromkeys([py, shutil.which("python3"), "/usr/bin/python3"]):
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import importlib.util, sys; "
                 "sys.exit(importlib.util.find_spec('torch') is None)"],
                capture_output=True, timeout=30).returncode == 0:
            return python
    return None


def asan_runtime():
    """The C compiler's AddressSanitizer runtime, for asan-first.test (None without one)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    try:
        path = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True,
                              text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return path if os.path.isabs(path) and os.path.exists(path) else None


if has_gpu():
    config.available_features.add("cuda-gpu")
asan_so = None if config.sanitized else asan_runtime()
if asan_so:
    config.available_features.add("asan-runtime")
    config.substitutions.append(("%asan-runtime", asan_so))
torch_py = torch_python()
if torch_py:
    config.available_features.add("torch")
    config.substitutions.append(("%torch-python", torch_py))
if config.sanitized:
    config.available_features.add("sanitized")
