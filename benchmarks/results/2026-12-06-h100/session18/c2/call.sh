# Eighteenth session, call 2, on 46e884e: (1) launch_ab with the breakdown of where a
# throughput difference lies (calls or synchronizations), the latency tenant on one CPU
# (as in call 1) and on two, two runs each; (2) stock PyTorch training beside the graphed
# ResNet-50 (load 0.5) at COLOC_GATED_DEPTH 4 (the new default, A), 8 (B) and 2 (C, as
# call 1's A), two repetitions each (B and C reuse A's alone cells with --resume).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c2; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ echo "== no preload (noise floor)"; taskset -c 4 timeout 60 $c/launch_ab 30 20000
  for cpus in 4 4,5; do for i in 1 2; do echo "== latency tenant, CPUs $cpus ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c $cpus timeout 60 $c/launch_ab 60 20000; done; done; } > $O/launch_ab.txt 2>&1
unset COLOC_RUN_DIR
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|over|mean of|per launch" $O/launch_ab.txt | cut -c1-230
S=build-gpu/suite
timeout 210 python3 $S/run --pin $S $O/a --be torch_train --modes alone,colocc-full --seconds 8 --repeat 2 --budget 200 > $O/a.txt 2>&1
echo "A rc=$? at $(( $(date +%s) - t0 )) s"
for v in b:COLOC_GATED_DEPTH=8 c:COLOC_GATED_DEPTH=2; do n=${v%%:*}; e=${v#*:}
  cp -r $O/a $O/$n; rm -f $O/$n/runs/*torch_train--colocc-full*
  left=$(( 480 - ($(date +%s) - t0) )); [ $left -lt 60 ] && break
  timeout $left python3 $S/run --pin $S $O/$n --resume --be torch_train --modes alone,colocc-full --seconds 8 --repeat 2 --colocc-env $e --budget $((left - 10)) > $O/$n.txt 2>&1
  echo "$n ($e) rc=$? at $(( $(date +%s) - t0 )) s"
done
for n in a b c; do echo "== $n"; grep -h "torch_train.*colocc-full" $O/$n/summary.md | cut -c1-250; grep -h coverage $O/$n/logs/*torch_train--colocc-full*colocctl.txt; done
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
