# Seventeenth session, call 5, on 1a5b35a: issue 4's launch overhead, a latency tenant's
# launch call under libcoloc against libcuda's own in one process (launch_ab 30 20000),
# ten runs and the no-preload floor, pinned to CPU 4.  build-gpu/col: libcoloc.so from
# build/ and launch_ab (cc -O2 benchmarks/colocation/launch_ab.c -lcuda -ldl).
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR $OUT/c5
nvidia-smi -L | tee $OUT/c5/machine.txt
echo "== no preload (noise floor)"
taskset -c 4 timeout 60 $c/launch_ab 30 20000 | tail -1
for i in 1 2 3 4 5 6 7 8 9 10; do
  echo "== latency tenant ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 timeout 60 $c/launch_ab 30 20000 | tail -1
done
