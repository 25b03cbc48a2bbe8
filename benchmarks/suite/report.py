#!/usr/bin/env python3
"""Summarizes a colocation suite's results directory: tail latency, SLO
attainment and throughput per run, against the tenants' runs alone.

usage: report.py [--no-plots] DIR

Input: DIR/runs/*.json, one record per run:

  latency_workload      name of the latency tenant's workload, or null
  best_effort_workload  name of the best-effort tenant's workload, or null
  mode                  how the two share the GPU: alone, timeslice, mps, mps-limit,
                        mps-prio, colocc-isolate, colocc-fill, colocc-gate,
                        colocc-gate-slice, colocc-gate-ptb, colocc-full, or another name
  load, trace           the latency tenant's load (share of time it would be busy
                        alone) and arrival trace (bursty, poisson); needed with a
                        latency workload
  latency_csv           the CSV the latency tenant wrote, relative to DIR, with the
                        header i,arrival_s,start_s,done_s,latency_ms; one row per request
                        of the trace.  A request the tenant did not serve (it was
                        stopped first, e.g. at the suite's cap) is unfinished: its
                        done_s and latency_ms are empty, and so is start_s unless it
                        had started (`7,0.512000,,,`)
  be                    {"throughput": units per second, "check": "ok", ...} or null
  colocc                {"coverage", "preemptions", "turnaround_p50_us",
                        "turnaround_p99_us"} or null
  be_timeseries         optional: [[t_s, units_per_s], ...], the best-effort tenant's
                        throughput over the run, t_s on the clock of the CSV's arrival_s
  check                 "ok", or "FAIL: why" when the run's outputs were wrong
  rep                   optional: the repetition, 1 to N (run --repeat N); default 1
  mps                   optional: true if the tenants ran as MPS clients, false if
                        not; when absent, true for the suite's MPS modes (MPS_MODES)

A run alone is mode "alone" with one workload.  A run whose latency_csv or be
is missing must have failed its check.

Output, in DIR: summary.json (a list of rows), summary.csv (the same
columns), summary.md (a table and the headline numbers) and, when matplotlib
imports, DIR/plots/*.png.  One row per run, keyed by (latency_workload,
best_effort_workload, mode, load, trace); two runs with the same key are an error.

Definitions:
  requests      rows of the latency CSV, unfinished ones included
  unfinished    requests the tenant did not serve; each counts as a latency of
                +inf: an SLO miss, and in the percentiles and the mean
  pNN_ms        percentile of the request latencies by linear interpolation
                between closest ranks: with the n latencies sorted, x[0..n-1],
                pNN = x[k] + (h - k)(x[k+1] - x[k]) where h = (n - 1) NN / 100 and
                k = floor(h) (Hyndman and Fan's type 7, NumPy's default); x[k]
                when h = k.  It is infinite when x[k], or x[k+1] with h > k, is an
                unfinished request: p99 is, once more than about 1% are unfinished
                (1 of 101 leaves it finite, 2 of 101 do not)
  mean_ms       mean latency, infinite with any unfinished request
  slo_ms        4 x p50 of the latency workload alone at the same load and trace
  slo_attainment  share of requests with latency <= slo_ms (unfinished ones miss)
  p99_overhead  p99_ms / alone_p99_ms - 1, alone_p99_ms from the same run alone
  lat_norm_throughput  served requests / (last done_s - first arrival_s), over
                the same for the run alone (about 1 for an open-loop tenant that
                keeps up)
  be_norm_throughput   be.throughput / that of the best-effort workload alone
                (a best-effort workload has one run alone, whatever the load)
  system_throughput    lat_norm + be_norm over the tenants present in the run
  service_mean_ms      mean service time, done_s - start_s, over the served requests:
                the latency tenant's time per request without queueing, which a
                30 s cell measures far more steadily than p99 (at load 0.5,
                queueing multiplies small changes of service time into large
                changes of p99)
  service_overhead     service_mean_ms / that of the same run alone - 1
  alone_busy_share     the share of its run alone the latency tenant spent serving:
                the sum of done_s - start_s over its served requests, over (last
                done_s - first arrival_s) (the tenants serve one request at a
                time); at load L it is about L
  be_idle_throughput   be_norm_throughput / (1 - alone_busy_share): the best-effort
                throughput against what the latency tenant's idle time alone could
                hold.  1: the best-effort tenant ran at its speed alone whenever
                the latency tenant alone would have been idle; above 1 it also
                got work done while the latency tenant served.  summary.md shows
                it in a table of its own, last
  mps_alone_p99_ms     for a colocated run under MPS: p99 of the same latency workload,
                load, trace and repetition alone under MPS (mode mps-solo), when
                the run has one
  p99_overhead_mps     p99_ms / mps_alone_p99_ms - 1: what the best-effort tenant
                and colocc cost the latency tenant beyond what MPS alone costs
                it.  summary.md shows it in a table of its own when any run has it
  rep           the repetition; every comparison with a run alone is with the
                run alone of the same repetition.  With more than one,
                summary.md adds a table of each cell's spread over its
                repetitions (median, min and max of p99_ms, p99_overhead,
                service_overhead and be_norm_throughput) and a table of
                each colocated cell's p99 over the requests of all its
                repetitions pooled, against the runs alone pooled the same
                way; the plots show repetition 1
  unbounded     the names of the columns that are infinite, space-separated
                (e.g. "p99_ms p999_ms mean_ms p99_overhead"), or null.  JSON has no
                infinity: summary.json writes those columns as null, so a null
                there means infinite where "unbounded" names it and unknown
                elsewhere; summary.csv and summary.md write "inf"
A baseline run that failed its check is no baseline: the fields that need it
are null, as when it is missing, and summary.md says which.  A run that failed
its check (or whose be.check is not "ok") keeps its row, marked, and stays out
of the headline: per mode, the means over the runs at load 0.5 that passed.
"""
import argparse
import csv
import io
import json
import math
import os
import re
import sys

