# Twentieth session, call 4: call 3's two libraries side by side again, to tell a change in
# the trainers' p99 from the cells' spread: the default matrix's core (graphed ResNet-50
# b1, load 0.5, both GPT trainers, colocc-ts-full, 6 s), old, new, old, new ("new" 9215e30,
# "old" 49ab3f6), then the CuPy MLP's cell with old.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c4; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
for v in old1 new1 old2 new2; do d=$S; case $v in old*) d=${S}-old;; esac
timeout 110 python3 $d/run --pin $d $O/core-$v --modes alone,colocc-ts-full --seconds 6 --budget 100 > $O/core-$v.txt 2>&1
echo "core $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/core-$v/summary.md | cut -c1-250; grep -h "turnaround\|edge wait" $O/core-$v/logs/*colocc*.colocctl.txt | cut -c1-200; done
timeout 100 python3 ${S}-old/run --pin ${S}-old $O/mlp-old --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 90 > $O/mlp-old.txt 2>&1
echo "mlp cell old rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/mlp-old/summary.md | cut -c1-250
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c4.tgz c4 && rm -rf c4 && ls -la $OUT
