export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c5; nvidia-smi > $OUT/c5/machine.txt 2>&1
t0=$(date +%s)
for cfg in fresh default; do
  extra=""; [ $cfg = fresh ] && extra="--colocc-env COLOC_FRESH=1"
  timeout 170 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c5/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 $extra > $OUT/c5/cell-$cfg.txt 2>&1
  echo "cell $cfg rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/## All runs/,$p' $OUT/c5/cell-$cfg/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20,21 | head -3
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c5/cell-$cfg/summary.md | grep "colocc"
  grep -h -o '"fresh_[a-z]*": [0-9]*\|"hold_relaunches": [0-9]*' $OUT/c5/cell-$cfg/logs/*be*stats* 2>/dev/null | tr '\n' ' '; echo
done
find $OUT/c5 -name colocc-cache -o -name colocc-run -o -name traces -o -name "cache-*" | xargs rm -rf
