# Thirty-first session: issue 4's overhead for a latency tenant alone, with launch_ab warming up
# both ways before its rounds (the first hooked launch joins the coordinator; before 2b91d18
# that start landed in round 0). launch_ab 30 20000, 6 runs on CPUs 4,5 and 6 on CPU 4, under
# LD_PRELOAD=libcoloc.so COLOC_ROLE=latency, nothing else set.
# Prepare: ./setup.sh && rm -rf build-gpu/col && sh benchmarks/colocation/prepare build build-gpu/col;
# carry build-gpu/col.
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/s31o; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; t0=$(date +%s); c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ for i in 1 2 3 4 5 6; do echo "== latency tenant, CPUs 4,5 ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info taskset -c 4,5 timeout 40 $c/launch_ab 30 20000; done
  for i in 1 2 3 4 5 6; do echo "== latency tenant, CPU 4 ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info taskset -c 4 timeout 40 $c/launch_ab 30 20000; done; } > $O/launch_ab.txt 2>&1
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|warm-up|over|mean of|per launch" $O/launch_ab.txt | cut -c1-230
