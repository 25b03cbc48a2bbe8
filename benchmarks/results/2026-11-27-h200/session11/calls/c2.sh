export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi > $OUT/machine.txt 2>&1
mkdir -p $OUT/r
t0=$(date +%s)
python3 build-gpu/tr/run --resume --storm 200 --only 16-long-blocks build-gpu/tr $OUT/r/diff16 > $OUT/r/diff16.txt 2>&1
grep -E "^(FAIL|FATAL)" $OUT/r/diff16/16-long-blocks.log | head; grep -i "undone\|error\|limit" $OUT/r/diff16/16-long-blocks.log | head
echo "diff $(( $(date +%s) - t0 )) s"
for b in t tr; do
  f=""; [ $b = tr ] && f=--resume
  timeout 90 python3 build-gpu/$b/run --timing $f --only 16-long-blocks build-gpu/$b $OUT/r/timing-$b > $OUT/r/timing-$b.txt 2>&1
  echo "timing $b rc=$?"
done
cd $OUT && tar czf r.tgz r && rm -rf r
