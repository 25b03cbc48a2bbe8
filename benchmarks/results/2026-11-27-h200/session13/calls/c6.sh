export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c6; nvidia-smi > $OUT/c6/machine.txt 2>&1
t0=$(date +%s)
timeout 200 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c6/cell-fresh --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_FRESH=1 --colocc-env COLOC_LOG_TIME=1 --colocc-env COLOC_LOG_FILE=$OUT/c6/coloc.log > $OUT/c6/cell-fresh.txt 2>&1
echo "cell rc=$? at $(( $(date +%s) - t0 )) s"
sed -n '/## All runs/,$p' $OUT/c6/cell-fresh/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20,21 | head -3
grep -v "capped at" $OUT/c6/coloc.log | cut -c1-400 | tail -20
grep -h -o '"fresh_[a-z]*": [0-9]*\|"hold_relaunches": [0-9]*\|"blocks_given_up": [0-9]*' $OUT/c6/cell-fresh/logs/*be*stats* 2>/dev/null | tr '\n' ' '; echo
find $OUT/c6 -name colocc-cache -o -name colocc-run -o -name traces -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
