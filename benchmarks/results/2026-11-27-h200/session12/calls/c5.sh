export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 240 sh build-gpu/rt/run build-gpu/rt $OUT/r/rt > $OUT/r/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/r/rt.txt; grep -v identical $OUT/r/rt.txt | grep -v "^ *$" | head -20
timeout 250 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/low --latency resnet50_graph_b1 --be gpt_train_long,gpt_train_short --modes alone,colocc-ts-full --loads 0.05 --seconds 12 --budget 240 > $OUT/r/low.txt 2>&1
echo "low rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/## All runs/,$p' $OUT/r/low/summary.md | grep "^| resnet" | cut -d'|' -f2-5,8,11-13,17,20 | head
find $OUT/r -name colocc-cache -o -name colocc-run | xargs rm -rf
cd $OUT && tar czf r.tgz r && rm -rf r
