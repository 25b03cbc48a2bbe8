#!/usr/bin/env python3
"""Compare two cubins section by section.

Used to show that printing PTX loses nothing: ptxas must produce the same
machine code and the same debug information from the original PTX and from
colocc's canonical print of it.  Sections that record the PTX text itself or
map SASS to PTX line numbers (which change with layout) are skipped with
--ignore-ptx-lines; every other section must be byte-identical.
"""
import os
import struct
import subprocess
import sys
import tempfile

PTX_LAYOUT_SECTIONS = {".nv_debug_ptx_txt", ".nv_debug_line_sass",
                       ".rela.nv_debug_line_sass", ".rel.nv_debug_line_sass"}


def sections(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"{path}: not a 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + i * shentsize)
        hdrs.append((name, typ, off, size))
    stroff = hdrs[shstrndx][2]
    out = {}
    for name, typ, off, size in hdrs:
        end = data.index(b"\0", stroff + name)
        sname = data[stroff + name:end].decode()
        body = b"" if typ == 8 else data[off:off + size]  # SHT_NOBITS
        out.setdefault(sname, []).append(body)
    return out


def option(name, default):
    for a in sys.argv[1:]:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def assemble(path, tmp):
    """PTX inputs are assembled first, for --arch (default: the .target)."""
    if not path.endswith(".ptx"):
        return path
    out = os.path.join(tmp, os.path.basename(path) + ".cubin")
    cmd = [option("--ptxas", "ptxas"), path, "-o", out]
    arch = option("--arch", None)
    if arch:
        cmd.insert(1, "-arch=" + arch)
    else:
        text = open(path, errors="replace").read()
        import re
        m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
        cmd.insert(1, "-arch=" + (m.group(1) if m else "sm_80"))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ignore = PTX_LAYOUT_SECTIONS if "--ignore-ptx-lines" in sys.argv else set()
    if len(args) != 2:
        sys.exit("usage: cubin-cmp.py [--ignore-ptx-lines] [--arch=sm_XX] [--ptxas=PATH] "
                 "A.(cubin|ptx) B.(cubin|ptx)")
    with tempfile.TemporaryDirectory() as tmp:
        return compare(assemble(args[0], tmp), assemble(args[1], tmp), ignore)


def compare(path_a, path_b, ignore):
    args = [path_a, path_b]
    a, b = sections(args[0]), sections(args[1])
    bad = []
    for name in sorted(set(a) | set(b)):
        # Blackwell cubins carry the same sections again under .nv.merc.
        if name in ignore or name.replace(".nv.merc.", ".", 1) in ignore:
            continue
        if a.get(name) != b.get(name):
            bad.append(name)
    if bad:
        print(f"{args[0]} and {args[1]} differ in sections: {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
