# The thirtieth session's shorter form of ../session29/callf.sh, for when device time runs short: the
# same library and setup; launch_ab 4 runs on CPUs 4,5 and 3 on CPU 4; both GPT trainers
# beside graphed ResNet-50 b1 in colocc-full and colocc-ts-full, 2 repetitions, without
# colocc-solo (14 cells, estimated 289 s).
# Prepare first: ./setup.sh && rm -rf build-gpu/suite build-gpu/col &&
#   sh benchmarks/suite/prepare build build-gpu/suite &&
#   sh benchmarks/colocation/prepare build build-gpu/col; carry build-gpu/suite and build-gpu/col.
# usage: sh callg.sh
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s30; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col; S=build-gpu/suite; cp $S/PREPARED.txt $O/prepared.txt
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ for i in 1 2 3 4; do echo "== latency tenant, CPUs 4,5 ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info taskset -c 4,5 timeout 40 $c/launch_ab 30 20000; done
  for i in 1 2 3; do echo "== latency tenant, CPU 4 ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info taskset -c 4 timeout 40 $c/launch_ab 30 20000; done; } > $O/launch_ab.txt 2>&1
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|over|mean of|per launch|stays busy" $O/launch_ab.txt | cut -c1-230
unset COLOC_RUN_DIR
timeout 320 python3 $S/run --pin $S $O/f --modes alone,colocc-full,colocc-ts-full \
  --be gpt_train_short,gpt_train_long --repeat 2 --budget 300 > $O/f.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "^[|] resnet50" $O/f/summary.md | cut -c1-200 | grep -v "n/a | alone"
grep -h "busy periods" $O/f/logs/*.colocctl.txt
grep -h "stays busy" $O/f/logs/*lat.err | sort | uniq -c
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf s30.tgz s30 && rm -rf s30/f
