export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
timeout 150 python3 build-gpu/suite/betput --seconds 8 --be gpt_train_short --configs plain,ptb,ptb-restart,auto,auto-restart,plain-mps,share-mps,share-mps-restart build-gpu/suite $OUT/r/betput > $OUT/r/betput.txt 2>&1
echo "betput rc=$? at $(( $(date +%s) - t0 )) s"; grep "^| gpt" $OUT/r/betput.txt
find $OUT/r -name colocc-cache -o -name colocc-run | xargs rm -rf
cd $OUT && tar czf r.tgz r && rm -rf r
