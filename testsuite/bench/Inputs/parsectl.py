"""Calls benchmarks/suite/run's parse_colocctl on a colocctl status text read
from standard input and prints what it found, one key=value a line, sorted.
usage: parsectl.py RUN < TEXT"""
import importlib.machinery
import importlib.util
import sys

loader = importlib.machinery.SourceFileLoader("suite_run", sys.argv[1])
spec = importlib.util.spec_from_loader("suite_run", loader)
run = importlib.util.module_from_spec(spec)
loader.exec_module(run)
for key, value in sorted(run.parse_colocctl(sys.stdin.read()).items()):
    if key != "table":
        print(f"{key}={value}")
