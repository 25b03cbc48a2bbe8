#!/usr/bin/env python3
"""Smoke runner for the GPU test kernels (needs a GPU and CuPy).

    smoke-run.py DIR [--only NAME,...] [--original-only] [--no-slice1] [--no-once]
                  [--skip NAME,...]

DIR holds, per kernel file F.cu, the colocc output F.colocc.ptx and
F.manifest.json, as check-kernels.sh -o DIR leaves them; the runner
assembles F.cubin with ptxas (leaving out any entry ptxas rejects).  For every CASE it builds the inputs, runs the original
kernel twice (the results must agree: the kernel is deterministic), then
the sliced form (rectangular sub-grids of a few blocks, and one block per
slice) and the persistent form (one worker, and a few workers) where colocc
made them, and compares every buffer with the original's, bit for bit or
within tol=.  Exactly-once cases check that every counter is 1.

This is not the harness (testsuite/gpu is); it only shows that the kernels
and their cases are sound and gives a first look at the transformed forms.
"""
import json
import zlib
import os
import re
import subprocess
import sys
import time

import cupy as cp
import numpy as np

ELEM = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
        "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f16": np.float16,
        "bf16": np.uint16, "f32": np.float32, "f64": np.float64}
SCALAR = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
          "f32": np.float32, "f64": np.float64}


def to_bf16_bits(x):
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16  # round to nearest even
    return b.astype(np.uint16)


def make_buffer(ty, n, init, rng):
    dt = ELEM[ty]
    isfloat = ty in ("f16", "bf16", "f32", "f64")
    if init == "zero":
        a = np.zeros(n, dtype=np.float32 if isfloat else dt)
    elif init == "iota":
        a = np.arange(n, dtype=np.float64 if isfloat else np.uint64)
        a = a.astype(np.float32) if isfloat else a.astype(dt)
    elif init == "rand":
        if isfloat:
            a = rng.uniform(-1.0, 1.0, n)
        else:
            a = np.frombuffer(rng.bytes(n * np.dtype(dt).itemsize), dtype=dt).copy()
    elif init.startswith("randint:"):
        _, lo, hi = init.split(":")
        a = rng.integers(int(lo, 0), int(hi, 0), n, endpoint=True, dtype=np.int64)
        a = a.astype(np.float64) if isfloat else a.astype(dt)
    elif init.startswith("const:"):
        v = init[6:]
        if isfloat:
            a = np.full(n, float(v))
        else:
            a = np.array([int(v, 0)] * 1, dtype=np.int64 if not ty.startswith("u") else np.uint64)
            a = np.full(n, a[0]).astype(dt)
    else:
        raise ValueError(init)
    if ty == "bf16":
        return to_bf16_bits(a)
    if isfloat:
        return np.asarray(a).astype(dt)
    return np.asarray(a, dtype=dt)


def make_cubin(ptx, cubin):
    """ptxas -arch=sm_90; entries that ptxas rejects are left out (and said)."""
    text = open(ptx).read()
    tmp = cubin + ".ptx"
    for _ in range(8):
        open(tmp, "w").write(text)
        r = subprocess.run(["ptxas", "-arch=sm_90", tmp, "-o", cubin], capture_output=True, text=True)
        if r.returncode == 0:
            return
        bad = set(re.findall(r"Entry function '(\w+)'", r.stderr))
        if not bad:
            print(f"ptxas failed on {ptx}:\n{r.stderr}", flush=True)
            return
        for name in bad:
            print(f"note: leaving out {name}: ptxas rejects it", flush=True)
            i = text.index(".entry " + name + "(")
            i = text.rindex("\n", 0, i) + 1
            k, depth = text.index("{", text.index(")", i)), 0
            while True:
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                if depth == 0 and text[k] == "}":
                    break
                k += 1
            text = text[:i] + text[k + 1:]


def parse_cases(src):
    cases, cur = [], None
    for line in open(src):
        m = re.match(r"\s*//\s*(CASE|PARAM):\s*(.*)$", line)
        if not m:
            continue
        if m.group(1) == "CASE":
            kv = dict(t.split("=", 1) for t in m.group(2).split())
            cur = {"kv": kv, "params": []}
            cases.append(cur)
        else:
            cur["params"].append(m.group(2).split())
    return cases


def dims(s):
    d = [int(x) for x in s.split(",")]
    return tuple(d + [1] * (3 - len(d)))


