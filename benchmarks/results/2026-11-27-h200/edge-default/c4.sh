#!/bin/sh
# Seventh session, call 4 (commit 86c519c: COLOC_PARK=auto and COLOC_EDGE_WAIT_US=auto by
# default): graphed ResNet-50 at load 0.5 beside both GPT trainers with nothing set: the
# latency tenant alone, alone under MPS, colocc without MPS (colocc-ts-full) and under MPS
# (colocc-full).
o=$OUT/m
build-gpu/suite/run --pin build-gpu/suite $o --latency resnet50_graph_b1 --be gpt_train_long,gpt_train_short --modes alone,mps-solo,colocc-ts-full,colocc-full --seconds 12 > $OUT/console.txt   # kept as c4-console.txt 2>&1
grep -E "^\| resnet50" $o/summary.md | head -7
grep -h "preemptions\|timed out" $o/logs/*colocctl.txt
mkdir -p $OUT/keep && cp $o/summary.md $o/summary.json $o/summary.csv $o/machine.txt $o/logs/*colocctl.txt $o/logs/*stats.json $o/runs/*.json $OUT/keep/ 2>/dev/null
rm -rf $o
cd $OUT && tar czf keep.tgz keep   # kept as keep-c4.tgz && rm -rf keep
