# Twentieth session, call 2: "new" = call 1's register-cap levels plus the hold rule's fix
# (under COLOC_PARK=host a persistent launch measured under 500 us runs sliced only in
# slices measured within 4 turnaround bounds; call 1's MLP cell ran its 64x16 GEMMs, one
# four times the other, in ~1 ms slices: p99 +42.1%); "old" = 49ab3f6.  (1) The CuPy MLP
# alone, 12 s, new then old; (2) its cell beside the graphed ResNet-50 (load 0.5,
# colocc-ts-full, 6 s): new, old, new; (3) the default matrix's core with new.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c2; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
one() { # NAME LIB
  n=$1; mkdir -p $O/alone/$n
  LD_PRELOAD=$PWD/$2/libcoloc.so COLOC_ROLE=best-effort COLOC_CACHE_DIR=/tmp/cache-$n COLOC_STATS_FILE=$O/alone/$n/stats.json \
    COLOC_LOG=info COLOC_LOG_FILE=$O/alone/$n/coloc.log timeout 60 python3 benchmarks/suite/offline_infer.py \
    --seconds 12 --out $O/alone/$n/result.json > $O/alone/$n/out.txt 2>&1
  echo "$n rc=$? $(python3 -c "import json,sys; r=json.load(open('$O/alone/$n/result.json')); s=r['timeseries']; print(r['check'][:40], 'units/s all', r['throughput'], 'last half', round(sum(x[1] for x in s[len(s)//2:])/max(1,len(s)-len(s)//2),2))" 2>&1 | tail -1)"
}
one new $S; one old ${S}-old
grep -h "profile: mlp" $O/alone/new/coloc.log | cut -c1-300
unset COLOC_RUN_DIR
for v in new1 old new2; do d=$S; [ $v = old ] && d=${S}-old
timeout 110 python3 $d/run --pin $d $O/mlp-$v --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 100 > $O/mlp-$v.txt 2>&1
echo "mlp cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/mlp-$v/summary.md | cut -c1-250; grep -h "turnaround\|edge wait" $O/mlp-$v/logs/*colocc*.colocctl.txt | cut -c1-200; done
left=$(( 450 - ($(date +%s) - t0) ))
if [ $left -gt 90 ]; then
timeout $left python3 $S/run --pin $S $O/core --modes alone,colocc-ts-full --seconds 6 --budget $(( left - 10 )) > $O/core.txt 2>&1
echo "core rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/core/summary.md | cut -c1-250; fi
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
