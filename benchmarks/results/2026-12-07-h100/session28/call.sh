# Twenty-eighth session's call 2: the busy edge that no longer waits for a best-effort tenant
# with no persistent launch out (runtime/coord.h ptb_out, preempt.c coloc_ptb_poll), side by side
# with the library before it. Graphed ResNet-50 b1, load 0.5, Poisson, 10 s a cell, tenants pinned.
# (a) the new library (build-gpu/suite-new): alone and colocc-full beside both GPT trainers,
#     AREP repetitions (default 3; 15 cells, estimated 290 s);
# (b) the library before (build-gpu/suite, commit 755aaf8's code): alone and colocc-full beside
#     the short trainer, 3 repetitions (9 cells), skipped when B is 0 or TOTAL leaves under 200 s.
# usage: [AREP=N] sh call.sh [A_SECONDS [B_SECONDS [TOTAL]]]  (defaults 320, 215)
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s28; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); A=${1:-320}; B=${2:-215}
pack() { find $O/$1 -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
  (cd $OUT && tar czf s28-$1.tgz s28/$1 s28/$1.txt s28/machine.txt && rm -rf s28/$1); }
show() { grep -E "^[|] (resnet50|n/a)" $1/summary.md | cut -c1-250 | grep -v "n/a | alone"; awk '/Service time/,/idle time/' $1/summary.md | cut -c1-200; grep -h "edge wait" $1/logs/*.colocctl.txt; }
if [ "$A" -gt 0 ]; then
  S=build-gpu/suite-new
  timeout $A python3 $S/run --pin $S $O/a --modes alone,colocc-full --be gpt_train_long,gpt_train_short --repeat ${AREP:-3} --budget $((A-15)) > $O/a.txt 2>&1
  echo "a rc=$? at $(( $(date +%s) - t0 )) s"; show $O/a; tail -3 $O/a.txt; pack a
fi
if [ -n "$3" ]; then left=$(( $3 - ($(date +%s) - t0) - 20 )); [ $left -lt $B ] && B=$left; [ $B -lt 200 ] && B=0; fi
if [ "$B" -gt 0 ]; then
  S=build-gpu/suite
  timeout $B python3 $S/run --pin $S $O/b --modes alone,colocc-full --be gpt_train_short --repeat 3 --budget $((B-15)) > $O/b.txt 2>&1
  echo "b rc=$? at $(( $(date +%s) - t0 )) s"; show $O/b; tail -3 $O/b.txt; pack b
fi
ls -la $OUT
