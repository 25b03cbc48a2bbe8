#!/usr/bin/env python3
"""Checks one CUDA source of the front-end corpus across targets and modes.

For each architecture (sm_80, sm_90, sm_90a, sm_100, plus the file's
`// EXTRA-ARCHS:` line) and each of plain, -G and -lineinfo builds:

  1. nvcc -ptx compiles the file (extra flags from `// NVCC-EXTRA-FLAGS:`);
  2. colocc --verify parses, verifies and prints it (canonical form C1);
  3. colocc parses C1 and prints it again: the bytes must equal C1;
  4. ptxas assembles C1 for the target, and the cubin must equal, section by
     section, the cubin of nvcc's own PTX (for -G and -lineinfo builds, the
     sections that record PTX line numbers are left out): printing lost
     nothing that reaches the machine code or the debug information;
  5. colocc --passes=slice and --passes=unisync,ptb run on C1: each exits 0
     (every kernel transformed) or 3 (some refused, each with a warning that
     gives the reason), never anything else, and the output assembles.

Prints one line per configuration and a summary; exits 1 on any failure.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

BASE_ARCHS = ["sm_80", "sm_90", "sm_90a", "sm_100"]
VARIANTS = [("plain", []), ("G", ["-G"]), ("lineinfo", ["-lineinfo"])]


def directive(text, name):
    m = re.search(r"^//\s*" + name + r":(.*)$", text, re.M)
    return m.group(1).split() if m else []


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{what} failed ({' '.join(cmd)}):\n{r.stdout}{r.stderr}")
    return r


def check_one(args, src, arch, vname, vflags, extra, tmp):
    tag = f"{arch}-{vname}"
    ptx = os.path.join(tmp, f"{tag}.ptx")
    c1 = os.path.join(tmp, f"{tag}.c1.ptx")
    c2 = os.path.join(tmp, f"{tag}.c2.ptx")
    run([args.nvcc, "-ptx", f"-arch={arch}", *vflags, *extra, src, "-o", ptx], "nvcc")
    run([args.colocc, "--verify", ptx, "-o", c1], "colocc (parse, verify, print)")
    run([args.colocc, c1, "-o", c2], "colocc (reparse)")
    if open(c1, "rb").read() != open(c2, "rb").read():
        raise RuntimeError(f"round trip is not byte-identical: {c1} vs {c2}")
    o_cubin, c_cubin = ptx + ".cubin", c1 + ".cubin"
    run([args.ptxas, f"-arch={arch}", ptx, "-o", o_cubin], "ptxas on nvcc's PTX")
    run([args.ptxas, f"-arch={arch}", c1, "-o", c_cubin], "ptxas on colocc's PTX")
    cmp = [sys.executable, args.cubin_cmp]
    if vflags:
        cmp.append("--ignore-ptx-lines")
    run(cmp + [o_cubin, c_cubin], "cubin comparison")
    stats = []
    for passes in ("slice", "unisync,ptb"):
        out = os.path.join(tmp, f"{tag}.{passes.replace(',', '-')}.ptx")
        r = subprocess.run([args.colocc, "--verify", f"--passes={passes}", c1, "-o", out],
                           capture_output=True, text=True)
        refusals = r.stderr.count("not applied:")
        if r.returncode not in (0, 3) or (r.returncode == 3) != (refusals > 0):
            raise RuntimeError(f"colocc --passes={passes} exited {r.returncode}:\n{r.stderr}")
        run([args.ptxas, f"-arch={arch}", out, "-o", out + ".cubin"], f"ptxas after --passes={passes}")
        made = open(out).read().count(".entry __coloc_")
        stats.append(f"{passes}: {made} variants, {refusals} refused")
    return os.path.getsize(ptx), "; ".join(stats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--colocc", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--cubin-cmp", required=True)
    ap.add_argument("--keep-root", help="keep the generated PTX in KEEP_ROOT/<source name>/")
    ap.add_argument("source")
    args = ap.parse_args()
    text = open(args.source).read()
    archs = BASE_ARCHS + [a for a in directive(text, "EXTRA-ARCHS") if a not in BASE_ARCHS]
    extra = directive(text, "NVCC-EXTRA-FLAGS")
    failures = 0
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = tmp
        if args.keep_root:
            work = os.path.join(args.keep_root, os.path.splitext(os.path.basename(args.source))[0])
        os.makedirs(work, exist_ok=True)
        for arch in archs:
            for vname, vflags in VARIANTS:
                total += 1
                try:
                    size, stats = check_one(args, args.source, arch, vname, vflags, extra, work)
                    print(f"ok   {arch:8} {vname:8} {size} bytes of PTX; {stats}")
                except RuntimeError as e:
                    failures += 1
                    print(f"FAIL {arch:8} {vname:8}\n{e}")
    print(f"{os.path.basename(args.source)}: {total - failures}/{total} configurations pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
