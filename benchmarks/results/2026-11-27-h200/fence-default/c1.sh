#!/bin/sh
# Seventh session, call 1 (commit 4f6f477 + this script): COLOC_PARK=auto is the default
# (held launches without MPS, other threads' work fenced behind them).  The runtime GPU
# check (byte-identical outputs), then graphed ResNet-50 at load 0.5 beside both GPT
# trainers without MPS (colocc-ts-full): the default, then COLOC_PARK=worker (the old
# default), in one call.
sh build-gpu/rt/run build-gpu/rt $OUT/rt > $OUT/rt.console.txt 2>&1
tail -1 $OUT/rt.console.txt
cat $OUT/rt/table.txt
cd $OUT && tar czf rt.tgz rt && rm -rf rt && cd - > /dev/null
for park in default worker; do
  o=$OUT/$park
  env=""
  [ $park = worker ] && env="--colocc-env COLOC_PARK=worker"
  build-gpu/suite/run --pin build-gpu/suite $o --latency resnet50_graph_b1 --be gpt_train_long,gpt_train_short --modes alone,colocc-ts-full --seconds 12 $env > $OUT/$park.console.txt 2>&1
  echo "== COLOC_PARK=$park"
  grep -E "^\| resnet50" $o/summary.md | head -3
  grep -h "preemptions\|coverage" $o/logs/*colocctl.txt
  grep -h "hold_relaunches\|hold_fence_waits\|launches_persistent\|launches_sliced" $o/logs/*be.stats.json
  grep -h "held by the thread" $o/logs/*.log 2>/dev/null | sort | uniq -c | head -3
  mkdir -p $OUT/keep/$park && cp $o/summary.md $o/summary.json $o/machine.txt $o/logs/*colocctl.txt $o/logs/*stats.json $o/runs/*.json $OUT/keep/$park/ 2>/dev/null
  rm -rf $o
done
cd $OUT && tar czf keep.tgz keep && rm -rf keep
