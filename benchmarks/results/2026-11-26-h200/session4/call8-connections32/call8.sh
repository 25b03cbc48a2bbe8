#!/bin/sh
# Call 8: are the slow stops hardware-queue sharing?  The same cells with
# CUDA_DEVICE_MAX_CONNECTIONS=32 (more hardware queues per context; default 8).
nvidia-smi -L
for r in 1 0; do
  echo "== long trainer, COLOC_RESTART=$r, CUDA_DEVICE_MAX_CONNECTIONS=32"
  timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/long$r --latency resnet50_graph_b1 \
    --be gpt_train_long --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=$r \
    --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_TIME=1 --colocc-env CUDA_DEVICE_MAX_CONNECTIONS=32 > $OUT/long$r.log 2>&1
  echo rc=$?
  sed -n '/^## All runs/,/^## Service/p' $OUT/long$r/summary.md | cut -d'|' -f3-6,11,14,16,17 | tail -2
  sed -n '/^## Service/,/^## Best/p' $OUT/long$r/summary.md | tail -2
  echo "slow stops: $(grep -c 'slow stop' $OUT/long$r/logs/*colocc-full*.be.err), over 5 ms: $(grep -o 'slow stop: [0-9.]*' $OUT/long$r/logs/*colocc-full*.be.err | awk '$3>5' | wc -l)"
  grep "preemptions" $OUT/long$r/logs/*colocc-full*.colocctl.txt | cut -c1-160
  grep 'slow stop' $OUT/long$r/logs/*colocc-full*.be.err | awk -F'slow stop: ' '{split($2,a," "); if (a[1]+0 > 5) print}' | sed 's/.*slow stop/slow stop/' | cut -c1-500 | head -4
  cd $OUT && tar czf long$r.tgz long$r && rm -rf long$r; cd - > /dev/null
done
