#!/bin/sh
# Sixth session, call 1: launch_ab with the inline latency launch (hooks.c LAUNCH,
# scheduler.h coloc_latency_begin/_end: no cuCtxGetCurrent with one GPU, one flag store
# after the call) against the build before it (dd9f6f7, build-gpu/old), alternating, in
# the same call; pinned to one CPU (the monitor thread shares it) and to two.
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
nvidia-smi --query-gpu=driver_version --format=csv,noheader
echo "== no preload (noise floor), CPU 4"
taskset -c 4 $c/launch_ab 30 20000 | tail -1
for i in 1 2 3; do
  echo "== CPU 4: inline build ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
  echo "== CPU 4: dd9f6f7 build ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
done
for i in 1 2; do
  echo "== CPUs 4,5: inline build ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4,5 $c/launch_ab 30 20000 | tail -1
  echo "== CPUs 4,5: dd9f6f7 build ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4,5 $c/launch_ab 30 20000 | tail -1
done
echo "== CPUs 4,5: no preload (noise floor)"
taskset -c 4,5 $c/launch_ab 30 20000 | tail -1
echo "== CPU 4: inline build, full table"
LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000
