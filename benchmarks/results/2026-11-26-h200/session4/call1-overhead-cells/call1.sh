#!/bin/sh
# Call 1 (2026-11-26, fourth session): launch hook cost against the last session's build; the
# long-trainer cell with COLOC_RESTART=1 (profiler now times restartable stops) and =0; the
# short-trainer cell (membarrier handshake on the latency side).
nvidia-smi -L
C=build-gpu/col
echo "== overhead, one CPU"
timeout -k 5 150 python3 $C/overhead $C $OUT/overhead-1cpu --rounds 10 --cpus 4 --against old=build-gpu/old/libcoloc.so | tail -8
echo "== overhead, two CPUs"
timeout -k 5 150 python3 $C/overhead $C $OUT/overhead-2cpu --rounds 10 --cpus 4,5 --against old=build-gpu/old/libcoloc.so | tail -8
for r in 1 0; do
  echo "== long trainer, COLOC_RESTART=$r"
  timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/long-restart$r --latency resnet50_graph_b1 \
    --be gpt_train_long --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=$r > $OUT/long-restart$r.log 2>&1
  echo rc=$?
  sed -n '/^## All runs/,/^## Service/p' $OUT/long-restart$r/summary.md | cut -d'|' -f3-6,11,14,16,17 | head -12
  cut -c1-150 $OUT/long-restart$r/logs/*colocc-full*.colocctl.txt | head -9
  cat $OUT/long-restart$r/colocc-cache/profile/*/* | awk '{print $1, $2, $5, $9, $10, $11, $12, $13, $15, $16}' | cut -c1-140 | tail -40
done
echo "== short trainer"
timeout -k 5 120 build-gpu/suite/run --pin build-gpu/suite $OUT/short --latency resnet50_graph_b1 \
  --be gpt_train_short --modes alone,colocc-full --seconds 9 > $OUT/short.log 2>&1
echo rc=$?
sed -n '/^## All runs/,/^## Service/p' $OUT/short/summary.md | cut -d'|' -f3-6,11,14,16,17 | head -12
cd $OUT && for d in long-restart1 long-restart0 short; do tar czf $d.tgz $d && rm -rf $d; done
ls $OUT
