export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c9; nvidia-smi > $OUT/c9/machine.txt 2>&1
t0=$(date +%s)
timeout 170 python3 build-gpu/tr/run --resume --storm 60 build-gpu/tr $OUT/c9/diff-tr > $OUT/c9/diff-tr.txt 2>&1
echo "diffrun rc=$? at $(( $(date +%s) - t0 )) s"; tail -22 $OUT/c9/diff-tr.txt
