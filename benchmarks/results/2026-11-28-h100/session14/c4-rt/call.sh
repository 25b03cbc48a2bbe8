export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c4; nvidia-smi > $OUT/c4/machine.txt 2>&1
t0=$(date +%s)
timeout 200 sh build-gpu/rt/run build-gpu/rt $OUT/c4/rt > $OUT/c4/rt.txt 2>&1
echo "rt rc=$? at $(( $(date +%s) - t0 )) s"; tail -32 $OUT/c4/rt.txt | cut -c1-200
find $OUT/c4 -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
