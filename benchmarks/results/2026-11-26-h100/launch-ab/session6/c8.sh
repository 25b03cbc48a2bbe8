#!/bin/sh
# Sixth session, call 8: the build after the review (flag stored before the call too, idle published under the lock)
# against dd9f6f7, launch_ab 300 2000; then a suite check that the latency tenant's marks
# still hold the trainers back (graphed ResNet-50 at load 0.5, both trainers, MPS).
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
for i in 1 2 3; do
  echo "== CPU 4: no preload ($i)"
  taskset -c 4 $c/launch_ab 300 2000 | tail -1
  echo "== CPU 4: HEAD ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 300 2000 | tail -1
  echo "== CPU 4: dd9f6f7 ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 300 2000 | tail -1
done
for i in 1 2; do
  echo "== CPUs 4,5: no preload ($i)"
  taskset -c 4,5 $c/launch_ab 300 2000 | tail -1
  echo "== CPUs 4,5: HEAD ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4,5 $c/launch_ab 300 2000 | tail -1
  echo "== CPUs 4,5: dd9f6f7 ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4,5 $c/launch_ab 300 2000 | tail -1
done
echo "== suite"
build-gpu/suite/run --pin build-gpu/suite $OUT/suite --latency resnet50_graph_b1 --be gpt_train_short,gpt_train_long --modes alone,colocc-full --seconds 12 2>&1 | tail -30
echo "== runtime GPU check"
sh build-gpu/rt/run build-gpu/rt $OUT/rt > $OUT/rt-console.txt 2>&1; tail -1 $OUT/rt-console.txt; cd $OUT && tar czf rt.tgz rt && rm -rf rt && tar czf suite.tgz --exclude=suite/colocc-cache --exclude=suite/latency suite && rm -rf suite