MODES = ["alone", "mps-solo", "colocc-solo", "colocc-solo-ts", "timeslice", "mps", "mps-limit", "mps-prio", "colocc-isolate", "colocc-fill",
         "colocc-gate", "colocc-gate-slice", "colocc-gate-ptb", "colocc-full", "colocc-ts-full",
         "colocc-mps", "colocc-share", "colocc-share-50", "colocc-share-30", "colocc-share-ptb",
         "colocc-full-prio", "colocc-share-prio"]
SLO_FACTOR = 4.0
HEADLINE_LOAD = 0.5
CSV_HEADER = ["i", "arrival_s", "start_s", "done_s", "latency_ms"]
PERCENTILES = [("p50_ms", 50.0), ("p90_ms", 90.0), ("p99_ms", 99.0), ("p999_ms", 99.9)]

# The summary's columns, in order, and how summary.md's table shows them (None:
# not in the table).  summary.json and summary.csv have them all.
COLUMNS = [
    ("latency_workload", "s"), ("best_effort_workload", "s"), ("mode", "s"), ("load", "g"),
    ("trace", "s"), ("requests", "d"), ("unfinished", "d"),
    ("p50_ms", ".3f"), ("p90_ms", ".3f"), ("p99_ms", ".3f"), ("p999_ms", ".3f"),
    ("mean_ms", None), ("alone_p99_ms", None), ("p99_overhead", "+.1%"),
    ("slo_ms", ".3f"), ("slo_attainment", ".1%"),
    ("lat_norm_throughput", ".3f"), ("be_throughput", None), ("be_norm_throughput", ".3f"),
    ("system_throughput", ".3f"),
    ("coverage", ".2f"), ("preemptions", "d"), ("turnaround_p50_us", None),
    ("turnaround_p99_us", None), ("unbounded", None), ("check", "s"), ("run", None),
    ("service_mean_ms", None), ("service_overhead", None), ("rep", None),
    ("alone_busy_share", None), ("be_idle_throughput", None),
    ("mps_alone_p99_ms", None), ("p99_overhead_mps", None),
]
# The suite's modes whose tenants run as MPS clients, for records without "mps"
# (the suite writes it since the seventeenth session; before it colocc-full's
# tenants were MPS clients, since then they leave MPS and its records say so).
MPS_MODES = {"mps-solo", "colocc-solo", "mps", "mps-limit", "mps-prio", "colocc-isolate",
             "colocc-fill", "colocc-gate", "colocc-gate-slice", "colocc-gate-ptb", "colocc-full",
             "colocc-mps",
             "colocc-full-prio", "colocc-share", "colocc-share-50", "colocc-share-30",
             "colocc-share-ptb", "colocc-share-prio"}
COLOCC_FIELDS = ["coverage", "preemptions", "turnaround_p50_us", "turnaround_p99_us"]


class Malformed(Exception):
    """A record or latency CSV the report cannot read; the message names the file."""


def percentile(xs, p):
    """The P-th percentile (0..100) of the sorted list XS, as in the docstring;
    XS may end in infinities (unfinished requests)."""
    h = (len(xs) - 1) * p / 100.0
    k = math.floor(h)
    if k + 1 >= len(xs) or h == k:
        return xs[min(k, len(xs) - 1)]
    if math.isinf(xs[k + 1]):
        return math.inf
    return xs[k] + (h - k) * (xs[k + 1] - xs[k])


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def mode_rank(mode):
    return (MODES.index(mode), "") if mode in MODES else (len(MODES), mode)


