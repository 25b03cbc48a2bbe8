"""Calls benchmarks/suite/run's colocc_summary on a statistics file and an
empty colocctl view, and prints the coverage it records and its source.
usage: colsummary.py RUN STATS.json"""
import importlib.machinery
import importlib.util
import sys
import types

loader = importlib.machinery.SourceFileLoader("suite_run", sys.argv[1])
spec = importlib.util.spec_from_loader("suite_run", loader)
run = importlib.util.module_from_spec(spec)
loader.exec_module(run)
col = run.colocc_summary(sys.argv[2], types.SimpleNamespace(last="", count=0, text=lambda: ""),
                         lambda p: p)
print(f"coverage={col['coverage']} source={col['coverage_source']}")
