#!/bin/sh
# Call 7: slow stops with each launch's taken/done at the first read back (taking on through the stop, or blocks slow to end?).
nvidia-smi -L
for r in 1; do
  echo "== long trainer, COLOC_RESTART=$r"
  timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/long$r --latency resnet50_graph_b1 \
    --be gpt_train_long --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=$r \
    --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_TIME=1 > $OUT/long$r.log 2>&1
  echo rc=$?
  sed -n '/^## All runs/,/^## Service/p' $OUT/long$r/summary.md | cut -d'|' -f3-6,11,14,16,17 | tail -2
  grep 'slow stop' $OUT/long$r/logs/*colocc-full*.be.err | awk -F'slow stop: ' '{split($2,a," "); if (a[1]+0 > 5) print}' | sed 's/.*slow stop/slow stop/; s/(watcher.*times; /(/' | cut -c1-600
  cd $OUT && tar czf long$r.tgz long$r && rm -rf long$r; cd - > /dev/null
done
