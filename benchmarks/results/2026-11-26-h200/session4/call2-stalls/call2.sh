#!/bin/sh
# Call 2: where the long trainer's rare long stalls come from (COLOC_RESTART=1, logs with
# monotonic times); launch hook cost against the last session's build, 30 rounds.
nvidia-smi -L
C=build-gpu/col
echo "== overhead, two CPUs, 30 rounds"
timeout -k 5 200 python3 $C/overhead $C $OUT/overhead-2cpu --rounds 30 --launches 100000 --cpus 4,5 --against old=build-gpu/old/libcoloc.so | tail -6
echo "== long trainer, COLOC_RESTART=1, logs"
timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/long --latency resnet50_graph_b1 \
  --be gpt_train_long --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=1 \
  --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_TIME=1 > $OUT/long.log 2>&1
echo rc=$?
sed -n '/^## All runs/,/^## Service/p' $OUT/long/summary.md | cut -d'|' -f3-6,11,14,16,17 | head -8
python3 build-gpu/stalls.py $OUT/long resnet50_graph_b1--gpt_train_long--colocc-full--poisson-0.5 5 > $OUT/stalls.txt 2>&1
head -c 9000 $OUT/stalls.txt
grep -c "slow stop" $OUT/long/logs/*colocc-full*.be.err
cd $OUT && tar czf long.tgz long && rm -rf long
