# Nineteenth session, call 1 (planned as the eighteenth session's call 3), on a231caa: the latency monitor's looks before a drain wait
# (COLOC_SETTLE_LOOK_US=20) against a wait at once (0, the default): (1) launch_ab,
# the tenant on two CPUs, alternating settings, two runs of 30 rounds each; (2) the default
# matrix's core without an MPS daemon (graphed ResNet-50 b1 at load 0.5 beside both GPT
# trainers, colocc-ts-full, 6 s cells) with 20, then with 0.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/c1; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
t0=$(date +%s); c=build-gpu/col
export COLOC_RUN_DIR=/tmp/colocrun; mkdir -p $COLOC_RUN_DIR
{ for i in 1 2; do for look in 20 0; do echo "== latency tenant, CPUs 4,5, COLOC_SETTLE_LOOK_US=$look ($i)"
  LD_PRELOAD=$PWD/$c/libcoloc.so COLOC_ROLE=latency COLOC_SETTLE_LOOK_US=$look taskset -c 4,5 timeout 40 $c/launch_ab 30 20000; done; done; } > $O/launch_ab.txt 2>&1
unset COLOC_RUN_DIR
echo "launch_ab at $(( $(date +%s) - t0 )) s"; grep -E "^==|mean of|per launch" $O/launch_ab.txt | cut -c1-200
S=build-gpu/suite
for look in 20 0; do
timeout 140 python3 $S/run --pin $S $O/a$look --modes alone,colocc-ts-full --colocc-env COLOC_SETTLE_LOOK_US=$look --seconds 6 --budget 130 > $O/a$look.txt 2>&1
echo "A look=$look rc=$? at $(( $(date +%s) - t0 )) s"; grep -h "colocc-ts-full" $O/a$look/summary.md | cut -c1-250; done
find $O -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name cupy-cache | xargs rm -rf
cd $OUT && tar czf c1.tgz c1 && rm -rf c1 && ls -la $OUT
