# Twenty-second session, call 3 (call 2 again, on an H100): a latency tenant alone, launch_ab (hooked against direct
# launches in one process), with the monitor out of the way while no best-effort tenant
# shares the GPU (COLOC_MONITOR=auto, the new default) against the monitor as before
# (COLOC_MONITOR=always), alternating; four pairs on two CPUs, one pair on one CPU.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c3; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ for i in 1 2 3 4; do for m in auto always; do echo "== latency tenant, CPUs 4,5, COLOC_MONITOR=$m ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info COLOC_MONITOR=$m taskset -c 4,5 timeout 40 $c/launch_ab 30 20000; done; done
  for m in auto always; do echo "== latency tenant, CPU 4, COLOC_MONITOR=$m"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info COLOC_MONITOR=$m taskset -c 4 timeout 40 $c/launch_ab 30 20000; done; } > $O/launch_ab.txt 2>&1
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|over|mean of|per launch|monitor" $O/launch_ab.txt | cut -c1-230
cd $OUT && tar czf c3.tgz c3 && rm -rf c3 && ls -la $OUT
