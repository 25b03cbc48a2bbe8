export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c7; nvidia-smi > $OUT/c7/machine.txt 2>&1
t0=$(date +%s)
for cfg in fresh default fresh2; do
  extra=""; [ $cfg != default ] && extra="--colocc-env COLOC_FRESH=1 --colocc-env COLOC_LOG_FILE=$OUT/c7/coloc-$cfg.log"
  timeout 150 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c7/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 $extra > $OUT/c7/cell-$cfg.txt 2>&1
  echo "cell $cfg rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/## All runs/,$p' $OUT/c7/cell-$cfg/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20,21 | sed -n 2p
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c7/cell-$cfg/summary.md | grep "colocc"
  grep -h -o '"fresh_[a-z]*": [0-9]*\|"hold_relaunches": [0-9]*' $OUT/c7/cell-$cfg/logs/*be*stats* 2>/dev/null | tr '\n' ' '; echo
  [ -f $OUT/c7/coloc-$cfg.log ] && grep -v "capped at" $OUT/c7/coloc-$cfg.log | cut -c1-300 | head -5
done
find $OUT/c7 -name colocc-cache -o -name colocc-run -o -name traces -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c7.tgz c7 && rm -rf c7
