export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c8; nvidia-smi > $OUT/c8/machine.txt 2>&1
t0=$(date +%s)
for cfg in fresh1 fresh2; do
  timeout 150 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c8/cell-$cfg --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_FRESH=1 --colocc-env COLOC_LOG_FILE=$OUT/c8/coloc-$cfg.log > $OUT/c8/cell-$cfg.txt 2>&1
  echo "cell $cfg rc=$? at $(( $(date +%s) - t0 )) s"
  sed -n '/## All runs/,$p' $OUT/c8/cell-$cfg/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20,21 | sed -n 2p
  sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c8/cell-$cfg/summary.md | grep "colocc"
  grep -v "capped at" $OUT/c8/coloc-$cfg.log | cut -c1-400 | head -6
done
find $OUT/c8 -name colocc-cache -o -name colocc-run -o -name traces -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c8.tgz c8 && rm -rf c8
