# Prepared in the twenty-eighth session, not run there (no device time left): does a hold after
# the drain (COLOC_HOLD_US, counted from the drain since 27ad2d6) keep the short GPT trainer's
# kernels from reaching the GPU between back-to-back requests, and what does it cost the trainer?
# Graphed ResNet-50 b1, load 0.5, Poisson, 10 s a cell, tenants pinned; each part alone and
# colocc-full beside gpt_train_short, 3 repetitions (9 cells, estimated 176 s), with its own runs alone:
# (a) defaults; (b) COLOC_HOLD_US=100; (c) COLOC_HOLD_US=300.
# Prepare first: ./setup.sh && rm -rf build-gpu/suite && sh benchmarks/suite/prepare build build-gpu/suite
# usage: sh call3.sh [SECONDS_EACH]  (default 195; parts that would not fit 590 s are skipped)
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s29; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite; E=${1:-195}
pack() { find $O/$1 -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
  (cd $OUT && tar czf s29-$1.tgz s29/$1 s29/$1.txt s29/machine.txt && rm -rf s29/$1); }
show() { grep -E "^[|] resnet50" $1/summary.md | cut -c1-250 | grep -v "n/a | alone"; awk '/Service time/,/idle time/' $1/summary.md | cut -c1-200; grep -h "busy periods" $1/logs/*.colocctl.txt; }
for part in a:COLOC_HOLD_US=0 b:COLOC_HOLD_US=100 c:COLOC_HOLD_US=300; do
  p=${part%%:*}; env=${part#*:}
  [ $(( $(date +%s) - t0 + E )) -gt 590 ] && { echo "$p skipped: no time left"; continue; }
  timeout $E python3 $S/run --pin $S $O/$p --modes alone,colocc-full --be gpt_train_short --repeat 3 --colocc-env $env --budget $((E-15)) > $O/$p.txt 2>&1
  echo "$p ($env) rc=$? at $(( $(date +%s) - t0 )) s"; show $O/$p; tail -3 $O/$p.txt; pack $p
done
ls -la $OUT
