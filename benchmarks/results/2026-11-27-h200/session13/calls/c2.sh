export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c2; nvidia-smi > $OUT/c2/machine.txt 2>&1
t0=$(date +%s)
timeout 300 python3 benchmarks/forms/gemm_forms.py --reps 3 build-gpu/forms/resume.ptx build-gpu/forms/restart.ptx $OUT/c2/forms > $OUT/c2/forms.txt 2>&1
echo "forms rc=$? at $(( $(date +%s) - t0 )) s"; grep -v "^resume.ptx\|^restart.ptx" $OUT/c2/forms.txt | tail -60; grep protocol $OUT/c2/forms.txt
