# Twenty-second session, call 1: the full default matrix (graphed ResNet-50 b1, load 0.5,
# both GPT trainers, every default mode: alone, time-slicing, MPS and its variants, colocc's
# modes and ablations, 10 s a cell) on the library of 78f00a3 (register-cap levels, the hold
# rule's short slices), for issue 6's headline next to time-slicing and MPS from one run.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c1; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); S=build-gpu/suite
timeout 585 python3 $S/run --pin $S $O/matrix > $O/matrix.txt 2>&1
echo "matrix rc=$? at $(( $(date +%s) - t0 )) s"; tail -45 $O/matrix/summary.md | cut -c1-260
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c1.tgz c1 && rm -rf c1 && ls -la $OUT
