#!/usr/bin/env bash
# Static checks of the GPU test kernels (no GPU needed).
#
#   testsuite/gpu/kernels/check-kernels.sh [-o DIR] [FILE.cu ...]
#
# For every kernel file (all *.cu here by default):
#   1. nvcc -ptx -arch=sm_90 FILE.cu -o X.ptx
#   2. colocc --verify --passes=slice,unisync,ptb X.ptx -o Y.ptx (exit 0, or 3
#      when a kernel is refused a form; the manifest says which and why)
#   3. ptxas -arch=sm_90 Y.ptx -o /dev/null
# and then, per kernel and per case:
#   - every kernel got slice and ptb (and unisync when it has barriers), unless
#     one of its cases says no-slice / no-ptb; a refusal of a kernel marked
#     "// COLOCC-ISSUE: <kernel>: ..." is listed as a known colocc issue (a
#     marker naming a case lists an issue that only a GPU run can show);
#   - every CASE line is well formed, names a kernel of its file, stays inside
#     the limits (4096 blocks unless exactly-once, 1024 threads, 227 KB of
#     dynamic shared memory), and its PARAM lines match the kernel's C
#     signature (buffer element type for pointers, scalar type otherwise) and
#     its PTX parameter list;
#   - case names are unique and every kernel has at least one case.
# It prints one line per kernel and a summary, and exits 1 on any failure
# that is not a known colocc issue.
#
# colocc is built once with "cmake -S <repo> -B $COLOCC_BUILD -G Ninja" and
# ninja (default build folder /tmp/kbuild); COLOCC=/path/to/colocc skips the
# build.  NVCC and PTXAS name other tools.  -o DIR keeps the PTX, the
# transformed PTX, the manifests and the logs (a temporary folder otherwise).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
nvcc=${NVCC:-nvcc}
ptxas=${PTXAS:-ptxas}
keep=
while getopts "o:h" opt; do
	case $opt in
	o) keep=$OPTARG ;;
	*) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

if [ -n "$keep" ]; then
	mkdir -p "$keep" || exit 2
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/check-kernels.XXXXXX") || exit 2
	trap 'rm -rf "$work"' EXIT
fi

if [ -z "${COLOCC:-}" ]; then
	build=${COLOCC_BUILD:-/tmp/kbuild}
	if ! { cmake -S "$root" -B "$build" -G Ninja >/dev/null && ninja -C "$build" >"$work/build.log" 2>&1; }; then
		echo "error: building colocc in $build failed (see $work/build.log)" >&2
		tail -20 "$work/build.log" >&2
		exit 2
	fi
	COLOCC=$build/colocc
fi

