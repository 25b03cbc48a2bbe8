"""Hand-made persistent variants, to measure a design before the passes build it.

colocc's persistent form (passes/ptb.c) runs the kernel's body inside a loop
(take a virtual block, run it, take the next), and in its restart and resume
forms a stopped block's decision goes through a second barrier reduction over
the threads' dirty flags.  ptxas gives the trainer's GEMM 126 registers in the
original and the unisync form, but 162-177 in every persistent form, so its
register-capped copy (128, two blocks an SM) spills 116-212 bytes.  Taken one
at a time on that GEMM (ptxas 13.0, sm_90), four things each raise the count
from about 130 to 170: the loop's back edge, the halting path's second
`barrier.red`, a second shared store on the take path (the resume slot), and
the restore path.  This module rewrites colocc's output text to take the
first three out, so that their cost can be timed on the GPU:

  once(ptx)    each __coloc_ptb_ entry gets a copy __coloc_once_K that runs
               one virtual block a worker and leaves (no loop: launched with
               a grid of the kernel's blocks and park 0); the dirty flags
               reach the halting decision through a shared word set at every
               meeting instead of a second reduction; the resume slot travels
               with the block's id in one vector store.
  once(ptx, fresh=True)  the same, as __coloc_fresh_K, taking no block from
               the redo ring: a block given up (and saved) waits there for a
               launch of the looping form, and the copy has no restore path.
               colocc makes __coloc_fresh_K itself since cache format 10
               (ptb.c); gemm_forms.py uses colocc's where the module has it.
  capped(ptx, prefix, n)  copies of the entries named prefix... with
               `.maxnreg n`, as __coloc_cap_<name> (this script's own names:
               colocc's copies are __coloc_cap<N>_<form>_K since cache
               format 13, passes/regcap.h).

Nothing here is used by colocc; gemm_forms.py times what it makes.  The
rewrite matches colocc's output line by line and stops with an error when a
line it expects is missing.
"""
import re

def entries(ptx, prefix):
    """(name, text) of every entry whose name starts with prefix."""
    out = []
    for m in re.finditer(r"\.visible \.entry (\w+)\(", ptx):
        name = m.group(1)
        if not name.startswith(prefix):
            continue
        end = ptx.index("\n}\n", m.start()) + 3
        out.append((name, ptx[m.start():end]))
    return out


def only(ptx, word):
    """ptx without the entries whose names do not contain word."""
    for name, text in entries(ptx, ""):
        if word not in name:
            ptx = ptx.replace(text, "", 1)
    return ptx


def _replace(text, old, new, count=None, what=""):
    n = text.count(old)
    if n == 0 or (count is not None and n != count):
        raise ValueError(f"once: expected {count or 'some'} of {what or old!r}, found {n}")
    return text.replace(old, new)


def once_entry(name, text, fresh=False):
    """The one-block-a-worker copy of one persistent entry; fresh: one that
    takes no block from the redo ring (blocks given up there wait for a
    launch of the looping form) and so has no restore path."""
    t = text.replace(f".visible .entry {name}(", (".visible .entry __coloc_fresh_" if fresh else
                                                   ".visible .entry __coloc_once_") +
                     name[len("__coloc_ptb_"):] + "(", 1)
    if fresh:
        i = t.find("\t@!__coloc_canhalt bra\t__coloc_fresh;\n__coloc_pop:\n")
        j = t.find("__coloc_fresh:\n")
        if i < 0 or j < i:
            raise ValueError("once: no ring pop in " + name)
        t = t[:i] + t[j:]
        t = t.replace("\t@__coloc_resuming bra\t__coloc_restore;\n", "")
    resume = "[__coloc_halt+12]" in t
    # The dirty flags through a shared word (colocc's __coloc_halt+8, as its
    # own fresh variant), not a second reduction.
    meet = "\tbarrier.red.or.pred\t__coloc_any_sync, 0, __coloc_is_sync;"
    if "__coloc_dirty" in t:
        t = _replace(t, meet, "\t@__coloc_dirty st.shared.u32\t[__coloc_halt+8], 1;\n" + meet)
        t = _replace(t, "\tbarrier.red.or.pred\t__coloc_hq, 0, __coloc_dirty;\n",
                     "\tld.shared.u32\t__coloc_ht, [__coloc_halt+8];\n"
                     "\tsetp.ne.u32\t__coloc_hq, __coloc_ht, 0;\n", count=1)
        t = _replace(t, "__coloc_next:\n",
                     "\t@__coloc_leader st.shared.u32\t[__coloc_halt+8], 0;\n__coloc_next:\n", count=1)
    # No loop: after its block a worker counts it done and leaves.
    t = _replace(t, "\tbra\t__coloc_next;", "\tbra\t__coloc_fin;")
    t = _replace(t, "__coloc_exit:\n",
                 "__coloc_fin:\n\tbarrier.sync\t0;\n"
                 "\tand.pred\t__coloc_count, __coloc_prev, __coloc_leader;\n"
                 "\t@__coloc_count red.release.gpu.global.add.u32\t[__coloc_ctl+4], 1;\n"
                 "__coloc_exit:\n", count=1)
    if resume:
        t = _replace(t, "\t.shared .align 4 .b32 __coloc_slot[2];",
                     "\t.shared .align 8 .b32 __coloc_slot[4];\n\t.reg .b32 __coloc_rsv;", count=1)
        t = _replace(t, "\tshl.b32\t__coloc_t, __coloc_parity, 2;\n\tmov.u32\t__coloc_slotp, __coloc_slot;",
                     "\tshl.b32\t__coloc_t, __coloc_parity, 3;\n\tmov.u32\t__coloc_slotp, __coloc_slot;",
                     count=1)
        t = _replace(t, "__coloc_took:\n\tst.shared.u32\t[__coloc_slotp], __coloc_vid;\n",
                     "__coloc_took:\n\tst.shared.v2.u32\t[__coloc_slotp], {__coloc_vid, __coloc_rsv};\n",
                     count=1)
        t = _replace(t, "\tst.shared.u32\t[__coloc_halt+12], 0;\n", "\tmov.u32\t__coloc_rsv, 0;\n", count=1)
        if not fresh:
            t = _replace(t, "\tst.shared.u32\t[__coloc_halt+12], __coloc_t;\n\tsub.u32\t__coloc_vid",
                         "\tmov.u32\t__coloc_rsv, __coloc_t;\n\tsub.u32\t__coloc_vid", count=1)
        t = _replace(t, "\tld.shared.u32\t__coloc_vid, [__coloc_slotp];\n"
                     "\tld.shared.u32\t__coloc_rs, [__coloc_halt+12];\n",
                     "\tld.shared.v2.u32\t{__coloc_vid, __coloc_rs}, [__coloc_slotp];\n", count=1)
    return t


def once(ptx, prefix="__coloc_ptb_", fresh=False):
    """ptx with a __coloc_once_ (fresh: __coloc_fresh_) copy of every persistent entry."""
    return ptx + "".join(once_entry(n, t, fresh) for n, t in entries(ptx, prefix))


def capped(ptx, prefix, regs):
    """ptx with a copy of every entry named prefix... capped at regs registers."""
    add = []
    for name, text in entries(ptx, prefix):
        t = text.replace(f".visible .entry {name}(",
                         f".visible .entry __coloc_cap_{name[len('__coloc_'):]}(", 1)
        t = t.replace("\n)\n{\n", f"\n)\n.maxnreg {regs}\n{{\n", 1)
        add.append(t)
    return ptx + "".join(add)
