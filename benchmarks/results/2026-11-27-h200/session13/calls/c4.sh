export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c4; nvidia-smi > $OUT/c4/machine.txt 2>&1
t0=$(date +%s)
timeout 200 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c4/cell-fresh --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 6 --loads 0.5 --colocc-env COLOC_FRESH=1 --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_TIME=1 --colocc-env COLOC_LOG_FILE=$OUT/c4/coloc.log > $OUT/c4/cell-fresh.txt 2>&1
echo "cell rc=$? at $(( $(date +%s) - t0 )) s"
sed -n '/## All runs/,$p' $OUT/c4/cell-fresh/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20,21 | head -3
wc -l $OUT/c4/coloc.log; grep -c "slow stop" $OUT/c4/coloc.log; grep -v "slow stop" $OUT/c4/coloc.log | cut -c1-300 | tail -25
grep "slow stop" $OUT/c4/coloc.log | head -5 | cut -c1-600
find $OUT/c4 -name "*.json" -path "*stats*" | head; find $OUT/c4 -name "*stats*.json" -exec grep -H -o '"fresh_[a-z]*": [0-9]*\|"hold_relaunches": [0-9]*\|"preemptions": [0-9]*' {} \;
find $OUT/c4 -name colocc-cache -o -name latency -o -name traces -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
