#!/usr/bin/env python3
"""Checks `fatbin-tool regs` output against colocc's register-cap rule, written
out again here: a persistent variant __coloc_ptb_K (or its one-block-a-worker
variant __coloc_fresh_K) whose registers exceed its original K's limit (K's
count rounded up to 8, at least 32, at most 255) must have a copy
__coloc_cap_ptb_K (__coloc_cap_fresh_K) within that limit; one within the
limit, or a kernel listed with --skip (it carries .minnctapersm), must have
none.

usage: regcap_check.py [--skip K]... < REGS
Prints one line per persistent variant: "capped K: R > L, copy C" or
"uncapped K: R <= L" (or "skipped K"), "fresh K" for the fresh ones, and
exits 1 on any violation.
"""
import argparse
import re
import sys


def limit(regs):
    return min(255, max(32, (regs + 7) // 8 * 8))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", action="append", default=[])
    a = ap.parse_args()
    regs = {}
    for line in sys.stdin:
        m = re.fullmatch(r"(\S+) regs=(\d+)\n?", line)
        if not m:
            sys.exit(f"regcap_check.py: bad line {line!r}")
        regs[m.group(1)] = int(m.group(2))
    bad = 0
    for form, label in (("ptb", ""), ("fresh", "fresh ")):
        prefix = f"__coloc_{form}_"
        for name in sorted(n for n in regs if n.startswith(prefix)):
            k = name[len(prefix):]
            copy = regs.get(f"__coloc_cap_{form}_" + k)
            lim = limit(regs[k])
            if k in a.skip:
                print(f"skipped {label}{k}")
                ok = copy is None
            elif regs[name] > lim:
                print(f"capped {label}{k}: {regs[name]} > {lim}, copy {copy}")
                ok = copy is not None and copy <= lim
            else:
                print(f"uncapped {label}{k}: {regs[name]} <= {lim}")
                ok = copy is None
            if not ok:
                print(f"error: {label}{k}: variant {regs[name]}, limit {lim}, copy {copy}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
