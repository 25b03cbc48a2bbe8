export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c3; nvidia-smi > $OUT/c3/machine.txt 2>&1
t0=$(date +%s)
timeout 570 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c3/matrix > $OUT/c3/matrix.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"
sed -n '/## Headline/,/## All runs/p' $OUT/c3/matrix/summary.md | head -30
sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c3/matrix/summary.md | grep "colocc"
grep -l "not done after" $OUT/c3/matrix -r 2>/dev/null | head
find $OUT/c3 -name colocc-cache -o -name colocc-run -o -name traces -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
