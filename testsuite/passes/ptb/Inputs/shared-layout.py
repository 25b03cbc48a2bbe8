"""Checks that fresh variants and capped copies declare their looping variant's shared variables.

usage: shared-layout.py MODULE.ptx

A block the fresh variant __coloc_fresh_K saves is restored by the looping
variant __coloc_ptb_K (passes/ptb.c), and a saved register may hold the
address of one of the kernel's shared variables: both must place them alike,
and so must the register-capped copies of either (__coloc_cap<N>_fresh_K,
__coloc_cap<N>_ptb_K), which the runtime may launch in their place.
ptxas is not told where to put them, so the two entries must give it the
same input: the same .shared declarations in the same order, each first
named in the same order.  Prints one line a pair; exits 1 at the first pair
that differs, saying how.
"""
import re
import sys

# The entries whose blocks the looping variant __coloc_ptb_K may restore, or
# that may restore its blocks: the fresh variant, and the register-capped
# copies (passes/regcap.h) the runtime picks instead of either.
PAIRED = re.compile(r"__coloc_(?:cap[1-9][0-9]*_)?(?:fresh|ptb)_")
ENTRY = re.compile(r"^\.visible \.entry (\S+)\(", re.M)
SHARED = re.compile(r"^\s*\.shared\s.*?([A-Za-z_$%][\w$]*)\s*(\[\d*\])?\s*;", re.M)


def entries(text):
    """Each entry's text, from its name to the brace that closes its body."""
    found = {}
    for m in ENTRY.finditer(text):
        end = text.find("\n}", m.start())
        found[m.group(1)] = text[m.start():end if end >= 0 else len(text)]
    return found


def layout(body):
    decls = [m.group(0).strip() for m in SHARED.finditer(body)]
    names = [m.group(1) for m in SHARED.finditer(body)]
    uses = []
    for line in body.splitlines():
        if line.strip().startswith(".shared"):
            continue
        for n in names:
            if n not in uses and re.search(r"(?<![\w$])" + re.escape(n) + r"(?![\w$])", line):
                uses.append(n)
    return decls, uses


def main():
    text = open(sys.argv[1]).read()
    found = entries(text)
    pairs = 0
    for name in sorted(found):
        m = PAIRED.match(name)
        if not m or name.startswith("__coloc_ptb_"):
            continue
        loop = "__coloc_ptb_" + name[m.end():]
        if loop not in found:
            print(f"{name}: no looping variant {loop}")
            return 1
        fd, fu = layout(found[name])
        ld, lu = layout(found[loop])
        if fd != ld:
            print(f"{name}: shared declarations differ from {loop}: {fd} against {ld}")
            return 1
        if fu != lu:
            print(f"{name}: shared variables first named in another order than in {loop}: "
                  f"{fu} against {lu}")
            return 1
        pairs += 1
        print(f"{name}: same shared layout as {loop} ({len(fd)} variables)")
    print(f"{pairs} pairs")
    return 0


sys.exit(main())
