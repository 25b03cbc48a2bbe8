#!/usr/bin/env python3
"""Assemble PTX files with ptxas for every architecture they can target.

By default each file is assembled for sm_80 and sm_90, skipping targets
below the file's own `.target`; a file that targets an architecture-specific
variant (sm_90a, sm_100a) or one above sm_90 is assembled for its own target.
Exits non-zero, with ptxas's messages, when any assembly fails, and when a
file ends up assembled for no architecture at all.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TARGET = re.compile(r"^\s*\.target\s+(sm_\d+[a-z]?)", re.M)


def arch_number(arch):
    return int(re.match(r"sm_(\d+)", arch).group(1))


def archs_for(path, wanted):
    with open(path, errors="replace") as f:
        m = TARGET.search(f.read())
    if not m:
        return wanted
    target = m.group(1)
    if target[-1].isalpha():
        return [target]
    ok = [a for a in wanted if arch_number(a) >= arch_number(target)]
    return ok or [target]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("--arch", action="append", help="architectures (default sm_80, sm_90)")
    ap.add_argument("--compile-only", action="store_true",
                    help="ptxas -c: relocatable code, for modules that call extern functions")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    wanted = args.arch or ["sm_80", "sm_90"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.files:
            for arch in archs_for(path, wanted):
                out = os.path.join(tmp, "out.cubin")
                extra = ["-c"] if args.compile_only else []
                r = subprocess.run([args.ptxas, f"-arch={arch}", *extra, path, "-o", out],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    sys.stderr.write(f"ptxas -arch={arch} {path} failed:\n{r.stderr}")
                    failed = 1
                else:
                    print(f"ptxas -arch={arch} {os.path.basename(path)}: ok")
    return failed


if __name__ == "__main__":
    sys.exit(main())
