export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c5; nvidia-smi > $OUT/c5/machine.txt 2>&1
t0=$(date +%s)
timeout 150 sh build-gpu/rt/run build-gpu/rt $OUT/c5/rt > $OUT/c5/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; tail -32 $OUT/c5/rt.txt | cut -c1-200
find $OUT/c5 -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
