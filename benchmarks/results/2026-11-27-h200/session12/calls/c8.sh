export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 120 sh build-gpu/rt/run build-gpu/rt $OUT/r/rt > $OUT/r/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; tail -1 $OUT/r/rt.txt
timeout 270 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/m --modes alone,colocc-ts-full,mps-solo,colocc-full --budget 260 > $OUT/r/m.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; sed -n '/## All runs/,$p' $OUT/r/m/summary.md | grep "^| resnet" | cut -d'|' -f2-5,11-13,17,20 | head -6
sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/r/m/summary.md | grep "colocc"
find $OUT/r -name colocc-cache -o -name colocc-run -o -name latency -o -name traces -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf r.tgz r && rm -rf r
