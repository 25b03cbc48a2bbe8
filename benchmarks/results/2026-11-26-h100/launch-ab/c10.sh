#!/bin/sh
# Call 10 (fifth session): launch_ab with libcoloc built with TLS descriptors
# (-mtls-dialect=gnu2), against the build before it (build-gpu/old, call 9's) in the same
# call, alternating, pinned to one CPU; and the no-preload noise floor.
c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun
mkdir -p $COLOC_RUN_DIR
nvidia-smi -L
echo "== no preload (noise floor)"
taskset -c 4 $c/launch_ab 30 20000 | tail -1
for i in 1 2 3; do
  echo "== latency tenant, TLS descriptors ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
  echo "== latency tenant, call 9's build ($i)"
  LD_PRELOAD=$PWD/build-gpu/old/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000 | tail -1
done
echo "== latency tenant, TLS descriptors, full table"
LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency taskset -c 4 $c/launch_ab 30 20000
