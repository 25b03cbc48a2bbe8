export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c4; nvidia-smi > $OUT/c4/machine.txt 2>&1
t0=$(date +%s)
timeout 320 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c4/loads --latency resnet50_graph_b1 --be gpt_train_short --modes alone,timeslice,mps,colocc-ts-full,colocc-full --loads 0.25,0.5,0.75 --traces bursty --seconds 8 > $OUT/c4/loads.txt 2>&1
echo "loads rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 3 $OUT/c4/loads.txt
sed -n '/## Headline/,/^$/p' $OUT/c4/loads/summary.md | head -12
left=$(( 580 - ($(date +%s) - t0) ))
timeout $left python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c4/core --modes alone,mps-solo,timeslice,colocc-ts-full,mps,colocc-full --seconds 8 --budget $left > $OUT/c4/core.txt 2>&1
echo "core rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 3 $OUT/c4/core.txt
sed -n '/## Headline/,/All runs passed/p' $OUT/c4/core/summary.md
sed -n '/against the latency tenant.s idle time/,/^## [A-Z]/p' $OUT/c4/core/summary.md | head -12
find $OUT/c4 -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c4.tgz c4 && rm -rf c4 && ls -la $OUT
