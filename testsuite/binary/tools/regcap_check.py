#!/usr/bin/env python3
"""Checks `fatbin-tool regs` output against colocc's register-cap rule, written
out again here.  A persistent variant __coloc_ptb_K (or its one-block-a-worker
variant __coloc_fresh_K) whose registers R exceed its original K's limit L
(K's count rounded up to 8, at least 32, at most 255) must have a copy
__coloc_cap<N>_ptb_K (__coloc_cap<N>_fresh_K) at N = L and at every level N
between L and R rounded up to 8, and no other; each copy within its N.  A level
is the most registers a thread can take at some occupancy of a block of 128,
256, 512 or 1,024 threads, with 65,536 registers an SM, given in eights, and
64 warps.  A variant within its limit, or of a kernel listed with --skip (it
carries .minnctapersm), must have no copy.

usage: regcap_check.py [--skip K]... < REGS
Prints one line per persistent variant: "capped K: R > L, copies N1,N2,..." or
"uncapped K: R <= L" (or "skipped K"), "fresh K" for the fresh ones, and
exits 1 on any violation.
"""
import argparse
import re
import sys


def limit(regs):
    return min(255, max(32, (regs + 7) // 8 * 8))


def levels():
    found = set()
    for warps in (4, 8, 16, 32):
        blocks = 1
        while blocks * warps <= 64:
            most = 65536 // (blocks * warps * 32)
            found.add(most - most % 8)
            blocks += 1
    return {r for r in found if r <= 255}


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
    copies = {}
    for name, r in regs.items():
        m = re.fullmatch(r"__coloc_cap([1-9][0-9]*)_(ptb|fresh)_(.+)", name)
        if m:
            copies.setdefault((m.group(2), m.group(3)), {})[int(m.group(1))] = r
    bad = 0
    for form, label in (("ptb", ""), ("fresh", "fresh ")):
        prefix = f"__coloc_{form}_"
        for name in sorted(n for n in regs if n.startswith(prefix)):
            k = name[len(prefix):]
            have = copies.pop((form, k), {})
            used, lim = regs[name], limit(regs[k])
            if k in a.skip:
                print(f"skipped {label}{k}")
                want = set()
            elif used > lim:
                top = (used + 7) // 8 * 8
                want = {lim} | {r for r in levels() if lim < r < top}
                print(f"capped {label}{k}: {used} > {lim}, copies "
                      + ",".join(str(n) for n in sorted(have, reverse=True)))
            else:
                print(f"uncapped {label}{k}: {used} <= {lim}")
                want = set()
            over = [n for n, r in have.items() if r > n]
            if set(have) != want or over:
                print(f"error: {label}{k}: variant {used}, limit {lim}, copies "
                      f"{sorted(have)} (want {sorted(want)}), over their cap {over}")
                bad += 1
    for (form, k) in copies:
        print(f"error: copies of {form} {k}, which has no variant")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
