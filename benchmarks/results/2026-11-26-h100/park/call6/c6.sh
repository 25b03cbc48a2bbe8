#!/bin/sh
# Call 6 (fifth session, H100): (a) what an empty relaunch costs; bursts of 160 short kernels
# (a graphed model's request) beside a paused block and beside streams waiting on host or
# device memory; (b) the suite's long and short trainer cells under time-slicing with the
# host gate and more relaunches (COLOC_PARK_LINKS 8 + one per 250 us).
nvidia-smi -L
c=build-gpu/col
$c/park_probe empty 64
for how in none waithost wait spin; do
  echo "== bursts beside $how"
  if [ $how = none ]; then $c/park_probe probe 4 160; continue; fi
  $c/park_probe hold $how 7 & h=$!; sleep 2; $c/park_probe probe 4 160; wait $h; echo "hold rc $?"
done
cell() {
  name=$1; shift
  echo "== $name: $*"
  timeout -k 5 200 build-gpu/suite/run --pin build-gpu/suite $OUT/$name --latency resnet50_graph_b1 \
    --seconds 12 "$@" > $OUT/$name.log 2>&1
  echo rc=$?
  sed -n '/^## Headline/,/^## All/p' $OUT/$name/summary.md | grep '|' | head -8
  grep -h "preemptions\|coverage" $OUT/$name/logs/*colocc*.colocctl.txt 2>/dev/null | cut -c1-170 | head -6
  grep -h "park_\|launches_ptb\|launches_sliced" $OUT/$name/logs/*.be.stats.json 2>/dev/null | head -6
  grep -ch "more often than its" $OUT/$name/logs/*colocc*.be.err 2>/dev/null
  tail -2 $OUT/$name/logs/*colocc*.be.out | cut -c1-200
  (cd $OUT && tar czf $name.tgz $name && rm -rf $name)
}
cell long-r1 --be gpt_train_long --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1 --colocc-env COLOC_LOG=info
cell short-r1 --be gpt_train_short --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1 --colocc-env COLOC_LOG=info
