# Twenty-third session, call 1: (a) issue 4's launch_ab repeat on this library (latency tenant
# alone, hooked against direct launches in one process, COLOC_MONITOR=auto against always,
# alternating; four pairs on two CPUs, one pair on one CPU); (b) issue 6's last mode: colocc
# with policy fill (colocc-fill) next to alone and colocc-full (policy isolate, the same MPS setting) from the same run, default
# workloads (graphed ResNet-50 b1, both GPT trainers, load 0.5, 10 s a cell).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c1; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col; S=build-gpu/suite
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ for i in 1 2 3 4; do for m in auto always; do echo "== latency tenant, CPUs 4,5, COLOC_MONITOR=$m ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info COLOC_MONITOR=$m taskset -c 4,5 timeout 40 $c/launch_ab 30 20000; done; done
  for m in auto always; do echo "== latency tenant, CPU 4, COLOC_MONITOR=$m"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info COLOC_MONITOR=$m taskset -c 4 timeout 40 $c/launch_ab 30 20000; done; } > $O/launch_ab.txt 2>&1
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|over|mean of|per launch|monitor" $O/launch_ab.txt | cut -c1-230
unset COLOC_RUN_DIR
timeout 400 python3 $S/run --pin $S $O/fill --modes alone,colocc-full,colocc-fill > $O/fill.txt 2>&1
echo "fill rc=$? at $(( $(date +%s) - t0 )) s"; tail -30 $O/fill/summary.md | cut -c1-260; tail -5 $O/fill.txt
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c1.tgz c1 && rm -rf c1 && ls -la $OUT
