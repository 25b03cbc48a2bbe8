export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c1; nvidia-smi > $OUT/c1/machine.txt 2>&1
t0=$(date +%s)
timeout 450 python3 benchmarks/forms/gemm_forms.py --reps 3 build-gpu/forms/resume.ptx build-gpu/forms/restart.ptx $OUT/c1/forms > $OUT/c1/forms.txt 2>&1
echo "forms rc=$? at $(( $(date +%s) - t0 )) s"; tail -45 $OUT/c1/forms.txt
