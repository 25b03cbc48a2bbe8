export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c2; nvidia-smi > $OUT/c2/machine.txt 2>&1
t0=$(date +%s)
timeout 230 python3 build-gpu/tr/run --resume --storm 200 build-gpu/tr $OUT/c2/diff-tr > $OUT/c2/diff-tr.txt 2>&1
echo "diff-tr rc=$? at $(( $(date +%s) - t0 )) s"; tail -19 $OUT/c2/diff-tr.txt
grep -h "^FAIL" $OUT/c2/diff-tr/*.log | cut -c1-250 | head -12
timeout 170 python3 build-gpu/t/run --storm 200 build-gpu/t $OUT/c2/diff-t > $OUT/c2/diff-t.txt 2>&1
echo "diff-t rc=$? at $(( $(date +%s) - t0 )) s"; tail -3 $OUT/c2/diff-t.txt
grep -h "^FAIL" $OUT/c2/diff-t/*.log | cut -c1-250 | head -12
for cfg in fresh1 fresh2; do
  left=$(( 560 - ($(date +%s) - t0) ))
  [ $left -lt 75 ] && { echo "no time for cell $cfg"; break; }
  timeout $left python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c2/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_FRESH=1 --colocc-env COLOC_LOG_FILE=$OUT/c2/coloc-$cfg.log > $OUT/c2/cell-$cfg.txt 2>&1
  echo "cell $cfg rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/## All runs/,$p' $OUT/c2/cell-$cfg/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20,21 | sed -n 2p
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c2/cell-$cfg/summary.md | grep "colocc"
  grep -v "capped at" $OUT/c2/coloc-$cfg.log | cut -c1-300 | head -5
done
find $OUT/c2 -name colocc-cache -o -name colocc-run -o -name traces -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
