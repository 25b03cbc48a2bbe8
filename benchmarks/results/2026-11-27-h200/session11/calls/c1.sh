export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi > $OUT/machine.txt 2>&1; git log --oneline -1 >> $OUT/machine.txt
t0=$(date +%s)
timeout 390 python3 build-gpu/tr/run --resume --storm 200 build-gpu/tr $OUT/diff-resume > $OUT/diff-resume.txt 2>&1
echo "diff rc=$? $(( $(date +%s) - t0 )) s"
tail -22 $OUT/diff-resume.txt
grep -h "ptb-storm\|exactly-once-storm" $OUT/diff-resume/*.log | grep -o "^[a-zA-Z].*saved" | head -40
for b in t tr; do
  f=""; [ $b = tr ] && f=--resume
  timeout 85 python3 build-gpu/$b/run --timing $f --only 16-long-blocks build-gpu/$b $OUT/timing-$b > $OUT/timing-$b.txt 2>&1
  echo "timing $b rc=$?"
done
echo "total $(( $(date +%s) - t0 )) s"
