#!/bin/sh
# Call 5 (fifth session, H100): (a) a stream waiting on mapped host memory under
# time-slicing; explicit module loads beside a held stream; (b) the suite's long and short
# trainer cells under time-slicing with the gate in device memory and EAGER loading.
nvidia-smi -L
c=build-gpu/col
echo "== probe alone"; $c/park_probe probe 4
echo "== probe beside waithost"; $c/park_probe hold waithost 7 & h=$!; sleep 2; $c/park_probe probe 4; wait $h; echo "hold rc $?"
echo "== probe beside wait (device)"; $c/park_probe hold wait 7 & h=$!; sleep 2; $c/park_probe probe 4; wait $h; echo "hold rc $?"
echo "== hold load, eager"; CUDA_MODULE_LOADING=EAGER $c/park_probe hold load; echo "rc $?"
echo "== hold load, lazy"; CUDA_MODULE_LOADING=LAZY $c/park_probe hold load; echo "rc $?"
cell() {
  name=$1; shift
  echo "== $name: $*"
  timeout -k 5 200 build-gpu/suite/run --pin build-gpu/suite $OUT/$name --latency resnet50_graph_b1 \
    --seconds 12 "$@" > $OUT/$name.log 2>&1
  echo rc=$?
  sed -n '/^## Headline/,/^## All/p' $OUT/$name/summary.md | grep '|' | head -8
  grep -h "preemptions\|coverage" $OUT/$name/logs/*colocc*.colocctl.txt 2>/dev/null | cut -c1-170 | head -6
  grep -h "park_chains_broken\|launches_ptb\|launches_sliced" $OUT/$name/logs/*.be.stats.json 2>/dev/null | head -4
  tail -2 $OUT/$name/logs/*colocc*.be.out | cut -c1-200
  (cd $OUT && tar czf $name.tgz $name && rm -rf $name)
}
cell long-r1 --be gpt_train_long --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1 --colocc-env COLOC_LOG=info
cell short-r1 --be gpt_train_short --modes alone,colocc-ts-full --colocc-env COLOC_RESTART=1
