#!/usr/bin/env python3
"""Make a malformed copy of a fatbin, host ELF file or cubin for the tests.

usage: corrupt.py MODE IN OUT

MODE names one defect (see MODES below); an argument follows a colon, e.g.
entry-flags:1 for the second entry of the first container.  Fatbin modes
work on a .fatbin file or on the first container of a host ELF file's
.nv_fatbin section.  The script parses just enough to find what it changes,
independently of colocc.
"""
import struct
import sys


def sections(d):
    """(name, offset, size, header offset) of every ELF64 section."""
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    hdr = lambda i: shoff + i * shentsize
    stroff, = struct.unpack_from("<Q", d, hdr(shstrndx) + 24)
    out = []
    for i in range(shnum):
        name, = struct.unpack_from("<I", d, hdr(i))
        off, size = struct.unpack_from("<QQ", d, hdr(i) + 24)
        s = stroff + name
        out.append((d[s:d.index(b"\0", s)].decode(), off, size, hdr(i)))
    return out


def section(d, name):
    for s in sections(d):
        if s[0] == name or (name.endswith("*") and s[0].startswith(name[:-1])):
            return s
    sys.exit(f"corrupt.py: no section {name}")


def container(d):
    """Offset of the first fatbin container."""
    if d[:4] == b"\x7fELF":
        return section(d, ".nv_fatbin")[1]
    return 0


def entry(d, k):
    """Offset of entry k of the first container."""
    p = container(d) + 16
    for _ in range(k):
        hs, = struct.unpack_from("<I", d, p + 4)
        ps, = struct.unpack_from("<Q", d, p + 8)
        p += hs + ps
    return p


def put(d, fmt, off, *v):
    struct.pack_into(fmt, d, off, *v)


def nvinfo_record(d, attr):
    """Offset of the first record with attribute `attr` in a .nv.info.<kernel> section."""
    _, off, size, _ = section(d, ".nv.info.*")
    p = off
    while p < off + size:
        fmt, a, v = struct.unpack_from("<BBH", d, p)
        if a == attr:
            return p
        p += 4 + (v if fmt == 4 else 0)
    sys.exit("corrupt.py: no such attribute")


def main():
    mode, src, dst = sys.argv[1:4]
    name, _, arg = mode.partition(":")
    d = bytearray(open(src, "rb").read())
    first = arg.split(",")[0]
    k = int(first) if first.isdigit() else 0
    if name == "truncate":
        d = d[:int(arg)]
    elif name == "append":
        d += bytes.fromhex(arg)
    elif name == "container-magic":
        put(d, "<I", container(d), 0xDEADBEEF)
    elif name == "container-version":
        put(d, "<H", container(d) + 4, 2)
    elif name == "container-size":
        put(d, "<Q", container(d) + 8, 1 << 62)
    elif name == "entry-header-size":
        put(d, "<I", entry(d, k) + 4, 16)
    elif name == "entry-payload-size":
        put(d, "<Q", entry(d, k) + 8, 1 << 40)
    elif name == "compressed-size":
        ps, = struct.unpack_from("<Q", d, entry(d, k) + 8)
        put(d, "<I", entry(d, k) + 0x10, ps + 8)
    elif name == "uncompressed-size":
        put(d, "<Q", entry(d, k) + 0x38, int(arg.split(",")[1]))
    elif name == "entry-flags":
        k, flags = (int(x, 0) for x in arg.split(","))
        put(d, "<Q", entry(d, k) + 0x28, flags)
    elif name == "options-offset":
        put(d, "<I", entry(d, k) + 0x14, 0x4c)
    elif name == "payload-bytes":
        # Overwrites the middle of the stored payload.
        e = entry(d, k)
        hs, = struct.unpack_from("<I", d, e + 4)
        cs, = struct.unpack_from("<I", d, e + 0x10)
        mid = e + hs + cs // 2
        d[mid:mid + 8] = b"\xff" * 8
    elif name == "elf-class":
        d[4] = 1
    elif name == "elf-endian":
        d[5] = 2
    elif name == "elf-shoff":
        put(d, "<Q", 0x28, len(d) - 16)
    elif name == "elf-shnum":
        put(d, "<H", 0x3C, 0xFFF0)
    elif name == "section-offset":
        _, _, _, h = section(d, arg)
        put(d, "<Q", h + 24, len(d) + 4096)
    elif name == "kparam-ordinal":
        put(d, "<H", nvinfo_record(d, 0x17) + 8, 0x7FFF)
    elif name == "nvinfo-size":
        put(d, "<H", nvinfo_record(d, 0x17) + 2, 0xFFF0)
    elif name == "nvinfo-format":
        put(d, "<B", nvinfo_record(d, 0x17), 9)
    else:
        sys.exit(f"corrupt.py: unknown mode {mode}")
    open(dst, "wb").write(d)


if __name__ == "__main__":
    main()
