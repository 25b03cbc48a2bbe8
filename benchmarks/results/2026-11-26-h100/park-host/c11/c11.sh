#!/bin/sh
# Sixth session, call 11: COLOC_PARK=host, persistent launches measured under 0.5 ms sliced instead, (the launching thread holds a stopped persistent
# kernel) against the default under time-slicing (colocc-ts-full), graphed ResNet-50 at load
# 0.5 beside both trainers; the default first, then host, in one call.
for park in host worker; do
  o=$OUT/$park
  build-gpu/suite/run --pin build-gpu/suite $o --latency resnet50_graph_b1 --be gpt_train_long,gpt_train_short --modes alone,colocc-ts-full --seconds 12 --colocc-env COLOC_PARK=$park > $OUT/$park.console.txt 2>&1
  echo "== COLOC_PARK=$park"
  grep -E "^\| resnet50" $o/summary.md | head -3
  grep -h "preemptions\|coverage" $o/logs/*colocctl.txt
  grep -h "hold_relaunches\|launches_persistent\|launches_sliced" $o/logs/*be.stats.json
  mkdir -p $OUT/keep/$park && cp $o/summary.md $o/summary.json $o/machine.txt $o/logs/*colocctl.txt $o/logs/*stats.json $o/runs/*.json $OUT/keep/$park/ 2>/dev/null
  rm -rf $o
done
cd $OUT && tar czf keep.tgz keep && rm -rf keep
