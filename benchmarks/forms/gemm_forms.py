#!/usr/bin/env python3
"""Times the GPT trainer's GEMM in each persistent form against the original.

usage: gemm_forms.py [--reps N] [--shapes LIST] MODULE.ptx... OUT

Each MODULE is PTX with the trainer's gemm_bf16_kernel instantiations and
colocc's variants of them (colocc --passes=unisync,ptb [--ptb-resume]); the
script adds the hand-made copies of variants.py (a register-capped copy of
every persistent entry, a one-block-a-worker copy and its capped copy), has
the driver compile the module, and for each trainer GEMM shape launches the
original and every form on the same random inputs, with nothing stopping
them.  Every form's output must equal the original's byte for byte (the
forms run the same code per block); the times are the fastest of N runs,
with CUDA events.  OUT gets results.json and a table (results.md), which is
also printed.

How a form is launched, as the runtime would (runtime/launch.c):
  ptb      W workers: the device's wave at the entry's occupancy, park 1
  once     a worker per block (a 1-D grid of the kernel's blocks), park 0
  fresh    (resume modules) as once, taking no block from the redo ring
All get a zeroed 16-byte control header and stop record, a zeroed redo ring
(so that blocks read the stop word at every meeting, as under the runtime)
and no save area (nothing is stopped, so no block saves).  The capped copies
of once and fresh are also launched once more with the stop word set beforehand ("stopped
before it starts"): every worker leaves at its first take, which is what a
stop leaves behind it on the GPU (a once launch's workers not yet started).

The shapes are the long trainer's (benchmarks/suite/gpt_train.cu: 40,960
tokens, width 4,096): nn forward (Y = X W), nt input gradient (dX = dY W^T),
tn weight gradient (dW = X^T dY), each as the trainer launches it.
"""
import argparse
import ctypes as C
import hashlib
import re
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import variants  # noqa: E402

# name: (TA, TB, OUT_BF16, M, N, K)
SHAPES = {
    "nn_qkv": (0, 0, 1, 40960, 12288, 4096),
    "nn_fc2": (0, 0, 0, 40960, 4096, 16384),
    "nt_dx": (0, 1, 0, 40960, 4096, 4096),
    "tn_dw": (1, 0, 0, 4096, 4096, 40960),
}
BM = BN = 128
THREADS = 256
REDO_WORDS = 1 << 16

cu = None  # libcuda, loaded by main (--emit needs no GPU)
np = None


def check(rc, what):
    if rc != 0:
        name = C.c_char_p()
        cu.cuGetErrorName(rc, C.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else rc}")


def mangled(ta, tb, ob):
    b = lambda x: "1" if x else "0"  # noqa: E731
    return f"_Z16gemm_bf16_kernelILb{b(ta)}ELb{b(tb)}ELb{b(ob)}EEv9gemm_args"


def alloc(n):
    p = C.c_uint64()
    check(cu.cuMemAlloc_v2(C.byref(p), C.c_size_t(n)), "cuMemAlloc")
    return p.value


def upload(host):
    p = alloc(host.nbytes)
    check(cu.cuMemcpyHtoD_v2(C.c_uint64(p), host.ctypes.data_as(C.c_void_p), C.c_size_t(host.nbytes)),
          "cuMemcpyHtoD")
    return p


def zero(p, n):
    check(cu.cuMemsetD8_v2(C.c_uint64(p), C.c_ubyte(0), C.c_size_t(n)), "cuMemsetD8")


def digest(p, n):
    host = np.empty(n, dtype=np.uint8)
    check(cu.cuMemcpyDtoH_v2(host.ctypes.data_as(C.c_void_p), C.c_uint64(p), C.c_size_t(n)),
          "cuMemcpyDtoH")
    return hashlib.sha256(host.tobytes()).hexdigest()


def random_bf16(rng, n):
    f = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    return (f.view(np.uint32) >> 16).astype(np.uint16)


def build_module(ptx):
    """The GEMM entries of ptx and their variants, with variants.py's copies."""
    ptx = variants.only(ptx, "gemm_bf16_kernel")
    base = ptx
    ptx = variants.once(ptx)
    # colocc's own fresh variant where the module has one (cache format 10 on).
    if "__coloc_save" in base and ".entry __coloc_fresh_" not in base:
        ptx += variants.once(base, fresh=True)[len(base):]
    ptx = variants.capped(ptx, "__coloc_ptb_", 128)
    ptx = variants.capped(ptx, "__coloc_once_", 128)
    return variants.capped(ptx, "__coloc_fresh_", 128)


