"""Calls benchmarks/suite/run's window_from_steps on step lines given as
T:N pairs and prints the rate over the window [W0, W1] ("none" when it has
none).  usage: bewindow.py RUN W0 W1 T:N..."""
import importlib.machinery
import importlib.util
import sys

loader = importlib.machinery.SourceFileLoader("suite_run", sys.argv[1])
spec = importlib.util.spec_from_loader("suite_run", loader)
run = importlib.util.module_from_spec(spec)
loader.exec_module(run)
w0, w1 = float(sys.argv[2]), float(sys.argv[3])
samples = [(float(t), int(n)) for t, n in (a.split(":") for a in sys.argv[4:])]
rate = run.window_from_steps(samples, w0, w1)
print("none" if rate is None else f"{rate:.4f}")
