#!/bin/sh
# Call 11 (fifth session): where a latency launch's added time goes. launch_ab under three
# builds of libcoloc, made only for this (not committed): BASE (as committed), NO_CTXQUERY
# (current_dev reuses the thread's device without asking cuCtxGetCurrent), ONE_MARK (no
# second busy mark after the launch); in turn, three times each, pinned to CPU 4.
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
for i in 1 2 3; do
  for v in BASE NO_CTXQUERY ONE_MARK; do
    echo "== $v ($i)"
    LD_PRELOAD=$PWD/build-gpu/exp/$v.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
  done
done