class Run:
    """One record and what the report computes from it."""

    def __init__(self, path, rec):
        self.path = path
        self.name = os.path.join("runs", os.path.basename(path))
        self.rec = rec
        self.lat = rec["latency_workload"]
        self.be = rec["best_effort_workload"]
        self.rep = rec.get("rep") or 1
        self.mode = rec["mode"]
        self.mps = rec["mps"] if rec.get("mps") is not None else self.mode in MPS_MODES
        self.load = float(rec["load"]) if rec.get("load") is not None else None
        self.trace = rec.get("trace")
        self.check = rec["check"]
        be = rec.get("be")
        if self.check == "ok" and be and be.get("check", "ok") != "ok":
            self.check = f"FAIL: be: {be['check']}"
        self.ok = self.check == "ok"
        self.arrivals = self.latencies = self.sorted = self.service_mean = None
        self.busy_share = None
        self.unfinished = 0
        self.out = {}

    def key(self):
        return (self.lat, self.be, self.mode, self.load, self.trace, self.rep)

    def sort_key(self):
        return (self.lat or "", self.be or "", self.trace or "",
                -1.0 if self.load is None else self.load, mode_rank(self.mode), self.rep)


def check_record(path, rec):
    """Raises Malformed unless REC follows the format in the docstring."""
    def bad(why):
        raise Malformed(f"{path}: {why}")

    if not isinstance(rec, dict):
        bad("expected a JSON object")
    for key in ("latency_workload", "best_effort_workload", "mode", "check"):
        if key not in rec:
            bad(f"no '{key}'")
    for key in ("latency_workload", "best_effort_workload"):
        if rec[key] is not None and (not isinstance(rec[key], str) or not rec[key]):
            bad(f"'{key}' must be a workload name or null")
    lat, be = rec["latency_workload"], rec["best_effort_workload"]
    if lat is None and be is None:
        bad("'latency_workload' and 'best_effort_workload' are both null")
    if not isinstance(rec["mode"], str) or not rec["mode"]:
        bad("'mode' must be a non-empty string")
    if rec["mode"] == "alone" and lat is not None and be is not None:
        bad("a run alone has one workload, but both are set")
    if not isinstance(rec["check"], str) or not rec["check"]:
        bad("'check' must be \"ok\" or \"FAIL: why\"")
    ok = rec["check"] == "ok"
    if rec.get("load") is not None and not (is_number(rec["load"]) and rec["load"] >= 0):
        bad(f"'load' must be a number >= 0, got {json.dumps(rec['load'])}")
    if rec.get("trace") is not None and not isinstance(rec["trace"], str):
        bad("'trace' must be a string")
    if rec.get("mps") is not None and not isinstance(rec["mps"], bool):
        bad(f"'mps' must be true or false, got {json.dumps(rec['mps'])}")
    if rec.get("rep") is not None and not (isinstance(rec["rep"], int) and
                                           not isinstance(rec["rep"], bool) and rec["rep"] >= 1):
        bad(f"'rep' must be a whole number >= 1, got {json.dumps(rec['rep'])}")
    if lat is not None:
        if rec.get("load") is None or rec.get("trace") is None:
            bad("a run with a latency workload needs 'load' and 'trace'")
        csv_rel = rec.get("latency_csv")
        if csv_rel is None and ok:
            bad("no 'latency_csv', and the run passed its check")
        if csv_rel is not None and (not isinstance(csv_rel, str) or not csv_rel):
            bad("'latency_csv' must be a path relative to the results directory")
    elif rec.get("latency_csv") is not None:
        bad("'latency_csv' without a latency workload")
    be_rec = rec.get("be")
    if be is not None and be_rec is None and ok:
        bad("no 'be', and the run passed its check")
    if be_rec is not None:
        if not isinstance(be_rec, dict):
            bad("'be' must be an object or null")
        if not (is_number(be_rec.get("throughput")) and be_rec["throughput"] >= 0):
            bad("'be' needs 'throughput', a number >= 0 (units per second)")
        if "check" in be_rec and not isinstance(be_rec["check"], str):
            bad("'be.check' must be a string")
    col = rec.get("colocc")
    if col is not None:
        if not isinstance(col, dict):
            bad("'colocc' must be an object or null")
        for key in COLOCC_FIELDS:
            if col.get(key) is not None and not is_number(col[key]):
                bad(f"'colocc.{key}' must be a number or null")
    series = rec.get("be_timeseries")
    if series is not None:
        if not isinstance(series, list) or not all(
                isinstance(p, list) and len(p) == 2 and all(is_number(v) for v in p)
                for p in series):
            bad("'be_timeseries' must be a list of [t_s, units_per_s] pairs")


