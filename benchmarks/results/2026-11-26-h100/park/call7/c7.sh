#!/bin/sh
# Call 7 (fifth session, H100): the long trainer under time-slicing with stream parking
# (COLOC_PARK=auto) and the fallback for a launch out of relaunches (it runs to its end),
# against the paused worker (the default: no persistent forms under time-slicing), both
# with COLOC_RESTART=1.
nvidia-smi -L
cell() {
  name=$1; shift
  echo "== $name: $*"
  timeout -k 5 200 build-gpu/suite/run --pin build-gpu/suite $OUT/$name --latency resnet50_graph_b1 \
    --seconds 12 "$@" > $OUT/$name.log 2>&1
  echo rc=$?
  sed -n '/^## Headline/,/^## All/p' $OUT/$name/summary.md | grep '|' | head -8
  grep -h "preemptions\|coverage" $OUT/$name/logs/*colocc*.colocctl.txt 2>/dev/null | cut -c1-170 | head -6
  grep -h "park_\|launches_ptb\|launches_sliced\|launches_persistent" $OUT/$name/logs/*.be.stats.json 2>/dev/null | head -6
  grep -ch "runs to its end beside" $OUT/$name/logs/*colocc*.be.err 2>/dev/null
  tail -2 $OUT/$name/logs/*colocc*.be.out | cut -c1-200
  (cd $OUT && tar czf $name.tgz $name && rm -rf $name)
}
cell long-stream --be gpt_train_long --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1 --colocc-env COLOC_PARK=auto --colocc-env COLOC_LOG=info
cell long-worker --be gpt_train_long --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1 --colocc-env COLOC_LOG=info
