# Twentieth session, call 6 (same machine as call 5, warm): stock PyTorch training beside the
# graphed ResNet-50 (load 0.5, 6 s) under colocc-ts-full (no MPS daemon) and colocc-full
# (an MPS daemon runs; both tenants leave it), to tell call 5's 0.783 of idle from the
# mode: the eighteenth session's 0.606-0.655 were colocc-full cells.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c6; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1
t0=$(date +%s); S=build-gpu/suite
timeout 140 python3 $S/run --pin $S $O/torch --latency resnet50_graph_b1 --be torch_train --modes alone,colocc-ts-full,colocc-full --seconds 6 --budget 130 > $O/torch.txt 2>&1
echo "rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full\|colocc-full" $O/torch/summary.md | cut -c1-250
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c6.tgz c6 && rm -rf c6 && ls -la $OUT
