export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c1; nvidia-smi > $OUT/c1/machine.txt 2>&1; git log --oneline -1 > $OUT/c1/commit.txt
t0=$(date +%s)
timeout 150 sh build-gpu/rt/run build-gpu/rt $OUT/c1/rt > $OUT/c1/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 6 $OUT/c1/rt.txt | cut -c1-200
timeout 340 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c1/loads --latency resnet50_graph_b1 --be gpt_train_short --modes alone,timeslice,mps,colocc-ts-full,colocc-full --loads 0.25,0.5,0.75 --traces bursty --seconds 8 > $OUT/c1/loads.txt 2>&1
echo "loads rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 4 $OUT/c1/loads.txt
grep -E "^\| (colocc|timeslice|mps|alone)" $OUT/c1/loads/summary.md | head -30 | cut -c1-220
for cfg in old1 new1; do
  left=$(( 575 - ($(date +%s) - t0) ))
  [ $left -lt 80 ] && { echo "no time for cell $cfg"; break; }
  case $cfg in old*) d=build-gpu/suite-old;; *) d=build-gpu/suite;; esac
  timeout $left python3 $d/run --pin $d $OUT/c1/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_LOG_FILE=$OUT/c1/coloc-$cfg.log > $OUT/c1/cell-$cfg.txt 2>&1
  echo "cell $cfg ($d) rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c1/cell-$cfg/summary.md | grep "colocc"
  grep -v "capped at" $OUT/c1/coloc-$cfg.log | cut -c1-300 | head -3
done
find $OUT/c1 -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
du -sh $OUT/c1