def read_latency_csv(path):
    """The requests of the latency CSV at PATH, in file order, as
    [i, arrival_s, start_s, done_s, latency_ms] with None for the empty fields
    of an unfinished request.  Raises OSError, or Malformed saying what is
    wrong without naming the file.  (run reads the CSVs through this too.)"""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or [c.strip() for c in rows[0]] != CSV_HEADER:
        raise Malformed(f"line 1: expected the header {','.join(CSV_HEADER)}")
    out = []
    for n, row in enumerate(rows[1:], 2):
        if not row:
            continue
        try:
            vals = [float(c) if c.strip() or i < 2 else None for i, c in enumerate(row)]
        except ValueError:
            vals = []
        unfinished = (len(vals) == len(CSV_HEADER) and vals[3] is None and vals[4] is None)
        if len(vals) != len(CSV_HEADER) or None in vals[:2 if unfinished else 5] or \
                not all(math.isfinite(v) for v in vals if v is not None):
            raise Malformed(f"line {n}: expected {len(CSV_HEADER)} numbers, or for an "
                            "unfinished request i,arrival_s,[start_s],,")
        if not unfinished and vals[4] < 0:
            raise Malformed(f"line {n}: negative latency")
        out.append(vals)
    if not out:
        raise Malformed("no requests")
    return out


def read_latencies(run, root):
    """Reads RUN's latency CSV: arrival times and latencies in file order,
    unfinished requests as infinite latencies."""
    rel = run.rec.get("latency_csv")
    if rel is None:
        return
    path = os.path.join(root, rel)
    try:
        rows = read_latency_csv(path)
    except OSError as e:
        raise Malformed(f"{run.path}: latency_csv {path}: {e.strerror}")
    except Malformed as e:
        raise Malformed(f"{run.path}: latency_csv {path}: {e}")
    served = [r for r in rows if r[4] is not None]
    run.service_mean = (sum(r[3] - r[2] for r in served) * 1000.0 / len(served)
                        if served else None)
    run.arrivals = [r[1] for r in rows]
    run.latencies = [math.inf if r[4] is None else r[4] for r in rows]
    run.sorted = sorted(run.latencies)
    run.unfinished = len(rows) - len(served)
    span = max(r[3] for r in served) - min(run.arrivals) if served else 0
    run.lat_throughput = len(served) / span if span > 0 else (0.0 if not served else None)
    run.busy_share = sum(r[3] - r[2] for r in served) / span if span > 0 else None


def load_runs(root):
    rundir = os.path.join(root, "runs")
    try:
        names = sorted(n for n in os.listdir(rundir) if n.endswith(".json"))
    except OSError as e:
        raise Malformed(f"{rundir}: {e.strerror}")
    if not names:
        raise Malformed(f"{rundir}: no run records (*.json)")
    runs, seen, be_alone = [], {}, {}
    for name in names:
        path = os.path.join(rundir, name)
        try:
            with open(path) as f:
                rec = json.load(f)
        except (OSError, ValueError) as e:
            raise Malformed(f"{path}: not a JSON record: {e}")
        check_record(path, rec)
        run = Run(path, rec)
        if run.key() in seen:
            raise Malformed(f"{path}: the same run as {seen[run.key()].path} "
                            f"({describe(run)}); keep one")
        seen[run.key()] = run
        if run.mode == "alone" and run.lat is None:
            # A best-effort workload's baseline serves every load and trace.
            if (run.be, run.rep) in be_alone:
                again = f" in repetition {run.rep}" if run.rep > 1 else ""
                raise Malformed(f"{path}: a second run of best-effort workload {run.be} "
                                f"alone{again}, after {be_alone[(run.be, run.rep)].path}; keep one")
            be_alone[(run.be, run.rep)] = run
        read_latencies(run, root)
        runs.append(run)
    return sorted(runs, key=Run.sort_key)


def describe(run):
    parts = [f"latency {run.lat}" if run.lat else None,
             f"best-effort {run.be}" if run.be else None, f"mode {run.mode}",
             f"load {run.load:g}" if run.load is not None else None,
             f"trace {run.trace}" if run.trace else None,
             f"repetition {run.rep}" if run.rep > 1 else None]
    return ", ".join(p for p in parts if p)


def ratio(a, b):
    return a / b if a is not None and b else None


