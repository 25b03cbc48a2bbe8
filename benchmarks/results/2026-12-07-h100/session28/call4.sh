# Twenty-eighth session's call 4, with the session's last 246 s of device time: one repetition of
# alone and colocc-full beside gpt_train_short with COLOC_HOLD_US=100 (library of 27ad2d6, the hold
# counted from the drain), to see whether the hold bridges back-to-back requests (busy periods,
# their service time). One repetition says nothing about p99 against the 10% bound.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s28h; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L; S=build-gpu/suite-h
timeout 115 python3 $S/run --pin $S $O/h --modes alone,colocc-full --be gpt_train_short --repeat 1 --colocc-env COLOC_HOLD_US=100 --budget 100 > $O/h.txt 2>&1
echo "rc=$?"; grep -E "^[|] resnet50" $O/h/summary.md | cut -c1-250; grep -h "busy periods" $O/h/logs/*.colocctl.txt
find $O/h -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
(cd $OUT && tar czf s28h.tgz s28h && rm -rf s28h)
