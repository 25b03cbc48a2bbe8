# Nineteenth session, call 4: call 3's two libraries side by side again, in one call: the
# default matrix's core (graphed ResNet-50 b1 at load 0.5 beside both GPT trainers,
# colocc-ts-full, 6 s cells), new then old then new then old, and the CuPy MLP's cell, new
# then old.  "new": the stop word read only after the meetings whose next meeting may not
# read it; "old": 4a60774, a read after every meeting.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c4; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
for r in 1 2; do for v in new old; do d=$S; [ $v = old ] && d=${S}-old
timeout 110 python3 $d/run --pin $d $O/core-$v$r --modes alone,colocc-ts-full --seconds 6 --budget 100 > $O/core-$v$r.txt 2>&1
echo "core $v$r rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/core-$v$r/summary.md | cut -c1-250; done; done
for v in new old; do d=$S; [ $v = old ] && d=${S}-old
timeout 100 python3 $d/run --pin $d $O/mlp-$v --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 90 > $O/mlp-$v.txt 2>&1
echo "mlp cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/mlp-$v/summary.md | cut -c1-250; done
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c4.tgz c4 && rm -rf c4 && ls -la $OUT
