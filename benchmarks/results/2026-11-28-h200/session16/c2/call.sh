export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c2; nvidia-smi > $OUT/c2/machine.txt 2>&1; git log --oneline -1 > $OUT/c2/commit.txt
t0=$(date +%s)
timeout 330 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c2/others --latency resnet50_graph_b1 --be offline_mlp,torch_train --modes alone,timeslice,mps,colocc-ts-full,colocc-full,colocc-gate --loads 0.5 --seconds 8 > $OUT/c2/others.txt 2>&1
echo "others rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 4 $OUT/c2/others.txt
grep -E "^\| (colocc|timeslice|mps|alone)" $OUT/c2/others/summary.md | head -30 | cut -c1-220
for cfg in old2 new2; do
  left=$(( 575 - ($(date +%s) - t0) ))
  [ $left -lt 80 ] && { echo "no time for cell $cfg"; break; }
  case $cfg in old*) d=build-gpu/suite-old;; *) d=build-gpu/suite;; esac
  timeout $left python3 $d/run --pin $d $OUT/c2/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_LOG_FILE=$OUT/c2/coloc-$cfg.log > $OUT/c2/cell-$cfg.txt 2>&1
  echo "cell $cfg ($d) rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c2/cell-$cfg/summary.md | grep "colocc"
  grep -v "capped at" $OUT/c2/coloc-$cfg.log | cut -c1-300 | head -3
done
find $OUT/c2 -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