def summarize(runs):
    """Fills each run's .out with the summary's columns; returns the notes on
    missing baselines."""
    lat_alone, be_alone, mps_alone = {}, {}, {}
    for r in runs:
        if r.mode == "mps-solo" and r.ok and r.sorted is not None and not r.unfinished:
            mps_alone[(r.lat, r.load, r.trace, r.rep)] = r
        if r.mode == "alone" and r.be is None:
            lat_alone[(r.lat, r.load, r.trace, r.rep)] = r
        elif r.mode == "alone" and r.lat is None:
            be_alone[(r.be, r.rep)] = r
    notes = []

    def baseline(table, key, what):
        base = table.get(key)
        if base is None:
            note = f"{what} alone: no run"
        elif not base.ok:
            note = f"{what} alone: its run ({base.name}) failed its check"
            base = None
        else:
            return base
        if note not in notes:
            notes.append(note)
        return None

    for r in runs:
        o = r.out
        o.update(latency_workload=r.lat, best_effort_workload=r.be, mode=r.mode, load=r.load,
                 trace=r.trace, check=r.check, run=r.name, rep=r.rep)
        again = f" in repetition {r.rep}" if r.rep > 1 else ""
        lat_norm = be_norm = busy = None
        if r.lat is not None:
            base = baseline(lat_alone, (r.lat, r.load, r.trace, r.rep),
                            f"latency workload {r.lat} at load {r.load:g}, trace {r.trace}{again},")
            if r.sorted is not None:
                xs = r.sorted
                o["requests"] = len(xs)
                o["unfinished"] = r.unfinished
                for name, p in PERCENTILES:
                    o[name] = percentile(xs, p)
                o["mean_ms"] = sum(xs) / len(xs)
                o["service_mean_ms"] = r.service_mean
            if base is not None and base.unfinished:
                note = (f"latency workload {r.lat} at load {r.load:g}, trace {r.trace}, alone: "
                        f"its run ({base.name}) left {base.unfinished} requests unfinished")
                if note not in notes:
                    notes.append(note)
                base = None
            if base is not None:
                o["alone_p99_ms"] = percentile(base.sorted, 99.0)
                o["slo_ms"] = SLO_FACTOR * percentile(base.sorted, 50.0)
                if r.sorted is not None:
                    o["p99_overhead"] = (o["p99_ms"] / o["alone_p99_ms"] - 1.0
                                         if o["alone_p99_ms"] else None)
                    o["slo_attainment"] = (sum(1 for x in r.sorted if x <= o["slo_ms"])
                                           / len(r.sorted))
                    lat_norm = ratio(r.lat_throughput, base.lat_throughput)
                    if r.service_mean is not None and base.service_mean:
                        o["service_overhead"] = r.service_mean / base.service_mean - 1.0
                busy = base.busy_share
                o["alone_busy_share"] = busy
            solo = mps_alone.get((r.lat, r.load, r.trace, r.rep))
            if r.mps and r.be is not None and solo is not None and r.sorted is not None:
                o["mps_alone_p99_ms"] = percentile(solo.sorted, 99.0)
                o["p99_overhead_mps"] = ratio(o["p99_ms"], o["mps_alone_p99_ms"])
                if o["p99_overhead_mps"] is not None:
                    o["p99_overhead_mps"] -= 1.0
        be_rec = r.rec.get("be")
        if r.be is not None:
            base = baseline(be_alone, (r.be, r.rep), f"best-effort workload {r.be}{again}")
            if be_rec is not None:
                o["be_throughput"] = be_rec["throughput"]
                if base is not None:
                    be_norm = ratio(be_rec["throughput"], base.rec["be"]["throughput"])
        o["lat_norm_throughput"] = lat_norm
        o["be_norm_throughput"] = be_norm
        if be_norm is not None and busy is not None and busy < 1.0:
            o["be_idle_throughput"] = be_norm / (1.0 - busy)
        parts = [(r.lat, lat_norm), (r.be, be_norm)]
        if all(v is not None for w, v in parts if w is not None):
            o["system_throughput"] = sum(v for w, v in parts if w is not None)
        for key in COLOCC_FIELDS:
            o[key] = (r.rec.get("colocc") or {}).get(key)
        o["unbounded"] = " ".join(name for name, _ in COLUMNS
                                  if isinstance(o.get(name), float) and math.isinf(o[name])) or None
    return notes


def rounded(v):
    return round(v, 6) if isinstance(v, float) else v


def row_values(run):
    return [rounded(run.out.get(name)) for name, _ in COLUMNS]


def json_value(v):
    """JSON has no infinity: null, which the row's "unbounded" explains."""
    return None if isinstance(v, float) and math.isinf(v) else v


def write_json(path, runs):
    names = [name for name, _ in COLUMNS]
    lines = [json.dumps(dict(zip(names, map(json_value, row_values(r))))) for r in runs]
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(lines) + "\n]\n")


def write_csv(path, runs):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow([name for name, _ in COLUMNS])
        for r in runs:
            w.writerow(["" if v is None else v for v in row_values(r)])


