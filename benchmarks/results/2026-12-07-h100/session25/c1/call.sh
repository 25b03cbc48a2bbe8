# Twenty-third session, call 2 (unrun in the twenty-third and twenty-fourth sessions: no machine
# could be started): the profiler measuring originals within twice the bound (runtime/profile.c),
# and colocc-fill now colocc-full with policy fill (both tenants leave MPS; in call 1 they
# stayed MPS clients), next to alone and colocc-full, two repetitions (default workloads:
# graphed ResNet-50 b1, both GPT trainers, load 0.5, 10 s a cell).
# usage: sh call.sh [SECONDS [MODES]]: the suite's time limit (default 480; the plan of
# 14 cells is estimated at 289 s, of 10 cells without colocc-fill at 204 s, and the suite
# refuses a budget below its estimate) and its modes.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c2; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite; B=${1:-480}; M=${2:-alone,colocc-full,colocc-fill}
timeout $B python3 $S/run --pin $S $O/fill --modes $M --repeat 2 --budget $((B-20)) > $O/fill.txt 2>&1
echo "fill rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "^[|] (resnet50|n/a)" $O/fill/summary.md | head -8 | cut -c1-250; awk '/Service time/,/idle time/' $O/fill/summary.md | cut -c1-200; tail -4 $O/fill.txt
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
