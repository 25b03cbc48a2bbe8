#!/bin/sh
# Call 10: repeats of the long-trainer cell (libcoloc's 32 connections): COLOC_RESTART=1 twice,
# =0 once, for how much the trainer keeps.
nvidia-smi -L
for run in 1a 1b 0a; do
  r=${run%?}
  echo "== long trainer, COLOC_RESTART=$r ($run)"
  timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/long$run --latency resnet50_graph_b1 \
    --be gpt_train_long --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=$r > $OUT/long$run.log 2>&1
  echo rc=$?
  sed -n '/^## Headline/,/^## All/p' $OUT/long$run/summary.md | grep colocc
  grep "preemptions\|best-effort" $OUT/long$run/logs/*colocc-full*.colocctl.txt | cut -c1-160 | head -3
  grep -h '"throughput"' $OUT/long$run/runs/*.json | head -3
  cd $OUT && tar czf long$run.tgz long$run && rm -rf long$run; cd - > /dev/null
done