class Args(C.Structure):
    _pack_ = 8
    _fields_ = [("p", C.c_uint64 * 4), ("i", C.c_int32 * 7), ("pad", C.c_int32),
                ("s", C.c_int64 * 6), ("alpha", C.c_float), ("pad2", C.c_int32)]


def launch_params(f, grid, args, extra):
    ptrs = [C.cast(C.pointer(args), C.c_void_p)]
    keep = []
    for typ, val in extra:
        v = typ(val)
        keep.append(v)
        ptrs.append(C.cast(C.pointer(v), C.c_void_p))
    arr = (C.c_void_p * len(ptrs))(*ptrs)
    check(cu.cuLaunchKernel(f, grid[0], grid[1], 1, THREADS, 1, 1, 0, None, arr, None),
          "cuLaunchKernel")


def wait(what, limit_s=20.0):
    """Waits for the legacy stream, at most limit_s: a hung kernel ends the process
    (the context goes with it), saying so."""
    import time
    t0 = time.monotonic()
    while True:
        rc = cu.cuStreamQuery(None)
        if rc == 0:
            return
        if rc != 600:  # CUDA_ERROR_NOT_READY
            check(rc, what)
        if time.monotonic() - t0 > limit_s:
            print(f"gemm_forms: {what}: not done after {limit_s:.0f} s; giving up", flush=True)
            os._exit(3)
        time.sleep(0.001)


