# Twentieth session, call 5, on bd6716f (9215e30 plus the review's fixes): the two
# best-effort tenants of issue 6 other than the GPT trainers, beside the graphed ResNet-50
# (load 0.5, colocc-ts-full, 6 s): the CuPy MLP and stock PyTorch training.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c5; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
timeout 195 python3 $S/run --pin $S $O/pair --latency resnet50_graph_b1 --be offline_mlp,torch_train --modes alone,colocc-ts-full --seconds 6 --budget 185 > $O/pair.txt 2>&1
echo "rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/pair/summary.md | cut -c1-250
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c5.tgz c5 && rm -rf c5 && ls -la $OUT
