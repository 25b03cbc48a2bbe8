# Thirtieth session, after callh.sh (which found only the gated trainer beside it fast): is it
# the trainer's context as its work left it, or libcoloc's gating of a live trainer?
#   P  nothing
#   S  the short trainer without libcoloc, frozen (SIGSTOP) after 6 s of training: its context,
#      memory and the GPU state its kernels left, no work and no gating
#   E  libcoloc on both, the short trainer live and gated (callh.sh's E again)
#   Q  nothing
# usage: sh calli.sh (prepare as for callh.sh)
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
O=$OUT/s30i; mkdir -p $O; nvidia-smi -L > $O/machine.txt 2>&1
S=$PWD/build-gpu/suite
export COLOC_RUN_DIR=/tmp/colocrun COLOC_CACHE_DIR=/tmp/coloccache; mkdir -p $COLOC_RUN_DIR
serve() { echo "== $1 $(date +%T.%N)"; shift
  taskset -c 1-8 timeout 60 env "$@" python3 $S/serve.py resnet50 --graph --calibrate 4000 2>&1; echo "   end $(date +%T.%N)"; }
{
serve P
taskset -c 9-15 timeout 60 $S/gpt_train --config short --seconds 40 --out $O/train-s.json > $O/train-s.txt 2>&1 & tr=$!
sleep 6; pkill -STOP -x gpt_train; echo "stopped: $(pgrep -x gpt_train)"
serve S; pkill -CONT -x gpt_train; kill $tr; wait $tr
taskset -c 9-15 timeout 60 env LD_PRELOAD=$S/libcoloc.so COLOC_ROLE=best-effort COLOC_LOG=info \
  $S/gpt_train --config short --seconds 40 --out $O/train-e.json > $O/train-e.txt 2>&1 & tr=$!
sleep 8; serve E LD_PRELOAD=$S/libcoloc.so COLOC_ROLE=latency COLOC_LOG=info; kill $tr 2>/dev/null; wait $tr
serve Q
} > $O/steps.txt 2>&1
grep -E "^==|service_ms|stopped" $O/steps.txt | cut -c1-200
rm -rf $COLOC_CACHE_DIR; cd $OUT && tar czf s30i.tgz s30i
