export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
for v in resume default; do
  e=""; [ $v = resume ] && e="--colocc-env COLOC_RESUME=1"
  timeout 270 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/m-$v --modes alone,colocc-ts-full,mps-solo,colocc-full --budget 260 $e > $OUT/r/m-$v.txt 2>&1
  echo "matrix $v rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/## Headline/,/## All runs/p' $OUT/r/m-$v/summary.md | grep "^|"
  grep -h "preemptions" $OUT/r/m-$v/logs/*colocctl.txt 2>/dev/null | head -4
  find $OUT/r/m-$v -name colocc-cache -o -name colocc-run | xargs rm -rf
done
cd $OUT && tar czf r.tgz r && rm -rf r
