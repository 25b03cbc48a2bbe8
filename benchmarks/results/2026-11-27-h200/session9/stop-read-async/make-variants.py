#!/usr/bin/env python3
"""How the hand-edited variants of calls 3-8 were made from two modules:
NEW, 16-long-blocks.coloc.ptx as the mirror build prepared it (build-gpu/t), and
OLD, the same file from b6516ea's build (build-gpu/t-old).

usage: make-variants.py NEW OLD OUTDIR   (writes OUTDIR/<variant>.ptx)

Each variant was copied into a harness directory of its own (diffrun, run,
kernels/ and ptx/16-long-blocks.coloc.ptx) and run with
    python3 build-gpu/t/run --storm 20 --only 16-long-blocks DIR OUT
"""
import os
import re
import sys

new_path, old_path, out = sys.argv[1:4]
new = open(new_path).read()
old = open(old_path).read()
os.makedirs(out, exist_ok=True)

MIRROR_DECL = "\t.shared .align 16 .b8 __coloc_mirror[16];\n"
HALT_DECL = "\t.shared .align 8 .b32 __coloc_halt[2];\n"
BAR = "\tbarrier.red.or.pred\t__coloc_any_sync, 0, __coloc_is_sync;\n"
COPY_AT_START = ("\tmov.pred\t__coloc_dirty, 0;\n"
                 "\t@__coloc_hlead cp.async.cg.shared.global\t[__coloc_mirror], [__coloc_stopp], 16;\n")
COPY_AFTER_MEETING = ("\txor.b32\t__coloc_haltp, __coloc_haltp, 4;\n"
                      "\t@__coloc_hlead cp.async.cg.shared.global\t[__coloc_mirror], [__coloc_stopp], 16;\n")


def drop_lines(text, pattern):
    return "".join(l for l in text.splitlines(True) if not re.search(pattern, l))


def with_mirror_init(text):
    """The leader's store that clears the mirror, before each restart kernel's loop head."""
    parts = text.split("\n.visible .entry ")
    for i, p in enumerate(parts):
        if "__coloc_mirror" in p:
            parts[i] = p.replace("__coloc_next:\n", "\t@__coloc_leader st.shared.u32\t"
                                 "[__coloc_mirror], __coloc_hw;\n__coloc_next:\n", 1)
    return "\n.visible .entry ".join(parts)


variants = {
    "t": new,
    # no cp.async at all; the leader still takes hw from the mirror
    "A": drop_lines(new, r"cp\.async\.cg\.shared\.global\s*\[__coloc_mirror\]|^\s*cp\.async\.wait_all;$"),
    # copies and wait_all, hw never read from the mirror
    "B": drop_lines(new, r"ld\.shared\.u32\s*__coloc_hw, \[__coloc_mirror\]"),
    # everything but the wait_all at the exit
    "C": new.replace("__coloc_leave:\n\tcp.async.wait_all;\n", "__coloc_leave:\n"),
    "D": old,
    "E": old.replace(HALT_DECL, HALT_DECL + MIRROR_DECL),
    "F": with_mirror_init(old.replace(HALT_DECL, HALT_DECL + MIRROR_DECL)),
    "G": new.replace(BAR, "\tfence.acq_rel.cta;\n" + BAR + "\tfence.acq_rel.cta;\n"),
    "H": new.replace(BAR, BAR + "\tfence.acq_rel.cta;\n"),
    # the design plus b6516ea's block-start load of hw
    "I": new.replace(COPY_AT_START, COPY_AT_START +
                     "\t@__coloc_hlead ld.volatile.global.u32\t__coloc_hw, [__coloc_stopp];\n"),
    # the design plus a load after each meeting into a register nobody reads
    "J": new.replace(COPY_AFTER_MEETING, COPY_AFTER_MEETING +
                     "\t@__coloc_hlead ld.volatile.global.u32\t__coloc_hx, [__coloc_stopp];\n")
            .replace(MIRROR_DECL, MIRROR_DECL + "\t.reg .b32 __coloc_hx;\n"),
}
# K: the design, the leader (and the leader that copies) decided afresh from %tid, the ring
# pointer and the batch at every use instead of long-lived predicates (call 11)
FRESH = ("\tmov.u32\t__coloc_lk, %tid.x;\n\tmov.u32\t__coloc_lk2, %tid.y;\n"
         "\tor.b32\t__coloc_lk, __coloc_lk, __coloc_lk2;\n\tmov.u32\t__coloc_lk2, %tid.z;\n"
         "\tor.b32\t__coloc_lk, __coloc_lk, __coloc_lk2;\n\tsetp.eq.u32\t__coloc_lp, __coloc_lk, 0;\n")
HFRESH = ("\tsetp.ne.u64\t__coloc_hp, __coloc_redop, 0;\n"
          "\tsetp.eq.and.u32\t__coloc_hp, __coloc_nbatch, 1, __coloc_hp;\n"
          "\tand.pred\t__coloc_hp, __coloc_hp, __coloc_lp;\n")
COPY = "\t@__coloc_hlead cp.async.cg.shared.global\t[__coloc_mirror], [__coloc_stopp], 16;\n"
BEFORE = ("\t@__coloc_leader ld.shared.u32\t__coloc_hw, [__coloc_mirror];\n"
          "\t@__coloc_leader st.shared.u32\t[__coloc_haltp], __coloc_hw;\n")
variants["K"] = (new.replace(BEFORE, FRESH + BEFORE.replace("__coloc_leader", "__coloc_lp"))
                 .replace(COPY, FRESH + HFRESH + COPY.replace("__coloc_hlead", "__coloc_hp"))
                 .replace(MIRROR_DECL, MIRROR_DECL + "\t.reg .b32 __coloc_lk, __coloc_lk2;\n"
                          "\t.reg .pred __coloc_lp, __coloc_hp;\n"))
for name, text in variants.items():
    with open(os.path.join(out, name + ".ptx"), "w") as f:
        f.write(text)