def cell(v, fmt):
    if v is None:
        return "n/a"
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return format(v, fmt).replace("|", "\\|")


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def headline(runs):
    """[(mode, runs, mean p99 overhead, mean SLO attainment, mean be_norm)] over
    the colocated runs at HEADLINE_LOAD that passed their checks."""
    modes = {}
    for r in runs:
        if r.mode != "alone" and r.ok and r.load is not None and abs(r.load - HEADLINE_LOAD) < 1e-9:
            modes.setdefault(r.mode, []).append(r)
    out = []
    for mode in sorted(modes, key=mode_rank):
        rs = modes[mode]
        out.append((mode, len(rs), mean(r.out.get("p99_overhead") for r in rs),
                    mean(r.out.get("slo_attainment") for r in rs),
                    mean(r.out.get("be_norm_throughput") for r in rs)))
    return out


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if not n else xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def spread(xs, fmt):
    """'median (min to max)' of the finite values of XS, or n/a."""
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    if not xs:
        return "n/a"
    return f"{format(median(xs), fmt)} ({format(min(xs), fmt)} to {format(max(xs), fmt)})"


def write_repetitions(f, runs):
    """With repetitions (run --repeat): each cell's spread over them, runs that
    failed their checks left out."""
    if not any(r.rep > 1 for r in runs):
        return
    groups = {}
    for r in runs:
        if r.ok and r.lat is not None:
            groups.setdefault((r.lat, r.be, r.mode, r.load, r.trace), []).append(r)
    f.write("\n## Repetitions: median (min to max) over each cell's repetitions\n\n"
            "| latency_workload | best_effort_workload | mode | load | trace | reps | p99_ms "
            "| p99_overhead | service_overhead | be_norm_throughput |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n")
    for key in sorted(groups, key=lambda k: groups[k][0].sort_key()):
        rs = groups[key]
        o = rs[0].out
        f.write(f"| {cell(o['latency_workload'], 's')} | {cell(o['best_effort_workload'], 's')} "
                f"| {cell(o['mode'], 's')} | {cell(o['load'], 'g')} | {cell(o['trace'], 's')} "
                f"| {len(rs)} | {spread([r.out.get('p99_ms') for r in rs], '.3f')} "
                f"| {spread([r.out.get('p99_overhead') for r in rs], '+.1%')} "
                f"| {spread([r.out.get('service_overhead') for r in rs], '+.1%')} "
                f"| {spread([r.out.get('be_norm_throughput') for r in rs], '.3f')} |\n")


def write_pooled(f, runs):
    """With repetitions: each colocated cell's p99 over the requests of all its
    repetitions together, against the runs alone of the same repetitions
    pooled the same way (one cell's p99 rests on a few requests; pooling
    three repetitions triples them).  A repetition whose run alone is
    missing, failed or left requests unfinished is left out of both."""
    if not any(r.rep > 1 for r in runs):
        return
    alone = {(r.lat, r.load, r.trace, r.rep): r for r in runs
             if r.mode == "alone" and r.be is None and r.ok and r.sorted is not None
             and not r.unfinished}
    groups = {}
    for r in runs:
        if r.ok and r.lat is not None and r.mode != "alone" and r.latencies is not None:
            groups.setdefault((r.lat, r.be, r.mode, r.load, r.trace), []).append(r)
    if not groups:
        return
    f.write("\n## Repetitions pooled: p99 of all repetitions' requests together\n\n"
            "| latency_workload | best_effort_workload | mode | load | trace | reps "
            "| requests | pooled_p99_ms | alone_pooled_p99_ms | pooled_p99_overhead |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n")
    for key in sorted(groups, key=lambda k: groups[k][0].sort_key()):
        lat, be, mode, load, trace = key
        pairs = [(r, alone[(lat, load, trace, r.rep)]) for r in groups[key]
                 if (lat, load, trace, r.rep) in alone]
        mine = sorted(x for r, _ in pairs for x in r.latencies)
        base = sorted(x for _, b in pairs for x in b.latencies)
        p99 = percentile(mine, 99.0) if mine else None
        p99_alone = percentile(base, 99.0) if base else None
        over = p99 / p99_alone - 1.0 if p99 is not None and p99_alone else None
        f.write(f"| {cell(lat, 's')} | {cell(be, 's')} | {cell(mode, 's')} | {cell(load, 'g')} "
                f"| {cell(trace, 's')} | {len(pairs)} | {len(mine)} | {cell(p99, '.3f')} "
                f"| {cell(p99_alone, '.3f')} | {cell(over, '+.1%')} |\n")


KEY_COLUMNS = [("latency_workload", "s"), ("best_effort_workload", "s"), ("mode", "s"),
               ("load", "g"), ("trace", "s")]


def write_keyed(f, title, intro, runs, columns):
    """A table of RUNS (none: no table): the cell's key, then COLUMNS
    [(name, format)], under a heading TITLE and an INTRO paragraph."""
    if not runs:
        return
    shown = KEY_COLUMNS + columns
    f.write(f"\n## {title}\n\n" + (f"{intro}\n\n" if intro else ""))
    f.write("| " + " | ".join(name for name, _ in shown) + " |\n")
    f.write("|" + "---|" * len(shown) + "\n")
    for r in runs:
        f.write("| " + " | ".join(cell(r.out.get(name), fmt) for name, fmt in shown) + " |\n")


