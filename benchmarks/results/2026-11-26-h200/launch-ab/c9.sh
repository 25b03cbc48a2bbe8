#!/bin/sh
# Call 9 (fifth session): libcoloc's cost per launch call of a latency tenant, in one
# process (benchmarks/colocation/launch_ab.c): blocks of 20,000 empty-kernel launches
# alternating between the program's cuLaunchKernel (libcoloc's under LD_PRELOAD) and
# libcuda's own, 30 rounds, pinned to one CPU.
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
echo "== no preload: both ways are libcuda's (the noise floor)"
taskset -c 4 $c/launch_ab 30 20000
echo "== latency tenant"
LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_STATS_FILE=$OUT/latency.json taskset -c 4 $c/launch_ab 30 20000
echo "== COLOC_DISABLE=1"
LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_DISABLE=1 taskset -c 4 $c/launch_ab 30 20000 | tail -1
echo "== latency tenant, again"
LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
echo "== latency tenant, unpinned"
LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency $c/launch_ab 30 20000 | tail -1
grep launches_original $OUT/latency.json
