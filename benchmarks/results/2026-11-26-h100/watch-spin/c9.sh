#!/bin/sh
# Sixth session, call 9: COLOC_WATCH_SPIN_US (the watcher polls for the busy edge instead of
# sleeping on the futex) against the default, graphed ResNet-50 at load 0.5 beside the long
# trainer under colocc-full, alternating, two of each; libcoloc of the working tree after
# eee3417 (spin option, LAUNCH validity).
for i in 1 2; do
  for spin in 0 5000; do
    o=$OUT/r$i-spin$spin
    build-gpu/suite/run --pin build-gpu/suite $o --latency resnet50_graph_b1 --be gpt_train_long --modes colocc-full --seconds 12 --colocc-env COLOC_WATCH_SPIN_US=$spin > $o.console.txt 2>&1
    echo "== run $i, COLOC_WATCH_SPIN_US=$spin"
    grep -E "^\| resnet50" $o/summary.md | head -1
    grep -h "preemptions" $o/logs/*colocctl.txt
    mkdir -p $OUT/keep/r$i-spin$spin && cp $o/summary.md $o/summary.json $o/machine.txt $o/logs/*colocctl.txt $o/logs/*stats.json $OUT/keep/r$i-spin$spin/ 2>/dev/null
    rm -rf $o
  done
done
cd $OUT && tar czf keep.tgz keep && rm -rf keep
