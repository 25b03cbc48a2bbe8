# Nineteenth session, call 2: where the CuPy MLP tenant (offline_infer.py) loses its
# throughput under colocc.  (1) The tenant alone, 12 s each, best-effort role, no latency
# tenant: without the preload, then with it under each setting below (fresh caches, info
# log, stats file): which forms the profiler picks, the register caps, and the units/s.
# (2) The suite's cell beside the graphed ResNet-50 (load 0.5, colocc-ts-full, 6 s) with the
# default and with the setting that ran fastest alone (picked by this script).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c2; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col; S=build-gpu/suite
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
one() { # NAME ENV...
  n=$1; shift; mkdir -p $O/alone/$n
  env "$@" COLOC_CACHE_DIR=/tmp/cache-$n COLOC_STATS_FILE=$O/alone/$n/stats.json COLOC_LOG=info \
    COLOC_LOG_FILE=$O/alone/$n/coloc.log timeout 60 python3 benchmarks/suite/offline_infer.py \
    --seconds 12 --out $O/alone/$n/result.json > $O/alone/$n/out.txt 2>&1
  echo "$n rc=$? $(python3 -c "import json,sys; r=json.load(open('$O/alone/$n/result.json')); s=r['timeseries']; print(r['check'][:40], 'units/s all', r['throughput'], 'last half', round(sum(x[1] for x in s[len(s)//2:])/max(1,len(s)-len(s)//2),2))" 2>&1 | tail -1)"
}
L="LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=best-effort"
one plain COLOC_DISABLE=1
one auto $L
one original $L COLOC_FORM=original
one slice $L COLOC_FORM=slice
one ptb $L COLOC_FORM=ptb
one copy $L COLOC_STOP_READ=copy
one nofresh $L COLOC_FRESH=0
one noresume $L COLOC_RESUME=0
one norestart $L COLOC_RESTART=0
echo "alone at $(( $(date +%s) - t0 )) s"
grep -h "profile: mlp_gemm\|capped at" $O/alone/auto/coloc.log | cut -c1-300 | head -12
best=$(python3 - $O/alone <<'PY'
import json, sys, os
d = sys.argv[1]; rate = {}
for n in ("copy", "nofresh", "noresume", "norestart"):
    try:
        r = json.load(open(os.path.join(d, n, "result.json"))); s = r["timeseries"]
        if r["check"] == "ok": rate[n] = sum(x[1] for x in s[len(s)//2:]) / (len(s) - len(s)//2)
    except Exception: pass
print(max(rate, key=rate.get) if rate else "copy")
PY
)
case $best in copy) E=COLOC_STOP_READ=copy;; nofresh) E=COLOC_FRESH=0;; noresume) E=COLOC_RESUME=0;; *) E=COLOC_RESTART=0;; esac
echo "fastest alone of the settings: $best ($E)"
unset COLOC_RUN_DIR
timeout 150 python3 $S/run --pin $S $O/def --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 6 --budget 140 > $O/def.txt 2>&1
echo "default rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/def/summary.md | cut -c1-250
timeout 150 python3 $S/run --pin $S $O/alt --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --colocc-env $E --seconds 6 --budget 140 > $O/alt.txt 2>&1
echo "$E rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/alt/summary.md | cut -c1-250
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
