#!/bin/sh
# Seventh session, call 5 (commit 86c519c): the long trainer without MPS only, the default
# edge wait (0.5 ms at most) against COLOC_EDGE_WAIT_US=2000, twice each, alternating.
for set in default edge2000 default edge2000; do
  n=$((${n:-0} + 1))
  o=$OUT/r$n-$set
  env=""
  [ $set = edge2000 ] && env="--colocc-env COLOC_EDGE_WAIT_US=2000"
  build-gpu/suite/run --pin build-gpu/suite $o --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 12 $env > $OUT/r$n-$set.console.txt 2>&1
  echo "== r$n $set"
  grep -E "^\| resnet50" $o/summary.md | head -2
  grep -h "preemptions\|timed out" $o/logs/*colocctl.txt
  mkdir -p $OUT/keep/r$n-$set && cp $o/summary.md $o/summary.json $o/logs/*colocctl.txt $o/logs/*stats.json $o/runs/*.json $OUT/keep/r$n-$set/ 2>/dev/null
  rm -rf $o
done
cd $OUT && tar czf keep.tgz keep   # kept as keep-c5.tgz && rm -rf keep
