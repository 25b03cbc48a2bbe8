#!/usr/bin/env python3
"""Loads every entry of a colocc --aot cache with the CUDA driver: module.fatbin
and module.cubin through cuModuleLoadData, every kernel of the manifest
(original and variants) through cuModuleGetFunction, and, where the driver
has cuFuncGetParamInfo, each kernel's parameter offsets and sizes compared
with the manifest's layout.

usage: loadcheck.py CACHE
Prints one line per entry and file; exits 1 if anything failed.
"""
import ctypes
import json
import os
import sys

cuda = ctypes.CDLL("libcuda.so.1")


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else rc}")


def layout(params):
    """(offset, size) of each parameter, laid out by C alignment rules."""
    out, off = [], 0
    for p in params:
        off = (off + p["align"] - 1) // p["align"] * p["align"]
        out.append((off, p["size"]))
        off += p["size"]
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cache = sys.argv[1]
    check(cuda.cuInit(0), "cuInit")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    param_info = getattr(cuda, "cuFuncGetParamInfo", None)
    failed = entries = 0
    for key in sorted(os.listdir(cache)):
        entry = os.path.join(cache, key)
        if key.startswith(".") or not os.path.isdir(entry):
            continue
        entries += 1
        manifest = json.load(open(os.path.join(entry, "manifest.json")))
        kernels = []
        for k in manifest["kernels"]:
            kernels.append((k["name"], k["params"]))
            for form in k["forms"].values():
                if form.get("status") == "applied" and "name" in form:
                    kernels.append((form["name"], k["params"] + form.get("added_params", [])))
        for fname in ("module.fatbin", "module.cubin"):
            mod = ctypes.c_void_p()
            data = open(os.path.join(entry, fname), "rb").read()
            try:
                check(cuda.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(data)),
                      f"cuModuleLoadData({fname})")
                found = laid = 0
                for name, params in kernels:
                    fn = ctypes.c_void_p()
                    check(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()),
                          f"cuModuleGetFunction({name})")
                    found += 1
                    if param_info is None:
                        continue
                    for i, (off, size) in enumerate(layout(params)):
                        o, s = ctypes.c_size_t(), ctypes.c_size_t()
                        check(param_info(fn, i, ctypes.byref(o), ctypes.byref(s)),
                              f"cuFuncGetParamInfo({name}, {i})")
                        if (o.value, s.value) != (off, size):
                            raise RuntimeError(f"{name} parameter {i}: driver says offset "
                                               f"{o.value} size {s.value}, manifest {off} {size}")
                    laid += 1
                print(f"{key[:16]} {fname}: loaded, {found}/{len(kernels)} kernels found, "
                      f"{laid} parameter layouts match the manifest")
                check(cuda.cuModuleUnload(mod), "cuModuleUnload")
            except RuntimeError as e:
                failed += 1
                print(f"{key[:16]} {fname}: FAILED: {e}")
    print(f"loadcheck: {entries} entries, {failed} failures")
    sys.exit(1 if failed or not entries else 0)


if __name__ == "__main__":
    main()
