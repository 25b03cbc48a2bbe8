export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 150 python3 build-gpu/suite/betput --seconds 8 --be gpt_train_short --configs plain,ptb,ptb-restart,auto,auto-restart,plain-mps,share-mps,share-mps-restart build-gpu/suite $OUT/r/betput > $OUT/r/betput.txt 2>&1
echo "betput rc=$? at $(( $(date +%s) - t0 )) s"; grep "^| gpt" $OUT/r/betput.txt
for v in resume restart; do
  e=""; [ $v = restart ] && e="--colocc-env COLOC_RESUME=0"
  timeout 200 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/m-$v --modes alone,mps-solo,colocc-full --budget 190 $e > $OUT/r/m-$v.txt 2>&1
  echo "matrix $v rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/## All runs/,$p' $OUT/r/m-$v/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20 | head -4
  grep -h "preemptions" $OUT/r/m-$v/logs/*colocctl.txt 2>/dev/null | head -4
done
find $OUT/r -name colocc-cache -o -name colocc-run -o -name latency -o -name traces | xargs rm -rf
cd $OUT && tar czf r.tgz r && rm -rf r
