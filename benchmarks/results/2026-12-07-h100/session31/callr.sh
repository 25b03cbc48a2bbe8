# Prepared in the thirtieth session (refused there: too little device time left); run as is in
# the thirty-first session (README.md here).
# Issue 4's identical results on the library as it stands (9f14eee's
# runtime): testsuite/gpu/runtime/run, each program (runtime and driver API, Numba, CuPy) run
# without libcoloc, then as a latency tenant and as a best-effort tenant in each form and with
# COLOC_DISABLE=1; every output compared byte for byte with the run without.
# Prepare: sh testsuite/gpu/runtime/prepare build build-gpu/rt; carry build-gpu/rt.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s30r; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; t0=$(date +%s)
timeout 170 sh build-gpu/rt/run build-gpu/rt $O/rt > $O/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; cut -c1-160 $O/rt/table.txt 2>/dev/null || tail -30 $O/rt.txt
rm -rf $O/rt/cupy-cache; cd $OUT && tar czf s30r.tgz s30r
