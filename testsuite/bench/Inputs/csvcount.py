"""Reads a latency CSV with report.py's reader and says what it holds.
usage: csvcount.py BENCHDIR CSV"""
import sys

sys.path.insert(0, sys.argv[1])
from report import read_latency_csv  # noqa: E402

rows = read_latency_csv(sys.argv[2])
served = [r for r in rows if r[4] is not None]
first_unfinished = next((n for n, r in enumerate(rows) if r[4] is None), len(rows))
print(f"requests {len(rows)}: served {len(served)}, unfinished {len(rows) - len(served)}")
print("served ones first:", all(r[4] is not None for r in rows[:first_unfinished]) and
      all(r[4] is None for r in rows[first_unfinished:]))
print("in trace order:", [r[0] for r in rows] == list(range(len(rows))))
