#!/bin/sh
# Call 4 (fifth session, H100): stopped persistent kernels parked on their streams under
# time-slicing (COLOC_PARK=auto), against the paused worker (COLOC_PARK=worker: no persistent
# forms under time-slicing, as before), graphed ResNet-50 at load 0.5, Poisson.
nvidia-smi -L
cell() {
  name=$1; shift
  echo "== $name: $*"
  timeout -k 5 200 build-gpu/suite/run --pin build-gpu/suite $OUT/$name --latency resnet50_graph_b1 \
    --seconds 12 "$@" > $OUT/$name.log 2>&1
  echo rc=$?
  sed -n '/^## Headline/,/^## All/p' $OUT/$name/summary.md | grep '|' | head -8
  grep -h "preemptions\|helpers\|coverage" $OUT/$name/logs/*colocc*.colocctl.txt 2>/dev/null | cut -c1-170 | head -6
  grep -h "park_chains_broken\|launches_ptb\|launches_sliced" $OUT/$name/logs/*.json 2>/dev/null | head -4
  (cd $OUT && tar czf $name.tgz $name && rm -rf $name)
}
cell long-r1 --be gpt_train_long --modes alone,colocc-ts-full,colocc-full --colocc-env COLOC_RESTART=1
cell long-r1-worker --be gpt_train_long --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1 --colocc-env COLOC_PARK=worker
cell short-r1 --be gpt_train_short --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1
