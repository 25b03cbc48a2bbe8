# Prepared in the thirtieth session before a machine came, run later that session (h/).
# Why requests served back to back are faster
# beside a trainer (without MPS) than alone: 0.833-0.840 ms against 0.912-0.918 ms at the tenth
# percentile in every run of the twenty-ninth session (README.md here; the same on the H200 in
# November). Stored runs rule out the SM clock (1980 MHz through every traffic window, sampled
# every 250 ms) and libcoloc's latency side with its November monitor (colocc-solo-ts = alone).
# Each step times 4,000 back-to-back requests of the graphed ResNet-50 b1 (serve.py
# --calibrate, each request synchronized: service time without queueing) on CPUs 1-8, with
# one thing beside it, on CPUs 9-15:
#   A  nothing                                  D  libcoloc latency side, COLOC_MONITOR=always
#   B  seven CPU burners                        E  libcoloc on both, the short GPT trainer
#   C  a process holding an idle CUDA context   F  nothing (drift check against A)
# A = F = 0.92 ms and E = 0.84 ms would give the cause as whichever of B, C, D reads 0.84.
# nvidia-smi samples clocks and power every 50 ms throughout (smi.csv). About 120 s.
# Prepare as for ../session29/callf.sh; carry build-gpu/suite. usage: sh callh.sh
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s30h; mkdir -p $O; nvidia-smi > $O/machine.txt 2>&1; nvidia-smi -L
S=$PWD/build-gpu/suite; cp $S/PREPARED.txt $O/prepared.txt
export COLOC_RUN_DIR=/tmp/colocrun COLOC_CACHE_DIR=/tmp/coloccache; mkdir -p $COLOC_RUN_DIR
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,pstate,clocks_event_reasons.active \
  --format=csv,noheader -lms 50 > $O/smi.csv 2>&1 & smi=$!
serve() { echo "== $1 $(date +%T.%N)"; shift
  taskset -c 1-8 timeout 60 env "$@" python3 $S/serve.py resnet50 --graph --calibrate 4000 2>&1; echo "   end $(date +%T.%N)"; }
{
serve A
burn=; for c in 9 10 11 12 13 14 15; do taskset -c $c timeout 40 sh -c 'while :; do :; done' &
  burn="$burn $!"; done
serve B; kill $burn 2>/dev/null; wait $burn 2>/dev/null
taskset -c 9 timeout 60 python3 -c "import torch,time; torch.zeros(1,device='cuda'); torch.cuda.synchronize(); print('idle context up', flush=True); time.sleep(50)" &
ctx=$!; sleep 6; serve C; kill $ctx 2>/dev/null; wait $ctx 2>/dev/null
serve D LD_PRELOAD=$S/libcoloc.so COLOC_ROLE=latency COLOC_MONITOR=always COLOC_LOG=info
taskset -c 9-15 timeout 60 env LD_PRELOAD=$S/libcoloc.so COLOC_ROLE=best-effort COLOC_LOG=info \
  $S/gpt_train --config short --seconds 40 --out $O/train.json > $O/train.txt 2>&1 & tr=$!
sleep 8; serve E LD_PRELOAD=$S/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info; kill $tr 2>/dev/null; wait $tr
serve F
} > $O/steps.txt 2>&1
kill $smi; grep -E "^==|service_ms|monitor|stays busy|idle context" $O/steps.txt | cut -c1-200
rm -rf $COLOC_CACHE_DIR; cd $OUT && tar czf s30h.tgz s30h
