#!/bin/sh
# Call 12 (fifth session): the second busy mark made only when the monitor began a settle
# since the first (a generation), against the build before (build-gpu/exp/BASE.so), in turn,
# launch_ab 30 x 20,000 pinned to CPU 4; then the short trainer's time-slicing cell with it.
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
echo "== no preload (floor)"
taskset -c 4 $c/launch_ab 30 20000 | tail -1
for i in 1 2 3; do
  echo "== generation ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
  echo "== before ($i)"
  LD_PRELOAD=$PWD/build-gpu/exp/BASE.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
done
echo "== suite: short trainer, time-slicing"
timeout -k 5 200 build-gpu/suite/run --pin build-gpu/suite $OUT/short --latency resnet50_graph_b1 \
  --be gpt_train_short --modes alone,colocc-ts-full --seconds 12 > $OUT/short.log 2>&1
echo rc=$?
sed -n '/^## Headline/,/^## All/p' $OUT/short/summary.md | grep '|' | head -6
grep -h "preemptions\|coverage" $OUT/short/logs/*colocc*.colocctl.txt | cut -c1-170 | head -3
(cd $OUT && tar czf short.tgz short && rm -rf short)
