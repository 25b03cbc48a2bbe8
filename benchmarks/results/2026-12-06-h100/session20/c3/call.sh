# Twentieth session, call 3: "new" = 9215e30 (register-cap levels; the hold rule slices
# where a sliced candidate was measured within 4 turnaround bounds a slice or, with none
# measured, where the kernel's estimate is within that); "old" = 49ab3f6.  Call 2's first
# form of the rule (no fallback) kept the MLP at 0.77 of idle but the short trainer at 0.32.
# (1) The default matrix's core (graphed ResNet-50 b1, load 0.5, both GPT trainers,
# colocc-ts-full, 6 s): new, old, new; (2) the CuPy MLP's cell: new twice; (3) the short
# trainer alone with new at info log, for its profile.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c3; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
for v in new1 old new2; do d=$S; [ $v = old ] && d=${S}-old
timeout 120 python3 $d/run --pin $d $O/core-$v --modes alone,colocc-ts-full --seconds 6 --budget 110 > $O/core-$v.txt 2>&1
echo "core $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/core-$v/summary.md | cut -c1-250; grep -h "turnaround\|edge wait\|coverage" $O/core-$v/logs/*colocc*.colocctl.txt | cut -c1-200; done
for v in new1 new2; do
timeout 110 python3 $S/run --pin $S $O/mlp-$v --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 100 > $O/mlp-$v.txt 2>&1
echo "mlp cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/mlp-$v/summary.md | cut -c1-250; done
mkdir -p $O/short-alone
LD_PRELOAD=$PWD/$S/libcoloc.so COLOC_ROLE=best-effort COLOC_CACHE_DIR=/tmp/cache-short COLOC_LOG=info COLOC_LOG_FILE=$O/short-alone/coloc.log \
  COLOC_STATS_FILE=$O/short-alone/stats.json timeout 60 $S/gpt_train --config short --seconds 10 --out $O/short-alone/result.json > $O/short-alone/out.txt 2>&1
echo "short alone rc=$?"; tail -2 $O/short-alone/out.txt; grep -c "profile:" $O/short-alone/coloc.log; grep "profile:" $O/short-alone/coloc.log | grep -c "slice:"
echo "at $(( $(date +%s) - t0 )) s"
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c3.tgz c3 && rm -rf c3 && ls -la $OUT
