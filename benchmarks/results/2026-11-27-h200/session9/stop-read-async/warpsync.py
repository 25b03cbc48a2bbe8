import sys
src, dst = sys.argv[1:3]
t = open(src).read()
MASK = ("\tmov.u32\t__coloc_wt, %ntid.x;\n\tmov.u32\t__coloc_wn, %ntid.y;\n\tmul.lo.u32\t__coloc_wt, __coloc_wt, __coloc_wn;\n"
        "\tmov.u32\t__coloc_wn, %ntid.z;\n\tmul.lo.u32\t__coloc_wt, __coloc_wt, __coloc_wn;\n"
        "\tmov.u32\t__coloc_wn, %tid.z;\n\tmov.u32\t__coloc_wm, %ntid.y;\n\tmul.lo.u32\t__coloc_wn, __coloc_wn, __coloc_wm;\n"
        "\tmov.u32\t__coloc_wm, %tid.y;\n\tadd.u32\t__coloc_wn, __coloc_wn, __coloc_wm;\n"
        "\tmov.u32\t__coloc_wm, %ntid.x;\n\tmul.lo.u32\t__coloc_wn, __coloc_wn, __coloc_wm;\n"
        "\tmov.u32\t__coloc_wm, %tid.x;\n\tadd.u32\t__coloc_wn, __coloc_wn, __coloc_wm;\n"
        "\tand.b32\t__coloc_wn, __coloc_wn, -32;\n\tsub.u32\t__coloc_wt, __coloc_wt, __coloc_wn;\n"
        "\tmin.u32\t__coloc_wt, __coloc_wt, 32;\n\tmov.u32\t__coloc_wm, 1;\n\tshl.b32\t__coloc_wm, __coloc_wm, __coloc_wt;\n"
        "\tsub.u32\t__coloc_wm, __coloc_wm, 1;\n")
parts = t.split("\n.visible .entry ")
n = 0
for i, p in enumerate(parts):
    if "ptb_" in p.split("(")[0] and "__coloc_sync:\n" in p and "__coloc_halt[2]" in p:
        p = p.replace("\t.shared .align 8 .b32 __coloc_halt[2];\n",
                      "\t.shared .align 8 .b32 __coloc_halt[2];\n\t.reg .b32 __coloc_wm, __coloc_wt, __coloc_wn;\n", 1)
        p = p.replace("__coloc_next:\n", MASK + "__coloc_next:\n", 1)
        p = p.replace("__coloc_sync:\n", "__coloc_sync:\n\tbar.warp.sync\t__coloc_wm;\n", 1)
        parts[i] = p
        n += 1
open(dst, "w").write("\n.visible .entry ".join(parts))
print("kernels", n)