def write_md(path, root, runs, notes):
    f = io.StringIO()
    f.write(f"# Colocation results: {os.path.basename(os.path.abspath(root))}\n\n")
    f.write(f"{len(runs)} runs.  Percentiles interpolate linearly between closest ranks; "
            f"the SLO is {SLO_FACTOR:g} x the p50 of the latency workload alone at the same "
            "load and trace; throughputs are normalized to each workload alone.\n\n")

    f.write(f"## Headline: load {HEADLINE_LOAD:g}, runs that passed their checks\n\n")
    rows = headline(runs)
    if rows:
        f.write("| mode | runs | mean p99 overhead | mean SLO attainment "
                "| mean BE norm. throughput |\n|---|---|---|---|---|\n")
        for mode, n, over, att, be in rows:
            f.write(f"| {mode} | {n} | {cell(over, '+.1%')} | {cell(att, '.1%')} "
                    f"| {cell(be, '.3f')} |\n")
    else:
        f.write(f"No colocated run at load {HEADLINE_LOAD:g} passed its check.\n")
    f.write("\n")

    failed = [r for r in runs if not r.ok]
    if failed:
        f.write(f"Failed checks ({len(failed)}, kept in the table, out of the headline):\n\n")
        for r in failed:
            f.write(f"- {r.name} ({describe(r)}): {r.check}\n")
        f.write("\n")
    else:
        f.write("All runs passed their checks.\n\n")
    capped = [r for r in runs if r.unfinished]
    if capped:
        f.write(f"Runs with unfinished requests ({len(capped)}; the latency tenant was "
                "stopped before serving them: each is an SLO miss with an infinite latency, "
                "and \"inf\" marks the percentiles, means and overheads they reach):\n\n")
        for r in capped:
            f.write(f"- {r.name} ({describe(r)}): {r.unfinished} of {len(r.latencies)} "
                    "requests unfinished\n")
        f.write("\n")
    if notes:
        f.write("Missing baselines (the fields that need them are n/a):\n\n")
        for note in notes:
            f.write(f"- {note}\n")
        f.write("\n")

    shown = [(name, fmt) for name, fmt in COLUMNS if fmt]
    f.write("## All runs\n\n")
    f.write("| " + " | ".join(name for name, _ in shown) + " |\n")
    f.write("|" + "---|" * len(shown) + "\n")
    for r in runs:
        f.write("| " + " | ".join(cell(r.out.get(name), fmt) for name, fmt in shown) + " |\n")

    write_repetitions(f, runs)
    write_pooled(f, runs)

    # Last, so that the tables above keep their shape.
    write_keyed(f, "Service time of the latency tenant (done - start, no queueing)", "",
                [r for r in runs if r.out.get("service_mean_ms") is not None],
                [("service_mean_ms", ".3f"), ("service_overhead", "+.1%")])
    write_keyed(f, "Best-effort throughput against the latency tenant's idle time",
                "be_idle_throughput = be_norm_throughput / (1 - alone_busy_share), the "
                "share of its run alone the latency tenant spent serving.",
                [r for r in runs if r.out.get("be_idle_throughput") is not None],
                [("alone_busy_share", ".1%"), ("be_norm_throughput", ".3f"),
                 ("be_idle_throughput", ".3f")])
    write_keyed(f, "Under MPS, against the latency tenant alone under MPS",
                "p99_overhead_mps = p99_ms / mps_alone_p99_ms - 1, mps_alone_p99_ms from the "
                "run mps-solo of the same repetition: what the best-effort tenant and colocc "
                "cost beyond MPS's own cost.",
                [r for r in runs if r.out.get("mps_alone_p99_ms") is not None],
                [("p99_ms", ".3f"), ("mps_alone_p99_ms", ".3f"), ("p99_overhead_mps", "+.1%"),
                 ("p99_overhead", "+.1%")])
    with open(path, "w") as out:
        out.write(f.getvalue())


def finite(v):
    """V, or NaN (a gap in a line plot) when it is missing or infinite."""
    return v if v is not None and math.isfinite(v) else math.nan


def file_name(*parts):
    return "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", str(p)) for p in parts) + ".png"


