# Twenty-fifth session, call 2 (unrun: after one call no machine could be started, and the
# failed starts spent the device time): the profiler counting a persistent form's turnaround
# from its third stop (runtime/profile.c; in call 1 one 399.7 us first stop moved the long
# trainer's largest GEMM to 279 us slices for good), alone and colocc-full (graphed ResNet-50
# b1, load 0.5, Poisson, 10 s a cell).
# usage: sh call.sh [SECONDS [REPEAT [BE]]]: the suite's time limit (default 400), its
# repetitions (default 3) and best-effort workloads (default both GPT trainers). The suite
# refuses a budget below its estimate: both trainers, 3 repetitions, 15 cells, 290 s; the long
# trainer alone, 2 repetitions (`sh call.sh 200 2 gpt_train_long`), 6 cells, 138 s.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c2; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite; B=${1:-400}; R=${2:-3}; W=${3:-gpt_train_long,gpt_train_short}
timeout $B python3 $S/run --pin $S $O/fill --modes alone,colocc-full --be $W --repeat $R --budget $((B-15)) > $O/fill.txt 2>&1
echo "fill rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "^[|] (resnet50|n/a)" $O/fill/summary.md | cut -c1-250 | grep -v "n/a | alone"; awk '/Service time/,/idle time/' $O/fill/summary.md | cut -c1-200; tail -4 $O/fill.txt
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
