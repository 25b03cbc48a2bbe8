export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
for v in default resume; do
  e=""; [ $v = resume ] && e="--colocc-env COLOC_RESUME=1"
  timeout 120 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/cell-$v --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 $e > $OUT/r/cell-$v.txt 2>&1
  echo "cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep "colocc-ts-full | 0.5" $OUT/r/cell-$v/summary.md | head -2; cat $OUT/r/cell-$v/logs/*colocctl.txt 2>/dev/null | grep -i "preemptions\|turnaround" | head -3
  rm -rf $OUT/r/cell-$v/colocc-cache $OUT/r/cell-$v/*/colocc-cache
done
timeout 290 python3 build-gpu/tr/run --sanitize --resume --only 16-long-blocks --case long_tiles_ragged build-gpu/tr $OUT/r/san > $OUT/r/san.txt 2>&1
echo "sanitize rc=$? at $(( $(date +%s) - t0 )) s"; cat $OUT/r/san/sanitizer.txt
cd $OUT && tar czf r.tgz r && rm -rf r
