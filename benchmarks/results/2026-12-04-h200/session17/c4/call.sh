# Seventeenth session, call 4, on 8be1d11 (statistics of a process whose driver NVML
# mapped): the MPS probe, the runtime GPU check under MPS, and the CuPy tenant and stock
# PyTorch training beside the graphed ResNet-50, colocc leaving MPS and staying.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p $OUT/c4; nvidia-smi > $OUT/c4/machine.txt 2>&1
t0=$(date +%s)
timeout 90 sh benchmarks/mps/run build-gpu/suite $OUT/c4/mps > $OUT/c4/mps.txt 2>&1
echo "mps probe rc=$? at $(( $(date +%s) - t0 )) s"; grep -v "^ *[d-]rw\|^total\|pipe dir" $OUT/c4/mps.txt | cut -c1-200
export CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d /tmp/c4-mps-XXXXXX) CUDA_MPS_LOG_DIRECTORY=$OUT/c4/mps-log
mkdir -p $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; sleep 1
timeout 150 sh build-gpu/rt/run build-gpu/rt $OUT/c4/rt-mps > $OUT/c4/rt-mps.txt 2>&1
echo "rt under MPS rc=$? at $(( $(date +%s) - t0 )) s"; cut -c1-160 $OUT/c4/rt-mps.txt | tail -n 29
grep -h '"mps"' $OUT/c4/rt-mps/*.json | sort | uniq -c
echo quit | nvidia-cuda-mps-control; sleep 1
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
left=$(( 400 - ($(date +%s) - t0) ))
timeout $left python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c4/m --be offline_mlp,torch_train --modes alone,colocc-full,colocc-mps --seconds 6 --budget $((left - 10)) > $OUT/c4/m.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; tail -n 3 $OUT/c4/m.txt
sed -n '/## Headline/,/All runs passed/p' $OUT/c4/m/summary.md | head -20
grep -h '"mps"' $OUT/c4/m/logs/*.stats.json | sort | uniq -c
find $OUT/c4 -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c4.tgz c4 && rm -rf c4 && ls -la $OUT
