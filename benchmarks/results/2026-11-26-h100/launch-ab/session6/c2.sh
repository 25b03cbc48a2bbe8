#!/bin/sh
# Sixth session, call 2: as call 1 with shorter blocks and ten times the rounds
# (launch_ab 300 2000), so that the median of the paired rounds resolves a few ns.
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
for i in 1 2 3; do
  echo "== CPU 4: no preload ($i)"
  taskset -c 4 $c/launch_ab 300 2000 | tail -1
  echo "== CPU 4: inline build ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 300 2000 | tail -1
  echo "== CPU 4: dd9f6f7 build ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 300 2000 | tail -1
done
for i in 1 2; do
  echo "== CPUs 4,5: no preload ($i)"
  taskset -c 4,5 $c/launch_ab 300 2000 | tail -1
  echo "== CPUs 4,5: inline build ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4,5 $c/launch_ab 300 2000 | tail -1
  echo "== CPUs 4,5: dd9f6f7 build ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4,5 $c/launch_ab 300 2000 | tail -1
done
