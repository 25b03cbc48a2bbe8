"""Calls benchmarks/suite/run's Suite.note_mps for a cell of MODE whose
tenants' statistics files are in DIR (logs/CELL.lat.stats.json and
logs/CELL.be.stats.json, either may be missing), and prints what it puts in
the record: "mps", "colocc_mps" and the notes.
usage: notemps.py RUN DIR MODE"""
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

loader = importlib.machinery.SourceFileLoader("suite_run", sys.argv[1])
spec = importlib.util.spec_from_loader("suite_run", loader)
run = importlib.util.module_from_spec(spec)
loader.exec_module(run)
out_dir, mode = sys.argv[2], sys.argv[3]
suite = types.SimpleNamespace(path=lambda *parts: os.path.join(out_dir, *parts))
cell = types.SimpleNamespace(name="CELL", spec=run.MODES[mode])
rec = {"mps": run.MODES[mode]["mps"], "notes": []}
run.Suite.note_mps(suite, rec, cell)
print(f"mps={json.dumps(rec['mps'])} colocc_mps={json.dumps(rec['colocc_mps'], sort_keys=True)}")
for note in rec["notes"]:
    print(f"note: {note}")
