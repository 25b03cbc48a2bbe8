#!/bin/sh
# Seventh session, call 3 (commit 37eee5a: COLOC_EDGE_WAIT_US with the tenant kept busy through the wait): graphed
# ResNet-50 at load 0.5 beside both GPT trainers, colocc without MPS (colocc-ts-full) and
# under MPS (colocc-full): the default, then COLOC_EDGE_WAIT_US=500 (the latency tenant's
# first launch of a busy period waits up to 0.5 ms for the trainer's kernels to stop), in
# one call.
for set in default edge500; do
  o=$OUT/$set
  env=""
  [ $set = edge500 ] && env="--colocc-env COLOC_EDGE_WAIT_US=500"
  build-gpu/suite/run --pin build-gpu/suite $o --latency resnet50_graph_b1 --be gpt_train_long,gpt_train_short --modes alone,colocc-ts-full,colocc-full --seconds 12 $env > $OUT/c3-$set.console.txt 2>&1
  echo "== $set"
  grep -E "^\| resnet50" $o/summary.md | head -5
  grep -h "preemptions\|timed out" $o/logs/*colocctl.txt
  mkdir -p $OUT/keep/c3-$set && cp $o/summary.md $o/summary.json $o/machine.txt $o/logs/*colocctl.txt $o/logs/*stats.json $o/runs/*.json $OUT/keep/c3-$set/ 2>/dev/null
  rm -rf $o
done
cd $OUT && tar czf keep-c3.tgz keep && rm -rf keep
