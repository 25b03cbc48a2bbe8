# Eighteenth session, call 1, on 0fa98d7: (1) issue 4's launch overhead with launch_ab's
# chunked rounds (60 rounds of 20,000 a way, the no-preload floor, then three runs as a
# latency tenant, CPU 4); (2) compiled-only kernels timed: stock PyTorch
# training beside the graphed ResNet-50 (load 0.5), alone and colocc-full, two repetitions
# (A); torch_train again with COLOC_PROFILE=0, nothing timed: the depth as before 3a46ef0
# (B, alone cells reused with --resume); and with COLOC_BE_DEPTH=4 and the profile's log (C).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c1; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ echo "== no preload (noise floor)"; taskset -c 4 timeout 90 $c/launch_ab 60 20000
  for i in 1 2 3; do echo "== latency tenant ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 timeout 90 $c/launch_ab 60 20000; done; } > $O/launch_ab.txt 2>&1
unset COLOC_RUN_DIR
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|over|mean of" $O/launch_ab.txt | cut -c1-230
S=build-gpu/suite
timeout 210 python3 $S/run --pin $S $O/a --be torch_train --modes alone,colocc-full --seconds 8 --repeat 2 --budget 200 > $O/a.txt 2>&1
echo "A rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/## Headline/,/All runs/p' $O/a/summary.md | head -12; sed -n '/be_idle_throughput |/,$p' $O/a/summary.md | head -8
for v in b:COLOC_PROFILE=0 c:COLOC_BE_DEPTH=4; do n=${v%%:*}; e=${v#*:}
  cp -r $O/a $O/$n; rm -f $O/$n/runs/*torch_train--colocc-full*
  left=$(( 560 - ($(date +%s) - t0) )); [ $left -lt 60 ] && break
  extra=""; [ $n = c ] && extra="--colocc-env COLOC_LOG=info"
  timeout $left python3 $S/run --pin $S $O/$n --resume --be torch_train --modes alone,colocc-full --seconds 8 --repeat 2 --colocc-env $e $extra --budget $((left - 10)) > $O/$n.txt 2>&1
  echo "$n ($e) rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/be_idle_throughput |/,$p' $O/$n/summary.md | grep torch_train
  grep -h "p99_overhead" -A0 $O/$n/summary.md >/dev/null
done
for n in a b c; do echo "== $n"; grep -h "torch_train.*colocc-full" $O/$n/summary.md | head -4 | cut -c1-250; grep -h coverage $O/$n/logs/*torch_train--colocc-full*colocctl.txt; done
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c1.tgz c1 && rm -rf c1 && ls -la $OUT
