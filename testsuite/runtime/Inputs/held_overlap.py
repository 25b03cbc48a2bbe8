"""Reads a fake driver log; prints how many persistent launches (looping or fresh) went to
the driver while another thread's held persistent kernel was still on the (fake) GPU, and
how many there were.

usage: held_overlap.py LOG
"""
import re
import sys

live = set()
launches = overlaps = 0
with open(sys.argv[1]) as f:
    for line in f:
        m = re.match(r"cuLaunchKernel fn=__coloc_(?:ptb|fresh)_\w+ .* resident=(\d+)$", line)
        if m:
            launches += 1
            overlaps += bool(live)
            live.add(m.group(1))
            continue
        m = re.match(r"gpu resident=(\d+) .*(finished|left)", line)
        if m:
            live.discard(m.group(1))
print(f"held launches: {launches}, launched beside another: {overlaps}")