if [ $# -eq 0 ]; then
	set -- "$here"/*.cu
fi

# Per file: FILE<TAB>nvcc-rc<TAB>colocc-rc<TAB>ptxas-rc, for the case checker.
: >"$work/steps.tsv"
for src in "$@"; do
	name=$(basename "$src" .cu)
	x=$work/$name.ptx y=$work/$name.colocc.ptx
	nrc=0 crc=-1 prc=-1
	"$nvcc" -ptx -arch=sm_90 "$src" -o "$x" >"$work/$name.nvcc.log" 2>&1 || nrc=$?
	if [ "$nrc" -eq 0 ]; then
		crc=0
		"$COLOCC" --verify --passes=slice,unisync,ptb "$x" -o "$y" \
			--manifest="$work/$name.manifest.json" >"$work/$name.colocc.log" 2>&1 || crc=$?
		if [ "$crc" -eq 0 ] || [ "$crc" -eq 3 ]; then
			prc=0
			"$ptxas" -arch=sm_90 "$y" -o /dev/null >"$work/$name.ptxas.log" 2>&1 || prc=$?
		fi
	fi
	printf '%s\t%s\t%s\t%s\n' "$src" "$nrc" "$crc" "$prc" >>"$work/steps.tsv"
done

python3 - "$work" <<'EOF'
import json, os, re, sys

work = sys.argv[1]
SCALAR = {"i32", "u32", "i64", "u64", "f32", "f64"}
ELEM = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8,
        "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
FLAGS = {"exactly-once", "no-slice", "no-ptb"}
# C type words -> element type; vector types map to their element.
CTYPE = [
    (r"unsigned\s+long\s+long(\s+int)?", "u64"), (r"(signed\s+)?long\s+long(\s+int)?", "i64"),
    (r"unsigned\s+short(\s+int)?", "u16"), (r"(signed\s+)?short(\s+int)?", "i16"),
    (r"unsigned\s+char", "u8"), (r"signed\s+char", "i8"), (r"char", "i8"),
    (r"unsigned(\s+int)?", "u32"), (r"(signed\s+)?int", "i32"), (r"size_t", "u64"),
    (r"double", "f64"), (r"float[1-4]?", "f32"), (r"__half2?|half2?", "f16"),
    (r"__nv_bfloat162?", "bf16"), (r"uint[1-4]", "u32"), (r"int[1-4]", "i32"),
    (r"(u?int(8|16|32|64))_t", None),
]
PTX_OK = {"buf": {".u64", ".b64", ".s64"}, "i32": {".u32", ".s32", ".b32"},
          "u32": {".u32", ".s32", ".b32"}, "i64": {".u64", ".s64", ".b64"},
          "u64": {".u64", ".s64", ".b64"}, "f32": {".f32"}, "f64": {".f64"}}

def ctype(words):
    w = " ".join(words.replace("const", " ").replace("volatile", " ").replace("__restrict__", " ").split())
    for pat, t in CTYPE:
        m = re.fullmatch(pat, w)
        if m:
            if t is None:
                g = m.group(1)
                return ("u" if g.startswith("u") else "i") + re.sub(r"\D", "", g)
            return t
    return None

def c_signatures(text):
    """kernel -> list of (is_pointer, elem type or None) from extern "C" __global__ definitions."""
    sigs = {}
    pat = re.compile(r'extern\s+"C"\s+__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+(\w+)\s*\(([^)]*)\)')
    for m in pat.finditer(text):
        params = []
        body = m.group(2).strip()
        if body and body != "void":
            for p in body.split(","):
                p = re.sub(r"/\*.*?\*/", "", p).strip()
                ptr = "*" in p
                p = p.replace("*", " ")
                words = p.split()
                words = words[:-1] if len(words) > 1 else words  # drop the name
                params.append((ptr, ctype(" ".join(words))))
        sigs[m.group(1)] = params
    return sigs

def ptx_entries(path):
    ents = {}
    try:
        text = open(path).read()
    except OSError:
        return ents
    for m in re.finditer(r"\.entry\s+(\w+)\s*\(([^)]*)\)", text):
        ents[m.group(1)] = re.findall(r"\.param\s+(\.\w+)", m.group(2))
    for m in re.finditer(r"\.entry\s+(\w+)\s*\(\s*\)", text):
        ents.setdefault(m.group(1), [])
    return ents

def parse_int(s):
    return int(s, 0)

def check_init(init, ty, errs, where):
    if init in ("zero", "iota", "rand"):
        return
    if init.startswith("randint:"):
        parts = init.split(":")
        if len(parts) != 3:
            errs.append(f"{where}: randint needs randint:<lo>:<hi>")
            return
        try:
            lo, hi = parse_int(parts[1]), parse_int(parts[2])
        except ValueError:
            errs.append(f"{where}: randint bounds must be integers")
            return
        if lo > hi:
            errs.append(f"{where}: randint lo > hi")
        if ty[0] in "iu":
            bits = ELEM[ty] * 8
            lo_ok, hi_ok = (0, 2**bits - 1) if ty[0] == "u" else (-2**(bits - 1), 2**(bits - 1) - 1)
            if lo < lo_ok or hi > hi_ok:
                errs.append(f"{where}: randint range outside {ty}")
        return
    if init.startswith("const:"):
        v = init[6:]
        try:
            if ty[0] in "iu":
                x = parse_int(v)
                bits = ELEM[ty] * 8
                lo_ok, hi_ok = (0, 2**bits - 1) if ty[0] == "u" else (-2**(bits - 1), 2**(bits - 1) - 1)
                if not lo_ok <= x <= hi_ok:
                    errs.append(f"{where}: const outside {ty}")
            else:
                float(v)
        except ValueError:
            errs.append(f"{where}: bad const value '{v}'")
        return
    errs.append(f"{where}: unknown init '{init}'")

def parse_dims(s, what, errs, where):
    try:
        d = [int(x) for x in s.split(",")]
    except ValueError:
        errs.append(f"{where}: bad {what} '{s}'")
        return None
    if not 1 <= len(d) <= 3 or min(d) < 1:
        errs.append(f"{where}: bad {what} '{s}'")
        return None
    return d + [1] * (3 - len(d))

steps = [l.rstrip("\n").split("\t") for l in open(os.path.join(work, "steps.tsv"))]
failures, issues, notes = [], [], []
all_case_names = {}
rows = []
nkernels = ncases = 0

for src, nrc, crc, prc in steps:
    base = os.path.basename(src)[:-3]
    text = open(src).read()
    lines = text.splitlines()
    sigs = c_signatures(text)
    ents = ptx_entries(os.path.join(work, base + ".ptx"))
    issue_kernels = {}
    for l in lines:
        m = re.match(r"\s*//\s*COLOCC-ISSUE:\s*([\w-]+)\s*:(.*)", l)
        if m:
            issue_kernels[m.group(1)] = m.group(2).strip()
    if nrc != "0":
        failures.append(f"{base}: nvcc failed (rc {nrc}), see {base}.nvcc.log")
        log = open(os.path.join(work, base + ".nvcc.log")).read().strip().splitlines()
        failures.extend("    " + x for x in log[:10])
    if crc not in ("0", "3", "-1"):
        failures.append(f"{base}: colocc failed (rc {crc})")
        log = open(os.path.join(work, base + ".colocc.log")).read().strip().splitlines()
        failures.extend("    " + x for x in log[:10])
    ptxas_bad = {}
    ptxas_other = []
    if prc not in ("0", "-1"):
        log = open(os.path.join(work, base + ".ptxas.log")).read().strip().splitlines()
        for x in log:
            m = re.search(r"'__coloc_(slice|unisync|ptb)_(\w+)'", x) or re.search(r"'(\w+)'", x)
            if m and m.lastindex == 2:
                ptxas_bad.setdefault(m.group(2), []).append((m.group(1), x))
            elif m:
                ptxas_bad.setdefault(m.group(1), []).append(("original", x))
            else:
                ptxas_other.append(x)
        if ptxas_other or not ptxas_bad:
            failures.append(f"{base}: ptxas failed (rc {prc})")
            failures.extend("    " + x for x in (ptxas_other or log)[:10])

    manifest = {}
    mpath = os.path.join(work, base + ".manifest.json")
    if os.path.exists(mpath):
        for k in json.load(open(mpath))["kernels"]:
            manifest[k["name"]] = k

    # ---- cases
    cases = []
    cur = None
    for ln, l in enumerate(lines, 1):
        m = re.match(r"\s*//\s*(CASE|PARAM):\s*(.*)$", l)
        if not m:
            continue
        where = f"{base}.cu:{ln}"
        if m.group(1) == "CASE":
            kv = {}
            for tok in m.group(2).split():
                if "=" not in tok:
                    failures.append(f"{where}: CASE token '{tok}' is not key=value")
                    continue
                k, v = tok.split("=", 1)
                if k in kv:
                    failures.append(f"{where}: CASE key '{k}' given twice")
                kv[k] = v
            cur = {"where": where, "kv": kv, "params": []}
            cases.append(cur)
        else:
            if cur is None:
                failures.append(f"{where}: PARAM before any CASE")
                continue
            cur["params"].append((where, m.group(2).split()))

    kernel_flags = {}
    for c in cases:
        kv, where = c["kv"], c["where"]
        errs = []
        for k in kv:
            if k not in ("name", "kernel", "grid", "block", "smem", "tol", "flags"):
                errs.append(f"{where}: unknown CASE key '{k}'")
        name, kern = kv.get("name"), kv.get("kernel")
        if not name or not kern or "grid" not in kv or "block" not in kv:
            errs.append(f"{where}: CASE needs name=, kernel=, grid= and block=")
            failures.extend(errs)
            continue
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            errs.append(f"{where}: case name '{name}' has odd characters")
        if name in all_case_names:
            errs.append(f"{where}: case name '{name}' also used at {all_case_names[name]}")
        all_case_names[name] = where
        flags = set(kv["flags"].split(",")) if "flags" in kv else set()
        for f in flags - FLAGS:
            errs.append(f"{where}: unknown flag '{f}'")
        kernel_flags.setdefault(kern, set()).update(flags)
        if kern not in sigs:
            errs.append(f"{where}: kernel '{kern}' is not an extern \"C\" __global__ function of {base}.cu")
        elif ents and kern not in ents:
            errs.append(f"{where}: kernel '{kern}' is not an .entry of the PTX")
        grid = parse_dims(kv["grid"], "grid", errs, where)
        block = parse_dims(kv["block"], "block", errs, where)
        nblocks = grid[0] * grid[1] * grid[2] if grid else 0
        nthreads = block[0] * block[1] * block[2] if block else 0
        if block and (nthreads > 1024 or block[2] > 64):
            errs.append(f"{where}: block {kv['block']} is over 1024 threads (or z > 64)")
        if grid and (grid[1] > 65535 or grid[2] > 65535):
            errs.append(f"{where}: grid y/z over 65535")
        if "exactly-once" in flags:
            if not 50000 <= nblocks <= 200000:
                errs.append(f"{where}: exactly-once case with {nblocks} blocks (about 100000 wanted)")
            if block and not 32 <= nthreads <= 128:
                errs.append(f"{where}: exactly-once case with {nthreads} threads per block (32-128)")
        elif nblocks > 4096:
            errs.append(f"{where}: {nblocks} blocks (limit 4096)")
        if "smem" in kv:
            try:
                sm = int(kv["smem"])
                if not 0 <= sm <= 232448:
                    errs.append(f"{where}: smem {sm} outside 0..232448")
            except ValueError:
                errs.append(f"{where}: bad smem '{kv['smem']}'")
        if "tol" in kv:
            try:
                if not float(kv["tol"]) > 0:
                    errs.append(f"{where}: tol must be > 0")
            except ValueError:
                errs.append(f"{where}: bad tol '{kv['tol']}'")
        # parameters
        sig = sigs.get(kern)
        ptxp = ents.get(kern)
        if sig is not None and len(c["params"]) != len(sig):
            errs.append(f"{where}: {len(c['params'])} PARAM lines for {len(sig)} kernel parameters")
        total_bytes = 0
        nbufs = 0
        for idx, (pw, toks) in enumerate(c["params"]):
            cp = sig[idx] if sig is not None and idx < len(sig) else None
            pp = ptxp[idx] if ptxp is not None and idx < len(ptxp) else None
            if toks and toks[0] == "buf":
                nbufs += 1
                if len(toks) != 4:
                    errs.append(f"{pw}: buf needs <type> <count> <init>")
                    continue
                ty, cnt, init = toks[1], toks[2], toks[3]
                if ty not in ELEM:
                    errs.append(f"{pw}: unknown buffer type '{ty}'")
                    continue
                try:
                    n = int(cnt)
                    if n < 1:
                        raise ValueError
                    total_bytes += n * ELEM[ty]
                except ValueError:
                    errs.append(f"{pw}: bad count '{cnt}'")
                check_init(init, ty, errs, pw)
                if cp is not None:
                    if not cp[0]:
                        errs.append(f"{pw}: buf for a parameter that is not a pointer")
                    elif cp[1] is None:
                        notes.append(f"{pw}: pointer element type not recognised, not checked")
                    elif cp[1] != ty:
                        errs.append(f"{pw}: buf {ty} for a pointer to {cp[1]}")
                if pp is not None and pp not in PTX_OK["buf"]:
                    errs.append(f"{pw}: buf for a PTX {pp} parameter")
            elif toks:
                ty = toks[0]
                if ty not in SCALAR or len(toks) != 2:
                    errs.append(f"{pw}: scalar PARAM must be '<{'|'.join(sorted(SCALAR))}> <value>'")
                    continue
                try:
                    if ty[0] in "iu":
                        x = parse_int(toks[1])
                        bits = int(ty[1:])
                        lo, hi = (0, 2**bits - 1) if ty[0] == "u" else (-2**(bits - 1), 2**(bits - 1) - 1)
                        if not lo <= x <= hi:
                            errs.append(f"{pw}: {x} does not fit {ty}")
                    else:
                        float(toks[1])
                except ValueError:
                    errs.append(f"{pw}: bad {ty} value '{toks[1]}'")
                if cp is not None:
                    if cp[0]:
                        errs.append(f"{pw}: scalar for a pointer parameter")
                    elif cp[1] is not None and cp[1] != ty:
                        errs.append(f"{pw}: {ty} for a C parameter of type {cp[1]}")
                if pp is not None and pp not in PTX_OK[ty]:
                    errs.append(f"{pw}: {ty} for a PTX {pp} parameter")
            else:
                errs.append(f"{pw}: empty PARAM")
        if "exactly-once" in flags and nbufs != 1:
            errs.append(f"{where}: exactly-once kernels take exactly one buffer (the counters)")
        if total_bytes > (512 << 20):
            errs.append(f"{where}: {total_bytes >> 20} MB of buffers")
        failures.extend(errs)
        ncases += 1

    # ---- kernels and forms
    for kern in sigs:
        nkernels += 1
        flags = kernel_flags.get(kern, set())
        ncase = sum(1 for c in cases if c["kv"].get("kernel") == kern)
        if ncase == 0:
            failures.append(f"{base}: kernel '{kern}' has no CASE")
        k = manifest.get(kern)
        status = {}
        state = "ok"
        msgs = []
        if k is None:
            if nrc == "0" and crc in ("0", "3"):
                msgs.append(f"{base}: kernel '{kern}' missing from the colocc manifest")
                state = "FAIL"
            else:
                state = "FAIL"
        else:
            for form in ("slice", "unisync", "ptb"):
                f = k["forms"].get(form, {})
                status[form] = f.get("status", "?")
            want = {"slice": "no-slice" not in flags, "ptb": "no-ptb" not in flags}
            want["unisync"] = want["ptb"]
            for form in ("slice", "unisync", "ptb"):
                st = status[form]
                good = st == "applied" or (form == "unisync" and st == "not-needed")
                if want[form] and not good:
                    reason = k["forms"][form].get("reason", st)
                    line = k["forms"][form].get("line", "?")
                    msgs.append(f"{base}: kernel '{kern}': {form} {st} at PTX line {line}: {reason}")
                    state = "FAIL"
                elif not want[form] and good and form != "unisync":
                    notes.append(f"{base}: kernel '{kern}' is flagged no-{form} but colocc applied {form}: stale flag?")
        for form, line in ptxas_bad.get(kern, []):
            msgs.append(f"{base}: kernel '{kern}': ptxas rejects the {form} form: {line.strip()}")
            state = "FAIL"
        if state == "FAIL" and kern in issue_kernels:
            state = "ISSUE"
            issues.extend(msgs)
        else:
            failures.extend(msgs)
        if state == "ok" and kern in issue_kernels:
            notes.append(f"{base}: kernel '{kern}' is marked COLOCC-ISSUE but passes now: drop the marker")
        expected = sorted(f for f in ("no-slice", "no-ptb") if f in flags)
        rows.append((base, kern, ncase, status.get("slice", "-"), status.get("unisync", "-"),
                     status.get("ptb", "-"), state + (" (" + ",".join(expected) + ")" if expected else "")))
    case_names = {c["kv"].get("name") for c in cases}
    for name in issue_kernels:
        if name in case_names:
            issues.append(f"{base}: case '{name}' (shows only on the GPU): {issue_kernels[name]}")
        elif name not in sigs:
            notes.append(f"{base}: COLOCC-ISSUE marker for unknown kernel or case '{name}'")

w = max(len(r[0]) + len(r[1]) for r in rows) + 3 if rows else 20
print(f"{'file: kernel':<{w}} cases  slice     unisync     ptb       result")
for base, kern, nc, s, u, p, st in rows:
    print(f"{base + ': ' + kern:<{w}} {nc:>5}  {s:<9} {u:<11} {p:<9} {st}")
print()
for n in notes:
    print("note:", n)
if issues:
    print("\nknown colocc issues (kernels marked COLOCC-ISSUE):")
    for m in issues:
        print("  " + m)
if failures:
    print("\nFAILURES:")
    for m in failures:
        print("  " + m)
nfiles = len(steps)
print(f"\nsummary: {nfiles} files, {nkernels} kernels, {ncases} cases; "
      f"{sum(1 for r in rows if r[6].startswith('ok'))} kernels ok, "
      f"{sum(1 for r in rows if r[6].startswith('ISSUE'))} known colocc issues, "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)
EOF
