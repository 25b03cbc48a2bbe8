#!/usr/bin/env python3
"""The cache key colocc --aot and the runtime use (compiler/cache.h), computed
independently: SHA-256 over length-prefixed fields "colocc-cache 13", the
colocc version, the target (sm_90 followed by its variant letter or a
blank), the entry's ptxas options, then "passes" and the pass options when
there are any (colocc --aot makes persistent variants with ptb-restart and
resume, "ptb-restart,resume", unless told --no-ptb-resume, which leaves
"ptb-restart", or --no-ptb-restart, which leaves none; the runtime likewise
unless COLOC_RESUME=0 or COLOC_RESTART=0), and the PTX bytes.

usage: aot_key.py --colocc COLOCC --target sm_XX [--options OPTS]
                  [--passes PASS_OPTIONS] --cache DIR --link NAME PTX_FILE

--passes defaults to "ptb-restart,resume", colocc --aot's default; give
--passes=ptb-restart for entries made with --no-ptb-resume and --passes=
(empty) for entries made with --no-ptb-restart.

Fails unless DIR/<key> is a directory; NAME becomes a symbolic link to it,
so that later test steps can name the entry.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--colocc", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--options", default="")
    ap.add_argument("--passes", default="ptb-restart,resume")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--link", required=True)
    ap.add_argument("ptx")
    a = ap.parse_args()
    out = subprocess.run([a.colocc, "--version"], check=True, capture_output=True, text=True).stdout
    version = re.fullmatch(r"colocc (\S+)\n", out).group(1)
    m = re.fullmatch(r"sm_(\d+)([af]?)", a.target)
    if not m:
        sys.exit(f"aot_key.py: bad target {a.target!r}")
    target_field = f"sm_{m.group(1)}{m.group(2) or ' '}"
    h = hashlib.sha256()
    fields = [b"colocc-cache 13", version.encode(), target_field.encode(), a.options.encode()]
    if a.passes:
        fields += [b"passes", a.passes.encode()]
    for field in fields + [open(a.ptx, "rb").read()]:
        h.update(b"%d:" % len(field))
        h.update(field)
    entry = os.path.join(a.cache, h.hexdigest())
    if not os.path.isdir(entry):
        sys.exit(f"aot_key.py: no cache entry {entry} for {a.ptx}")
    if os.path.lexists(a.link):
        os.unlink(a.link)
    os.symlink(os.path.abspath(entry), a.link)
    print(h.hexdigest())


if __name__ == "__main__":
    main()
