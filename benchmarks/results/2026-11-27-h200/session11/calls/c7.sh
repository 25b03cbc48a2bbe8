export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 150 python3 build-gpu/tr/run --resume --storm 100 build-gpu/tr $OUT/r/diff-resume > $OUT/r/diff-resume.txt 2>&1
echo "diff rc=$? at $(( $(date +%s) - t0 )) s"; grep "with failures\|FAIL" $OUT/r/diff-resume.txt | head
grep -h "ptb-storm " $OUT/r/diff-resume/*.log | grep -v "; 0 blocks given up" | sed -E 's/^(ok|FAIL) +([^ ]+).*; ([0-9]+ blocks given up.*)$/\1 \2 \3/' | awk '{s+=$3; v+=$(NF-3)} END {print NR, "cases with give-ups;", s, "given up,", v, "saved"}'
for v in resume default; do
  e="--colocc-env COLOC_FORM=ptb"; [ $v = resume ] && e="$e --colocc-env COLOC_RESUME=1"
  timeout 95 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/cell-$v --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 8 --loads 0.5 $e > $OUT/r/cell-$v.txt 2>&1
  echo "cell $v rc=$? at $(( $(date +%s) - t0 )) s"; grep "colocc-ts-full | 0.5" $OUT/r/cell-$v/summary.md | head -2; cat $OUT/r/cell-$v/logs/*colocctl.txt 2>/dev/null | grep preemptions
done
cd $OUT && tar czf r.tgz r && rm -rf r
