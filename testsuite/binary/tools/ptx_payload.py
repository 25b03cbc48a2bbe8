#!/usr/bin/env python3
"""Print the PTX that an uncompressed, single-entry fatbin holds.

usage: ptx_payload.py FATBIN OUT

The reference for "byte-equal to what nvcc embeds": the tests run nvcc's
own fatbinary on nvcc -ptx output, as nvcc does when it builds a program,
and take the entry's payload with this script, which shares no code with
colocc.  The payload is the PTX with a NUL and zero padding after it.
"""
import struct
import sys

d = open(sys.argv[1], "rb").read()
magic, version, hsize, fat = struct.unpack_from("<IHHQ", d, 0)
assert magic == 0xBA55ED50 and version == 1, "not a fatbin"
kind, _, ehsize, psize = struct.unpack_from("<HHIQ", d, hsize)
flags, = struct.unpack_from("<Q", d, hsize + 0x28)
assert kind == 1 and not flags & 0xA000, "not an uncompressed PTX entry"
payload = d[hsize + ehsize:hsize + ehsize + psize]
open(sys.argv[2], "wb").write(payload.rstrip(b"\0"))
