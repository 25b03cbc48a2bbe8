#!/bin/sh
# Call 4: two stop streams (the word through both, read backs move off a stuck one): as call 3.
# (logs with monotonic times, stalls over 5 ms), the short trainer.
nvidia-smi -L
for r in 1 0; do
  echo "== long trainer, COLOC_RESTART=$r"
  timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/long$r --latency resnet50_graph_b1 \
    --be gpt_train_long --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=$r \
    --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_TIME=1 > $OUT/long$r.log 2>&1
  echo rc=$?
  sed -n '/^## All runs/,/^## Service/p' $OUT/long$r/summary.md | cut -d'|' -f3-6,11,14,16,17 | tail -3
  sed -n '/^## Service/,/^## Best/p' $OUT/long$r/summary.md | tail -3
  python3 build-gpu/stalls.py $OUT/long$r resnet50_graph_b1--gpt_train_long--colocc-full--poisson-0.5 5 > $OUT/stalls$r.txt 2>&1
  head -c 2500 $OUT/stalls$r.txt; tail -1 $OUT/stalls$r.txt
  echo "slow stops: $(grep -c 'slow stop' $OUT/long$r/logs/*colocc-full*.be.err)"
  grep "turnaround p50" $OUT/long$r/logs/*colocc-full*.colocctl.txt | cut -c1-160
  cd $OUT && tar czf long$r.tgz long$r && rm -rf long$r; cd - > /dev/null
done
echo "== short trainer"
timeout -k 5 120 build-gpu/suite/run --pin build-gpu/suite $OUT/short --latency resnet50_graph_b1 \
  --be gpt_train_short --modes alone,colocc-full --seconds 9 > $OUT/short.log 2>&1
echo rc=$?
sed -n '/^## All runs/,/^## Service/p' $OUT/short/summary.md | cut -d'|' -f3-6,11,14,16,17 | tail -3
sed -n '/^## Service/,/^## Best/p' $OUT/short/summary.md | tail -3
cd $OUT && tar czf short.tgz short && rm -rf short