def plot(root, runs):
    """Writes DIR/plots/*.png; returns how many, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    outdir = os.path.join(root, "plots")
    os.makedirs(outdir, exist_ok=True)
    written = 0

    def save(fig, name):
        nonlocal written
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=120)
        plt.close(fig)
        written += 1

    # The first repetition only (run --repeat): summary.md gives the spread over all.
    ok = [r for r in runs if r.ok and r.rep == 1]
    # One colour per mode in every plot; "alone" is black.
    colours = {m: f"C{i % 10}" for i, m in
               enumerate(sorted({r.mode for r in runs} - {"alone"}, key=mode_rank))}
    colours["alone"] = "black"
    alone = {(r.lat, r.load, r.trace): r for r in ok if r.mode == "alone" and r.be is None}
    pairs = sorted({(r.lat, r.be, r.trace) for r in ok if r.lat and r.be})

    for lat, be, trace in pairs:
        rs = [r for r in ok if (r.lat, r.be, r.trace) == (lat, be, trace)]
        at = [r for r in rs if abs(r.load - HEADLINE_LOAD) < 1e-9 and r.sorted]
        base = alone.get((lat, HEADLINE_LOAD, trace))
        if at:
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for r in ([base] if base else []) + at:
                # Unfinished requests are off the right edge: the curve stops short of 1.
                n, xs = len(r.sorted), [x for x in r.sorted if math.isfinite(x)]
                ax.step(xs, [(i + 1) / n for i in range(len(xs))], where="post", label=r.mode,
                        color=colours[r.mode])
            if base:
                ax.axvline(SLO_FACTOR * percentile(base.sorted, 50.0), color="grey",
                           linestyle=":", label="SLO")
            ax.set_xscale("log")
            ax.set_xlabel("latency (ms)")
            ax.set_ylabel("share of requests")
            ax.set_title(f"{lat} beside {be}, load {HEADLINE_LOAD:g}, {trace}")
            ax.legend(fontsize="small")
            save(fig, file_name("cdf", lat, be, trace))

        modes = sorted({r.mode for r in rs}, key=mode_rank)
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
        for mode in modes:
            m = sorted((r for r in rs if r.mode == mode), key=lambda r: r.load)
            a1.plot([r.load for r in m], [finite(r.out.get("p99_ms")) for r in m], marker="o",
                    label=mode, color=colours[mode])
            a2.plot([r.load for r in m], [r.out.get("be_norm_throughput") for r in m],
                    marker="o", label=mode, color=colours[mode])
        b = sorted((r for r in alone.values() if (r.lat, r.trace) == (lat, trace)),
                   key=lambda r: r.load)
        if b:
            a1.plot([r.load for r in b], [finite(r.out.get("p99_ms")) for r in b], color="black",
                    linestyle="--", label="alone")
        a1.set_xlabel("load")
        a1.set_ylabel("p99 latency (ms)")
        a1.set_yscale("log")
        a2.set_xlabel("load")
        a2.set_ylabel("best-effort throughput / alone")
        a2.set_ylim(bottom=0)
        a1.set_title(f"p99 of {lat} beside {be}, {trace}")
        a2.set_title(f"throughput of {be}")
        a1.legend(fontsize="small")
        save(fig, file_name("load", lat, be, trace))

    for r in ok:
        series = r.rec.get("be_timeseries")
        if r.trace != "bursty" or not series or not r.latencies:
            continue
        fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(10, 6))
        served = [(t, x) for t, x in zip(r.arrivals, r.latencies) if math.isfinite(x)]
        a1.scatter([t for t, _ in served], [x for _, x in served], s=3, color=colours[r.mode])
        if r.out.get("slo_ms"):
            a1.axhline(r.out["slo_ms"], color="grey", linestyle=":", label="SLO")
            a1.legend(fontsize="small")
        a1.set_yscale("log")
        a1.set_ylabel("latency (ms)")
        a1.set_title(f"{describe(r)}")
        a2.plot([p[0] for p in series], [p[1] for p in series], color=colours[r.mode])
        a2.set_ylim(bottom=0)
        a2.set_xlabel("time (s)")
        a2.set_ylabel("best-effort units/s")
        save(fig, file_name("timeseries", os.path.splitext(os.path.basename(r.path))[0]))
    return written


def main():
    p = argparse.ArgumentParser(
        prog="report.py", description="Summarizes a colocation suite's results directory.")
    p.add_argument("dir", help="results directory, with runs/*.json")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    a = p.parse_args()
    try:
        runs = load_runs(a.dir)
    except Malformed as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 1
    notes = summarize(runs)
    write_json(os.path.join(a.dir, "summary.json"), runs)
    write_csv(os.path.join(a.dir, "summary.csv"), runs)
    write_md(os.path.join(a.dir, "summary.md"), a.dir, runs, notes)
    print(f"report.py: {len(runs)} runs, {sum(not r.ok for r in runs)} failed their checks: "
          f"{os.path.join(a.dir, 'summary.md')}")
    if not a.no_plots:
        n = plot(a.dir, runs)
        if n is None:
            print("report.py: matplotlib is not available: no plots")
        else:
            print(f"report.py: {n} plots in {os.path.join(a.dir, 'plots')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
