# Nineteenth session, call 3: the stop word read only after the meetings whose next meeting
# may not read it (the tree that became the commit after 4a60774; "new") against reading
# after every meeting (4a60774's libcoloc.so, "old", in build-gpu/suite-old).  (1) The CuPy
# MLP alone, best-effort, 12 s, old and new alternating twice; (2) its suite cell beside the
# graphed ResNet-50 (load 0.5, colocc-ts-full, 6 s), new then old; (3) the GPU differential
# tests on the new passes (resume build, storm 100); (4) the default matrix's core with new,
# if time is left.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c3; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
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
grep -h "profile: mlp_gemm" $O/alone/new1/coloc.log $O/alone/old1/coloc.log | cut -c1-250
unset COLOC_RUN_DIR
for v in new old; do d=$S; [ $v = old ] && d=${S}-old
timeout 120 python3 $d/run --pin $d $O/mlp-$v --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 110 > $O/mlp-$v.txt 2>&1
echo "mlp cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/mlp-$v/summary.md | cut -c1-250; done
timeout 230 python3 build-gpu/tr/run --resume --storm 100 build-gpu/tr $O/diff-tr > $O/diff-tr.txt 2>&1
echo "diffrun rc=$? at $(( $(date +%s) - t0 )) s"; tail -25 $O/diff-tr.txt
left=$(( 560 - ($(date +%s) - t0) ))
if [ $left -gt 90 ]; then
timeout $left python3 $S/run --pin $S $O/core --modes alone,colocc-ts-full --seconds 6 --budget $(( left - 10 )) > $O/core.txt 2>&1
echo "core rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/core/summary.md | cut -c1-250; fi
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c3.tgz c3 && rm -rf c3 && ls -la $OUT