class Runner:
    def __init__(self, d, only, original_only, slice1, no_once=False):
        self.d, self.only, self.original_only, self.slice1 = d, only, original_only, slice1
        self.no_once = no_once
        self.results = []

    def kernel(self, mod, name, smem):
        k = mod.get_function(name)
        if smem > 48 * 1024:
            k.max_dynamic_shared_size_bytes = smem
        return k

    def inputs(self, case, seed):
        rng = np.random.default_rng(seed)
        host = []
        for p in case["params"]:
            if p[0] == "buf":
                host.append(("buf", p[1], make_buffer(p[1], int(p[2]), p[3], rng)))
            else:
                v = float(p[1]) if p[0][0] == "f" else int(p[1], 0)
                host.append(("scalar", p[0], SCALAR[p[0]](v)))
        return host

    @staticmethod
    def device(host):
        return [cp.asarray(h[2]) if h[0] == "buf" else h[2] for h in host]

    @staticmethod
    def outputs(dev, host):
        return [(h[1], cp.asnumpy(d)) for d, h in zip(dev, host) if h[0] == "buf"]

    @staticmethod
    def compare(a, b, tol):
        """None when equal, else a short description of the first difference."""
        for i, ((ty, x), (_, y)) in enumerate(zip(a, b)):
            if tol is not None and ty in ("f16", "f32", "f64", "bf16"):
                xf = x.astype(np.float64) if ty != "bf16" else (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
                yf = y.astype(np.float64) if ty != "bf16" else (y.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
                bad = ~(np.abs(xf - yf) <= tol * np.maximum(np.abs(xf), np.abs(yf)) + 1e-30)
                bad &= ~(np.isnan(xf) & np.isnan(yf))
            else:
                bad = x.view(np.uint8).reshape(len(x), -1) != y.view(np.uint8).reshape(len(y), -1)
                bad = bad.any(axis=1)
            if bad.any():
                j = int(np.argmax(bad))
                return f"buffer {i} ({ty}) differs at {j} of {len(x)} ({int(bad.sum())} elements): {x[j]!r} vs {y[j]!r}"
        return None

    def run_case(self, f, mod, manifest, case):
        kv = case["kv"]
        name, kname = kv["name"], kv["kernel"]
        grid, block = dims(kv["grid"]), dims(kv["block"])
        smem = int(kv.get("smem", 0))
        tol = float(kv["tol"]) if "tol" in kv else None
        flags = set(kv.get("flags", "").split(",")) - {""}
        once = "exactly-once" in flags
        host = self.inputs(case, seed=zlib.crc32(name.encode()))
        nblocks = grid[0] * grid[1] * grid[2]
        res = {"case": name, "file": f}
        try:
            k = self.kernel(mod, kname, smem)
            dev = self.device(host)
            t0 = time.time()
            k(grid, block, tuple(dev), shared_mem=smem)
            cp.cuda.runtime.deviceSynchronize()
            res["ms"] = round((time.time() - t0) * 1000, 2)
            ref = self.outputs(dev, host)
            dev = self.device(host)
            k(grid, block, tuple(dev), shared_mem=smem)
            again = self.outputs(dev, host)
            d = self.compare(ref, again, tol)
            res["original"] = "nondeterministic: " + d if d else "ok"
            if once:
                c = ref[0][1]
                res["original"] += "" if (c == 1).all() else f" counts not all 1 ({int((c != 1).sum())} off)"
        except Exception as e:  # noqa: BLE001
            res["original"] = f"error: {e}"
            self.results.append(res)
            return
        if self.original_only:
            self.results.append(res)
            return
        forms = manifest.get(kname, {}).get("forms", {})
        if forms.get("slice", {}).get("status") == "applied":
            plans = [("slice7", max(1, min(7, grid[0] - 1)))]
            if self.slice1 or nblocks <= 512:
                plans.append(("slice1", 1))
            for label, sx in plans:
                try:
                    ks = self.kernel(mod, forms["slice"]["name"], smem)
                    dev = self.device(host)
                    launches = 0
                    for z in range(grid[2]):
                        for y in range(grid[1]):
                            for x0 in range(0, grid[0], sx):
                                w = min(sx, grid[0] - x0)
                                extra = (np.uint32(grid[0]), np.uint32(grid[1]), np.uint32(grid[2]),
                                         np.uint32(x0), np.uint32(y), np.uint32(z))
                                ks((w, 1, 1), block, tuple(dev) + extra, shared_mem=smem)
                                launches += 1
                    out = self.outputs(dev, host)
                    d = self.compare(ref, out, tol)
                    if once:
                        c = out[0][1]
                        d = d or (None if (c == 1).all() else f"counts not all 1 ({int((c != 1).sum())} off)")
                    res[label] = f"FAIL {d}" if d else f"ok ({launches} launches)"
                except Exception as e:  # noqa: BLE001
                    res[label] = f"error: {e}"
        else:
            res["slice"] = forms.get("slice", {}).get("status", "absent")
        if forms.get("ptb", {}).get("status") == "applied":
            for label, workers in (("ptb1", 1), ("ptb", min(nblocks, 3 * 132 + 5)), ("ptb-restart", 7)):
                try:
                    kp = self.kernel(mod, forms["ptb"]["name"], smem)
                    dev = self.device(host)
                    ctl = cp.zeros(2, dtype=cp.uint32)
                    extra = (np.uint32(grid[0]), np.uint32(grid[1]), np.uint32(grid[2]), ctl)
                    if label == "ptb-restart":
                        # stopped before it starts: no block may run; then resumed
                        ctl[1] = 1
                        kp((workers, 1, 1), block, tuple(dev) + extra, shared_mem=smem)
                        stopped = self.outputs(dev, host)
                        same = self.compare([(h[1], h[2]) for h in host if h[0] == "buf"], stopped, None)
                        if same:
                            res[label] = f"FAIL ran blocks while stopped: {same}"
                            continue
                        ctl[1] = 0
                    kp((workers, 1, 1), block, tuple(dev) + extra, shared_mem=smem)
                    out = self.outputs(dev, host)
                    d = self.compare(ref, out, tol)
                    if once:
                        c = out[0][1]
                        d = d or (None if (c == 1).all() else f"counts not all 1 ({int((c != 1).sum())} off)")
                    nxt = int(ctl[0].get())
                    res[label] = f"FAIL {d}" if d else f"ok ({workers} workers, next={nxt})"
                except Exception as e:  # noqa: BLE001
                    res[label] = f"error: {e}"
        else:
            res["ptb"] = forms.get("ptb", {}).get("status", "absent")
        self.results.append(res)

    def run(self, sources):
        for src in sources:
            base = os.path.basename(src)[:-3]
            cubin = os.path.join(self.d, base + ".cubin")
            ptx = os.path.join(self.d, base + ".colocc.ptx")
            mpath = os.path.join(self.d, base + ".manifest.json")
            manifest = {}
            if os.path.exists(mpath):
                manifest = {k["name"]: k for k in json.load(open(mpath))["kernels"]}
            if not os.path.exists(cubin) and os.path.exists(ptx):
                make_cubin(ptx, cubin)
            try:
                mod = cp.RawModule(path=cubin if os.path.exists(cubin) else ptx)
            except Exception as e:  # noqa: BLE001
                self.results.append({"case": "*", "file": base, "original": f"load error: {e}"})
                continue
            for case in parse_cases(src):
                if self.only and case["kv"]["name"] not in self.only:
                    continue
                if self.no_once and "exactly-once" in case["kv"].get("flags", ""):
                    continue
                if case["kv"]["name"] in self.skip:
                    continue
                self.run_case(base, mod, manifest, case)
                r = self.results[-1]
                print(json.dumps(r), flush=True)
                if any(isinstance(v, str) and ("illegal" in v or "launch failure" in v)
                       for v in r.values()):
                    print("context is broken, stopping", flush=True)
                    return


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    d = args[0]
    only = None
    original_only = "--original-only" in args
    slice1 = "--no-slice1" not in args
    if "--only" in args:
        only = set(args[args.index("--only") + 1].split(","))
    here = os.path.dirname(os.path.abspath(__file__))
    srcs = sorted(os.path.join(here, x) for x in os.listdir(here) if x.endswith(".cu"))
    r = Runner(d, only, original_only, slice1, "--no-once" in args)
    r.skip = set(args[args.index("--skip") + 1].split(",")) if "--skip" in args else set()
    r.run(srcs)
    bad = [x for x in r.results if any(isinstance(v, str) and (v.startswith("FAIL") or "error" in v or
                                                              "nondeterministic" in v or "not all 1" in v)
                                       for v in x.values())]
    print(f"\n{len(r.results)} cases, {len(bad)} with problems")
    for x in bad:
        print("  ", json.dumps(x))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
