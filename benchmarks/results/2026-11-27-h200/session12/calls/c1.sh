export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 170 python3 build-gpu/t/run --storm 200 build-gpu/t $OUT/r/diff-t > $OUT/r/diff-t.txt 2>&1
echo "diff t rc=$? at $(( $(date +%s) - t0 )) s"; grep "with failures\|FAIL" $OUT/r/diff-t.txt | head
timeout 190 python3 build-gpu/tr/run --resume --storm 200 build-gpu/tr $OUT/r/diff-tr > $OUT/r/diff-tr.txt 2>&1
echo "diff tr rc=$? at $(( $(date +%s) - t0 )) s"; grep "with failures\|FAIL" $OUT/r/diff-tr.txt | head
grep -h "ptb-storm " $OUT/r/diff-tr/*.log | grep -v "; 0 blocks given up" | sed -E 's/^(ok|FAIL) +([^ ]+).*; ([0-9]+ blocks given up.*)$/\1 \2 \3/' | awk '{s+=$3; v+=$(NF-3)} END {print NR, "cases with give-ups;", s, "given up,", v, "saved"}'
timeout 80 python3 build-gpu/suite/betput --seconds 10 --be gpt_train_long --configs plain,ptb,ptb-resume build-gpu/suite $OUT/r/betput > $OUT/r/betput.txt 2>&1
echo "betput rc=$? at $(( $(date +%s) - t0 )) s"; grep "steps/s" $OUT/r/betput.txt
mkdir -p $OUT/r/dl; cp $OUT/r/diff-t/*.log $OUT/r/dl/ 2>/dev/null; for f in $OUT/r/diff-tr/*.log; do cp $f $OUT/r/dl/tr-$(basename $f); done
cd $OUT && tar czf r.tgz r && rm -rf r
