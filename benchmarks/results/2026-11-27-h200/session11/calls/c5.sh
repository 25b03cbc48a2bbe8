export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 300 python3 build-gpu/tr/run --resume --storm 200 build-gpu/tr $OUT/r/diff-resume > $OUT/r/diff-resume.txt 2>&1
echo "diff rc=$? $(( $(date +%s) - t0 )) s"; tail -20 $OUT/r/diff-resume.txt | grep -v "| ok |"
grep -h "ptb-storm " $OUT/r/diff-resume/*.log | grep -v "; 0 blocks given up" | sed -E 's/^(ok|FAIL) +([^ ]+).*; ([0-9]+ blocks given up.*)$/\1 \2 \3/' | head -60
for b in t tr; do
  f=""; [ $b = tr ] && f=--resume
  timeout 90 python3 build-gpu/$b/run --timing $f --only 16-long-blocks build-gpu/$b $OUT/r/timing-$b > $OUT/r/timing-$b.txt 2>&1
  echo "timing $b rc=$?"; grep -h "timing  \|turnaround  " $OUT/r/timing-$b/16-long-blocks.log
done
echo "at $(( $(date +%s) - t0 )) s"
timeout 80 python3 build-gpu/suite/betput --seconds 10 --be gpt_train_long --configs plain,ptb,ptb-resume build-gpu/suite $OUT/r/betput > $OUT/r/betput.txt 2>&1
echo "betput rc=$?"; tail -8 $OUT/r/betput.txt
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
