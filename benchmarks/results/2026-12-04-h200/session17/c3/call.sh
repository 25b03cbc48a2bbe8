# Seventeenth session, call 3: the runtime GPU check with an MPS daemon running (the
# programs plain are its clients, under libcoloc they leave it), then gpt_serve_b4 and the
# graphed ResNet-50 beside both trainers, colocc leaving MPS (colocc-full) and staying
# (colocc-mps), two repetitions of 6 s cells.  Builds from a4eb11a, as in call 1.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p $OUT/c3; nvidia-smi > $OUT/c3/machine.txt 2>&1
t0=$(date +%s)
export CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d /tmp/c3-mps-XXXXXX) CUDA_MPS_LOG_DIRECTORY=$OUT/c3/mps-log
mkdir -p $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; sleep 1
timeout 150 sh build-gpu/rt/run build-gpu/rt $OUT/c3/rt-mps > $OUT/c3/rt-mps.txt 2>&1
echo "rt under MPS rc=$? at $(( $(date +%s) - t0 )) s"; cut -c1-160 $OUT/c3/rt-mps.txt | tail -n 32
grep -h '"mps"' $OUT/c3/rt-mps/*.json | sort | uniq -c
echo quit | nvidia-cuda-mps-control; sleep 1
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
left=$(( 580 - ($(date +%s) - t0) ))
timeout $left python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c3/m --latency gpt_serve_b4,resnet50_graph_b1 --modes alone,mps-solo,colocc-full,colocc-mps --seconds 6 --repeat 2 --budget $((left - 15)) > $OUT/c3/m.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 3 $OUT/c3/m.txt
sed -n '/## Headline/,/All runs passed/p' $OUT/c3/m/summary.md | head -40
find $OUT/c3 -name colocc-cache -o -name colocc-run -o -name "cache-*" | xargs rm -rf
cd $OUT && tar czf c3.tgz c3 && rm -rf c3 && ls -la $OUT
