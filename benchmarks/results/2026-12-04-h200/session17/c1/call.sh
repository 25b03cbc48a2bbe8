# Seventeenth session, call 1 (run from the repository root; builds in build-gpu/ made
# here from a4eb11a: benchmarks/suite/prepare build build-gpu/suite).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p $OUT/c1; nvidia-smi > $OUT/c1/machine.txt 2>&1
t0=$(date +%s)
timeout 90 sh benchmarks/mps/run build-gpu/suite $OUT/c1/mps > $OUT/c1/mps.txt 2>&1
echo "mps probe rc=$? at $(( $(date +%s) - t0 )) s"; cat $OUT/c1/mps.txt | cut -c1-220
left=$(( 575 - ($(date +%s) - t0) ))
timeout $left python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c1/m --modes alone,mps-solo,colocc-ts-full,colocc-full,colocc-mps,timeslice,mps --seconds 8 --repeat 2 --budget $((left - 10)) > $OUT/c1/m.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 3 $OUT/c1/m.txt
sed -n '/## Headline/,/All runs passed/p' $OUT/c1/m/summary.md | head -60
grep -h '"mps' $OUT/c1/m/logs/*full*.stats.json $OUT/c1/m/logs/*colocc-mps*.stats.json 2>/dev/null | sort | uniq -c
find $OUT/c1 -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c1.tgz c1 && rm -rf c1 && ls -la $OUT