def protocol(label, shape, fn, orig, ptx, total, gx, gy, d0, Cp, cbytes, args):
    """A stop in the middle of a fresh launch, then the looping form to finish.

    The capped fresh copy runs with a worker per block, a redo ring and a save
    area (ring capacity twice slot_base = the grid, for both launches); the
    host sets the stop word (in mapped host memory, which the kernel reads
    like any stop record) 3 ms in; the blocks running then save their state
    and go into the ring.  Then, the word clear, the capped looping form
    (a wave of workers, a parked worker, the same control block, ring and
    area) takes the ring first, restoring each saved block where it stopped,
    and the fresh blocks after.  The output must equal the original's."""
    import time
    fresh, loop = fn(f"__coloc_cap_fresh_{orig}"), fn(f"__coloc_cap_ptb_{orig}")
    ent = dict(variants.entries(ptx, f"__coloc_fresh_{orig}"))[f"__coloc_fresh_{orig}"]
    per_thread = int(re.search(r"mul\.lo\.u32\t__coloc_cv, __coloc_nthr, (\d+);", ent).group(1))
    shared = int(re.search(r"add\.u32\t__coloc_cv, __coloc_cv, (\d+);", ent).group(1))
    cap = 2 * total
    busy = (4 * cap + 255) // 256 * 256
    area_bytes = busy + cap * (shared + THREADS * per_thread)
    area, ctl, redo = alloc(area_bytes), alloc(4096), alloc(4 * cap)
    host = C.c_void_p()
    check(cu.cuMemHostAlloc(C.byref(host), C.c_size_t(4096), C.c_uint(2)), "cuMemHostAlloc")
    stop = C.c_uint64()
    check(cu.cuMemHostGetDevicePointer_v2(C.byref(stop), host, C.c_uint(0)), "cuMemHostGetDevicePointer")
    word = (C.c_uint32 * 4).from_address(host.value)
    word[0] = word[1] = word[2] = word[3] = 0
    for p, n in ((Cp, cbytes), (area, area_bytes), (ctl, 4096), (redo, 4 * cap)):
        zero(p, n)
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")

    def extra(park):
        return [(C.c_uint32, gx), (C.c_uint32, gy), (C.c_uint32, 1), (C.c_uint32, park),
                (C.c_uint32, total), (C.c_uint32, 1), (C.c_uint64, ctl), (C.c_uint64, stop.value),
                (C.c_uint64, redo), (C.c_uint64, area)]

    def header():
        h = np.empty(4, dtype=np.uint32)
        check(cu.cuMemcpyDtoH_v2(h.ctypes.data_as(C.c_void_p), C.c_uint64(ctl), C.c_size_t(16)),
              "cuMemcpyDtoH")
        return [int(x) for x in h]

    launch_params(fresh, (total, 1), args, extra(0))
    time.sleep(0.003)
    word[0] = 1
    wait("the stopped fresh launch")
    first = header()
    word[0] = 0
    occ = C.c_int()
    check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(C.byref(occ), loop, THREADS, C.c_size_t(0)),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor")
    sms = C.c_int()
    check(cu.cuDeviceGetAttribute(C.byref(sms), 16, 0), "cuDeviceGetAttribute")
    launch_params(loop, (min(total, occ.value * sms.value), 1), args, extra(1))
    wait("the looping form after the stop")
    last = header()
    same = digest(Cp, cbytes) == d0
    for p in (area, ctl, redo):
        cu.cuMemFree_v2(C.c_uint64(p))
    cu.cuMemFreeHost(host)
    row = dict(module=label, shape=shape, after_stop=first, after_loop=last, same=same,
               ok=same and last[1] == total and first[3] > first[2] and first[1] < total)
    print(f"{label} {shape} protocol: after the stop next {first[0]} done {first[1]} ring "
          f"{first[2]}..{first[3]}; after the loop done {last[1]} of {total}, ring "
          f"{last[2]}..{last[3]}; output {'same' if same else 'DIFFERENT'}", flush=True)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--emit", action="store_true",
                    help="write each module as it would be loaded to OUT and stop (no GPU)")
    ap.add_argument("modules", nargs="+")
    a = ap.parse_args()
    out = a.modules.pop()
    os.makedirs(out, exist_ok=True)
    assert C.sizeof(Args) == 120, C.sizeof(Args)
    if a.emit:
        for path in a.modules:
            with open(os.path.join(out, os.path.basename(path)), "w") as f:
                f.write(build_module(open(path).read()))
        return 0
    global cu, np
    import numpy
    np = numpy
    cu = C.CDLL("libcuda.so.1")

    check(cu.cuInit(0), "cuInit")
    dev, ctx = C.c_int(), C.c_void_p()
    check(cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
    check(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    sms = C.c_int()
    check(cu.cuDeviceGetAttribute(C.byref(sms), 16, dev), "cuDeviceGetAttribute")
    name = C.create_string_buffer(256)
    cu.cuDeviceGetName(name, 256, dev)

    ctl = alloc(4096)
    redo = alloc(4 * REDO_WORDS)
    e0, e1 = C.c_void_p(), C.c_void_p()
    check(cu.cuEventCreate(C.byref(e0), 0), "cuEventCreate")
    check(cu.cuEventCreate(C.byref(e1), 0), "cuEventCreate")
    rng = np.random.default_rng(20261127)
    rows, rows_protocol = [], []

    for path in a.modules:
        ptx = build_module(open(path).read())
        mod = C.c_void_p()
        check(cu.cuModuleLoadData(C.byref(mod), C.c_char_p(ptx.encode() + b"\0")),
              f"cuModuleLoadData({path})")
        label = os.path.basename(path)

        def fn(nm):
            f = C.c_void_p()
            rc = cu.cuModuleGetFunction(C.byref(f), mod, nm.encode())
            if rc != 0:
                return None
            return f

        def attr(f, which):
            v = C.c_int()
            check(cu.cuFuncGetAttribute(C.byref(v), which, f), "cuFuncGetAttribute")
            return v.value

        for shape in a.shapes.split(","):
            ta, tb, ob, m, n, k = SHAPES[shape]
            A = upload(random_bf16(rng, m * k))
            B = upload(random_bf16(rng, k * n))
            cbytes = m * n * (2 if ob else 4)
            Cp = alloc(cbytes)
            args = Args()
            args.p[:] = [A, B, Cp, 0]
            args.i[:] = [m, n, k, m if ta else k, k if tb else n, n, 1]
            args.alpha = 1.0
            gx, gy = (n + BN - 1) // BN, (m + BM - 1) // BM
            total = gx * gy
            orig = mangled(ta, tb, ob)

            def runs(f, grid, extra_fn, stopped, each):
                """The fastest of a.reps runs (after one to warm up), timed with events;
                `stopped`: the stop word set before each launch; each(r) after run r."""
                best = None
                for r in range(a.reps + 1):
                    zero(ctl, 4096)
                    if stopped:
                        check(cu.cuMemsetD32_v2(C.c_uint64(ctl + 2048), C.c_uint(1), C.c_size_t(1)),
                              "cuMemsetD32")
                    else:
                        zero(Cp, cbytes)
                        zero(redo, 4 * REDO_WORDS)
                    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
                    check(cu.cuEventRecord(e0, None), "cuEventRecord")
                    launch_params(f, grid, args, extra_fn())
                    check(cu.cuEventRecord(e1, None), "cuEventRecord")
                    wait(f"{shape}: a timed launch")
                    ms = C.c_float()
                    check(cu.cuEventElapsedTime(C.byref(ms), e0, e1), "cuEventElapsedTime")
                    if r and (best is None or ms.value < best):
                        best = ms.value
                    each(r)
                return best

            def timed(f, grid, extra_fn):
                dig = []

                def each(r):
                    if r == 1:
                        dig.append(digest(Cp, cbytes))
                        if ctl_done() != total and extra_fn() != []:
                            raise RuntimeError(f"{shape}: done {ctl_done()} of {total}")
                return runs(f, grid, extra_fn, False, each), dig[0]

            def drain(f, grid, extra_fn):
                """The fastest run with the stop word set before the launch: every worker
                leaves at its take, so this is what a stop leaves the GPU to do."""
                best = runs(f, grid, extra_fn, True, lambda r: None)
                if ctl_done() != 0:
                    raise RuntimeError(f"{shape}: a stopped launch did {ctl_done()} blocks")
                return best

            def ctl_done():
                h = np.empty(4, dtype=np.uint32)
                check(cu.cuMemcpyDtoH_v2(h.ctypes.data_as(C.c_void_p), C.c_uint64(ctl), C.c_size_t(16)),
                      "cuMemcpyDtoH")
                return int(h[1])

            def ptb_extra(workers, park, save):
                def f():
                    e = [(C.c_uint32, gx), (C.c_uint32, gy), (C.c_uint32, 1), (C.c_uint32, park),
                         (C.c_uint32, 0), (C.c_uint32, 1), (C.c_uint64, ctl), (C.c_uint64, ctl + 2048),
                         (C.c_uint64, redo)]
                    if save:
                        e.append((C.c_uint64, 0))
                    return e
                return f

            fo = fn(orig)
            t0, d0 = timed(fo, (gx, gy), lambda: [])
            rows.append(dict(module=label, shape=shape, form="original", regs=attr(fo, 4),
                             local=attr(fo, 3), grid=total, ms=t0, ratio=1.0, same=True))
            save = "__coloc_save" in ptx
            for form in ("ptb", "cap_ptb", "once", "cap_once", "fresh", "cap_fresh"):
                f = fn(f"__coloc_{form}_{orig}")
                if f is None:
                    continue
                occ = C.c_int()
                check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(C.byref(occ), f, THREADS, C.c_size_t(0)),
                      "cuOccupancyMaxActiveBlocksPerMultiprocessor")
                if form.endswith("once") or form.endswith("fresh"):
                    grid, workers, park = (total, 1), total, 0
                else:
                    workers = min(total, occ.value * sms.value)
                    grid, park = (workers, 1), 1
                t, d = timed(f, grid, ptb_extra(workers, park, save))
                row = dict(module=label, shape=shape, form=form, regs=attr(f, 4), local=attr(f, 3),
                           blocks_per_sm=occ.value, grid=grid[0], ms=t, ratio=t0 / t, same=d == d0)
                if form.startswith("cap_") and not park:
                    # Not the looping form: its parked worker would wait for the clear.
                    row["stopped_ms"] = drain(f, grid, ptb_extra(workers, park, save))
                rows.append(row)
                print(f"{label} {shape} {form}: {t:.3f} ms ({t0 / t:.3f} of original) "
                      f"{'same' if d == d0 else 'DIFFERENT'}", flush=True)
            if shape == "tn_dw" and fn(f"__coloc_cap_fresh_{orig}") is not None:
                rows_protocol.append(protocol(label, shape, fn, orig, ptx, total, gx, gy, d0, Cp,
                                              cbytes, args))
            for p in (A, B, Cp):
                cu.cuMemFree_v2(C.c_uint64(p))
        cu.cuModuleUnload(mod)

    json.dump(dict(device=name.value.decode(), sms=sms.value, reps=a.reps, rows=rows,
                   protocol=rows_protocol),
              open(os.path.join(out, "results.json"), "w"), indent=1)
    lines = [f"device: {name.value.decode()}, {sms.value} SMs; fastest of {a.reps} runs", "",
             "| module | shape | form | regs | local B | blocks/SM | grid | ms | of original | output "
             "| stopped before it starts, ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['module']} | {r['shape']} | {r['form']} | {r['regs']} | {r['local']} | "
                     f"{r.get('blocks_per_sm', '')} | {r['grid']} | {r['ms']:.3f} | {r['ratio']:.3f} | "
                     f"{'same' if r['same'] else 'DIFFERENT'} | "
                     f"{'%.3f' % r['stopped_ms'] if 'stopped_ms' in r else ''} |")
    for r in rows_protocol:
        lines.append("")
        lines.append(f"protocol ({r['module']}, {r['shape']}): after the stop, header (next, done, "
                     f"ring head, ring tail) {r['after_stop']}; after the looping form "
                     f"{r['after_loop']}; output {'same' if r['same'] else 'DIFFERENT'}: "
                     f"{'ok' if r['ok'] else 'FAILED'}")
    open(os.path.join(out, "results.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    bad = [r for r in rows if not r["same"]] + [r for r in rows_protocol if not r["ok"]]
    if bad:
        print(f"gemm_forms: {len(bad)} forms gave outputs different from the original's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
