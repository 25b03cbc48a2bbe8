# Twentieth session, call 1: register-cap levels (cache format 13; "new": of the persistent
# variant and its copies capped at each occupancy level, a launch runs the one with the
# fewest rounds, the most registers among those) against 49ab3f6 ("old": one copy, at the
# original's limit, past one wave), in build-gpu/suite-old.  (1) The CuPy MLP alone,
# best-effort, 12 s, new and old alternating twice; (2) its suite cell beside the graphed
# ResNet-50 (load 0.5, colocc-ts-full, 6 s), new then old; (3) the GPU differential tests
# on the new copies (resume build, storm 100); (4) the default matrix's core with new, if
# time is left.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c1; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
one() { # NAME LIB
  n=$1; mkdir -p $O/alone/$n
  LD_PRELOAD=$PWD/$2/libcoloc.so COLOC_ROLE=best-effort COLOC_CACHE_DIR=/tmp/cache-$n COLOC_STATS_FILE=$O/alone/$n/stats.json \
    COLOC_LOG=info COLOC_LOG_FILE=$O/alone/$n/coloc.log timeout 60 python3 benchmarks/suite/offline_infer.py \
    --seconds 12 --out $O/alone/$n/result.json > $O/alone/$n/out.txt 2>&1
  echo "$n rc=$? $(python3 -c "import json,sys; r=json.load(open('$O/alone/$n/result.json')); s=r['timeseries']; print(r['check'][:40], 'units/s all', r['throughput'], 'last half', round(sum(x[1] for x in s[len(s)//2:])/max(1,len(s)-len(s)//2),2))" 2>&1 | tail -1)"
}
one new1 $S; one old1 ${S}-old; one new2 $S; one old2 ${S}-old
echo "alone at $(( $(date +%s) - t0 )) s"
grep -h "profile: mlp_gemm\|capped at" $O/alone/new1/coloc.log $O/alone/old1/coloc.log | cut -c1-250 | head -30
unset COLOC_RUN_DIR
for v in new old; do d=$S; [ $v = old ] && d=${S}-old
timeout 120 python3 $d/run --pin $d $O/mlp-$v --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 110 > $O/mlp-$v.txt 2>&1
echo "mlp cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/mlp-$v/summary.md | cut -c1-250; grep -h "gpu samples\|SM clock" $O/mlp-$v/machine.txt $O/mlp-$v/summary.md 2>/dev/null | head -4; done
timeout 240 python3 build-gpu/tr/run --resume --storm 100 build-gpu/tr $O/diff-tr > $O/diff-tr.txt 2>&1
echo "diffrun rc=$? at $(( $(date +%s) - t0 )) s"; tail -22 $O/diff-tr.txt
left=$(( 565 - ($(date +%s) - t0) ))
if [ $left -gt 90 ]; then
timeout $left python3 $S/run --pin $S $O/core --modes alone,colocc-ts-full --seconds 6 --budget $(( left - 10 )) > $O/core.txt 2>&1
echo "core rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/core/summary.md | cut -c1-250; fi
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c1.tgz c1 && rm -rf c1 && ls -la $OUT
