# Seventeenth session, call 2: call 1's matrix (refused there, 1 s over its budget), with --force.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p $OUT/c2; nvidia-smi > $OUT/c2/machine.txt 2>&1
t0=$(date +%s)
timeout 575 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c2/m --modes alone,mps-solo,colocc-ts-full,colocc-full,colocc-mps,timeslice,mps --seconds 8 --repeat 2 --budget 560 --force > $OUT/c2/m.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 3 $OUT/c2/m.txt
sed -n '/## Headline/,/All runs passed/p' $OUT/c2/m/summary.md | head -70
grep -h '"mps"' $OUT/c2/m/logs/*.stats.json 2>/dev/null | sort | uniq -c
find $OUT/c2 -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c2.tgz c2 && rm -rf c2 && ls -la $OUT
