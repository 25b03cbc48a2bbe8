export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c3; nvidia-smi > $OUT/c3/machine.txt 2>&1
t0=$(date +%s)
timeout 170 sh build-gpu/rt/run build-gpu/rt $OUT/c3/rt > $OUT/c3/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; tail -1 $OUT/c3/rt.txt; grep -E "be-fresh|be-auto" $OUT/c3/rt/table.txt
timeout 240 python3 build-gpu/suite/betput --seconds 8 --be gpt_train_long,gpt_train_short --configs plain,ptb,ptb-fresh,auto,auto-fresh build-gpu/suite $OUT/c3/betput > $OUT/c3/betput.txt 2>&1
echo "betput rc=$? at $(( $(date +%s) - t0 )) s"; tail -14 $OUT/c3/betput.txt
for f in $OUT/c3/betput/*fresh*.stats.json; do echo "$(basename $f): $(grep -o '"fresh_[a-z]*": [0-9]*' $f | tr '\n' ' ')"; done
for cfg in default fresh; do
  extra=""; [ $cfg = fresh ] && extra="--colocc-env COLOC_FRESH=1"
  timeout 150 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c3/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 $extra > $OUT/c3/cell-$cfg.txt 2>&1
  echo "cell $cfg rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/## All runs/,$p' $OUT/c3/cell-$cfg/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20 | head -3
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c3/cell-$cfg/summary.md | grep "colocc"
done
find $OUT/c3 -name colocc-cache -o -name colocc-run -o -name latency -o -name traces -o -name "cache-*" -o -name "cupy-cache" | xargs rm -rf
