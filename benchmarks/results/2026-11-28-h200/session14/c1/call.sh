export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c1; nvidia-smi > $OUT/c1/machine.txt 2>&1
git log --oneline -1 > $OUT/c1/commit.txt 2>&1
t0=$(date +%s)
# The fresh take as of 4c14cce (the three lines of fresh_take removed): the storm must catch it.
for f in 16-long-blocks 13-exactly-once; do
  timeout 70 build-gpu/tr/diffrun -w 65 -l 10 -S -c 200 build-gpu/tr/kernels/$f.cu build-gpu/tr-old/ptx/$f.coloc.ptx > $OUT/c1/old-$f.txt 2>&1
  echo "old $f rc=$? at $(( $(date +%s) - t0 )) s"; grep "fresh\|FATAL" $OUT/c1/old-$f.txt | cut -c1-300 | head -8
done
timeout 420 python3 build-gpu/tr/run --resume --storm 200 build-gpu/tr $OUT/c1/diff-tr > $OUT/c1/diff-tr.txt 2>&1
echo "diff-tr rc=$? at $(( $(date +%s) - t0 )) s"; tail -20 $OUT/c1/diff-tr.txt
grep -h "fresh-storm" $OUT/c1/diff-tr/*.log | cut -c1-330 | head -60
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
