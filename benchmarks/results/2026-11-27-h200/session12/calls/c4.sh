export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 590 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/matrix > $OUT/r/matrix.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/## Headline/,/## All runs/p' $OUT/r/matrix/summary.md | grep "^|"
find $OUT/r/matrix -name colocc-cache -o -name colocc-run | xargs rm -rf
cd $OUT && tar czf r.tgz r && rm -rf r
