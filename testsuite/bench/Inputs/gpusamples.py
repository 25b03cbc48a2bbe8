"""Drives benchmarks/suite/run's GPU sampling without a GPU.
usage: gpusamples.py RUN summary CSV      prints gpu_summary's dict and gpu_note's note
       gpusamples.py RUN query SMI        prints what gpu_query chose (or why none)
       gpusamples.py RUN sample SMI OUT   runs GpuSampler for 1 s with the query of
                                          GPU_QUERY, then prints gpu_summary of OUT"""
import importlib.machinery
import importlib.util
import json
import os
import sys
import time

loader = importlib.machinery.SourceFileLoader("suite_run", sys.argv[1])
spec = importlib.util.spec_from_loader("suite_run", loader)
run = importlib.util.module_from_spec(spec)
loader.exec_module(run)
what = sys.argv[2]
if what == "summary":
    g = run.gpu_summary(sys.argv[3])
    print(json.dumps(g, sort_keys=True))
    print(f"note: {run.gpu_note(g)}")
elif what == "query":
    query, why = run.gpu_query(sys.argv[3], dict(os.environ))
    print(f"query: {query}")
    print(f"why: {why}")
else:
    s = run.GpuSampler(sys.argv[3], run.GPU_QUERY, sys.argv[4], dict(os.environ))
    s.start()
    time.sleep(1.0)
    t0 = time.monotonic()
    s.stop()
    print(f"stopped within 5 s: {time.monotonic() - t0 < 5}")
    print(json.dumps(run.gpu_summary(sys.argv[4]), sort_keys=True))
