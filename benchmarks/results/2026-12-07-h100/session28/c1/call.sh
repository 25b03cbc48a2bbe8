# Twenty-sixth session's call: (a) the twenty-fifth session's unrun call 2, the profiler
# counting a persistent form's turnaround from its third stop (runtime/profile.c), alone and
# colocc-full beside both GPT trainers, three repetitions; (b) COLOC_BE_DEPTH=1 beside the short
# trainer without MPS, two repetitions (what waits ahead of the latency tenant at a busy edge).
# Graphed ResNet-50 b1, load 0.5, Poisson, 10 s a cell.
# usage: sh call.sh [A_SECONDS [B_SECONDS [TOTAL]]]: time limits of the two suite runs (default
# 390 and 185; 0 skips one); with TOTAL, (b) gets at most what is left of TOTAL seconds after (a)
# less 20, and is skipped under 150 (the suite refuses a matrix estimated over its budget).
# AREP=N: N repetitions in (a) (default 3; 2 fit A=230, 1 fits A=140).
# Estimates: (a) 15 cells, 290 s; (b) 6 cells, 128 s.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s26; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite; A=${1:-390}; B=${2:-185}
# each part is packed as soon as it ends ($OUT/s26-a.tgz, $OUT/s26-b.tgz), so that a call cut
# short by the device's time limit still brings back what finished
pack() { find $O/$1 -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
  (cd $OUT && tar czf s26-$1.tgz s26/$1 s26/$1.txt s26/machine.txt && rm -rf s26/$1); }
show() { grep -E "^[|] (resnet50|n/a)" $1/summary.md | cut -c1-250 | grep -v "n/a | alone"; awk '/Service time/,/idle time/' $1/summary.md | cut -c1-200; }
if [ "$A" -gt 0 ]; then
  timeout $A python3 $S/run --pin $S $O/a --modes alone,colocc-full --be gpt_train_long,gpt_train_short --repeat ${AREP:-3} --budget $((A-15)) > $O/a.txt 2>&1
  echo "a rc=$? at $(( $(date +%s) - t0 )) s"; show $O/a; tail -3 $O/a.txt; pack a
fi
if [ -n "$3" ]; then left=$(( $3 - ($(date +%s) - t0) - 20 )); [ $left -lt $B ] && B=$left; [ $B -lt 150 ] && B=0; fi
if [ "$B" -gt 0 ]; then
  timeout $B python3 $S/run --pin $S $O/b --modes alone,colocc-full --be gpt_train_short --repeat 2 --colocc-env COLOC_BE_DEPTH=1 --budget $((B-15)) > $O/b.txt 2>&1
  echo "b rc=$? at $(( $(date +%s) - t0 )) s"; show $O/b; tail -3 $O/b.txt; pack b
fi
ls -la $OUT
