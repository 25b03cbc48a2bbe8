#!/usr/bin/env python3
"""Summarizes a coverage run (benchmarks/coverage/run) as Markdown: per library
and JIT compiler, kernels, kernels with PTX, and kernels each form accepts,
the most frequent refusals, and colocc --list timings next to cuobjdump's.

usage: summarize.py OUT [TARGET]   (TARGET: the GPU, default sm_90a: an H100 runs sm_90 and sm_90a code)

"with PTX" counts kernels with PTX for any architecture; "for TARGET" those
with PTX that TARGET can compile (compute_X, X <= TARGET's; compute_Xa for
TARGET sm_Xa), the only ones colocc can make preemptible on that GPU.
"""
import collections
import os
import re
import sys


def read_list(path):
    rows = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) == 6:
            rows.append(f)
    return rows


def reason(col):
    """The refusal's instruction or directive: 'no (ld: ...)' -> 'ld: ...', shortened."""
    m = re.match(r"no \((.*)\)$", col)
    text = m.group(1) if m else col
    return re.sub(r"\d+", "N", text)[:200]


def usable(ptx_col, target):
    """Whether a TARGET GPU can compile any of the PTX architectures listed."""
    t = re.fullmatch(r"sm_(\d+)([af]?)", target)
    sm, var = int(t.group(1)), t.group(2)
    for arch in ptx_col.split(","):
        m = re.fullmatch(r"compute_(\d+)([af]?)", arch)
        if not m:
            continue
        x, v = int(m.group(1)), m.group(2)
        if x > sm or (v == "a" and (x != sm or var != "a")) or (v == "f" and x // 10 != sm // 10):
            continue
        return True
    return False


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) == 3 else "sm_90a"
    timings = {}
    for line in open(os.path.join(out, "timings.txt")):
        name, secs, rc = line.split()
        timings.setdefault(name, []).append((float(secs), int(rc)))
    sizes = {}
    if os.path.exists(os.path.join(out, "libraries.txt")):
        for line in open(os.path.join(out, "libraries.txt")):
            base, size, path = line.split(maxsplit=2)
            sizes[base] = (int(size), path.strip())
    print("# Kernel coverage\n")
    print(open(os.path.join(out, "machine.txt")).read().strip().replace("\n", "  \n"), "\n")
    print(f"| source | size (MB) | kernels | with PTX | PTX archs | slice | ptb | both | "
          f"PTX for {target} | both, for {target} | `colocc --list` (s) |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    refusals = {}
    lists = sorted(f[:-4] for f in os.listdir(os.path.join(out, "lists")) if f.endswith(".tsv"))
    for name in sorted(lists, key=lambda n: (n.startswith("jit-"), n)):
        rows = read_list(os.path.join(out, "lists", name + ".tsv"))
        ptx = [r for r in rows if r[3] != "-"]
        sl = sum(r[4] == "yes" for r in ptx)
        pt = sum(r[5] == "yes" for r in ptx)
        both = sum(r[4] == "yes" and r[5] == "yes" for r in ptx)
        here = [r for r in ptx if usable(r[3], target)]
        both_here = sum(r[4] == "yes" and r[5] == "yes" for r in here)
        archs = collections.Counter(a for r in ptx for a in r[3].split(","))
        archs = ", ".join(a for a, _ in sorted(archs.items())) or "-"
        t = timings.get("list:" + name, [(float("nan"), -1)])[0]
        size = f"{sizes[name][0] / 1e6:.0f}" if name in sizes else "-"
        errs = os.path.join(out, "lists", name + ".err")
        lines = open(errs).read().splitlines() if os.path.exists(errs) else []
        nerr = sum(": error:" in l for l in lines)
        if nerr == 1 and any("no CUDA device code" in l for l in lines):
            note = " (no device code)"
        else:
            note = f" ({nerr} errors)" if nerr else ""
        print(f"| {name}{note} | {size} | {len(rows)} | {len(ptx)} | {archs} | {sl} | {pt} | "
              f"{both} | {len(here)} | {both_here} | {t[0]:.2f} |")
        c = collections.Counter()
        for r in ptx:
            for form, col in (("slice", r[4]), ("ptb", r[5])):
                if col != "yes":
                    c[f"{form}: {reason(col)}"] += 1
        refusals[name] = c
    print("\nRefusals (kernel count, form: reason), most frequent first:\n")
    for name, c in refusals.items():
        if c:
            print(f"- **{name}**: " + "; ".join(f"{n} × {r}" for r, n in c.most_common(4)))
    print("\n# Listing time next to cuobjdump --list-ptx\n")
    print("cuobjdump runs after colocc, so it reads the file from the page cache: the fair\n"
          "ratio is the warm one; the cold one also counts colocc's first read from disk.\n")
    print("| file | colocc --list, cold (s) | colocc --list, warm (s) | cuobjdump --list-ptx (s) | "
          "ratio, warm | ratio, cold |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in sorted(k.split(":", 1)[1] for k in timings if k.startswith("cuobjdump:")):
        cold = timings.get("list:" + name, [(float("nan"), -1)])[0][0]
        warm = min(s for s, _ in timings.get("list-warm:" + name, [(float("nan"), -1)]))
        cu, rc = timings["cuobjdump:" + name][0]
        done = "" if rc == 0 else (" (killed at the time limit)" if rc == 124 else f" (exit {rc})")
        bound = ">" if rc == 124 else ""
        print(f"| {name} | {cold:.2f} | {warm:.2f} | {cu:.1f}{done} | {bound}{cu / warm:.1f}× | {bound}{cu / cold:.1f}× |")
    extra = [(k, v) for k, v in timings.items() if k.startswith(("cuobjdump-elf:", "list-j1:"))]
    if extra:
        print("\nAlso measured (s): " + "; ".join(
            f"`{k.split(':')[0]}` {k.split(':', 1)[1]}: {v[0][0]:.2f}" for k, v in sorted(extra)) +
            " (`list-j1`: colocc --list -j 1; `cuobjdump-elf`: cuobjdump --list-elf)")


if __name__ == "__main__":
    main()
