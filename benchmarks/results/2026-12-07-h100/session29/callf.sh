# Prepared in the twenty-ninth session, not run there (no device time left): the new default
# (COLOC_HOLD_US=100 under policy isolate, the fast launch path kept; 4c75b38) on a GPU, with
# nothing set. Both GPT trainers, with MPS running (colocc-full) and without (colocc-ts-full),
# and the latency tenant alone under libcoloc (colocc-solo) beside the plain run alone, to tell
# whether libcoloc is why colocated queued requests were served faster than alone (README.md).
# Graphed ResNet-50 b1, load 0.5, Poisson, 10 s a cell, tenants pinned, 3 repetitions
# (24 cells, estimated 468 s). Prepare first: ./setup.sh && rm -rf build-gpu/suite &&
# sh benchmarks/suite/prepare build build-gpu/suite; carry build-gpu/suite.
# usage: sh callf.sh
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s30; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
S=build-gpu/suite; cp $S/PREPARED.txt $O/prepared.txt
timeout 560 python3 $S/run --pin $S $O/f --modes alone,colocc-solo,colocc-full,colocc-ts-full \
  --be gpt_train_short,gpt_train_long --repeat 3 --budget 540 > $O/f.txt 2>&1
echo "rc=$?"
grep -E "^[|] resnet50" $O/f/summary.md | cut -c1-200 | grep -v "n/a | alone"
grep -h "busy periods" $O/f/logs/*.colocctl.txt
grep -h "stays busy" $O/f/logs/*lat.err | sort | uniq -c
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf s30-f.tgz s30 && rm -rf s30/f
