#!/bin/sh
# Call 9: libcoloc sets CUDA_DEVICE_MAX_CONNECTIONS=32 for best-effort tenants itself (no
# override): the long and the short trainer, COLOC_RESTART=1 and =0.
nvidia-smi -L
for be in long short; do
for r in 1 0; do
  echo "== $be trainer, COLOC_RESTART=$r"
  timeout -k 5 150 build-gpu/suite/run --pin build-gpu/suite $OUT/$be$r --latency resnet50_graph_b1 \
    --be gpt_train_$be --modes alone,colocc-full --seconds 12 --colocc-env COLOC_RESTART=$r \
    --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_TIME=1 > $OUT/$be$r.log 2>&1
  echo rc=$?
  grep -h "CUDA_DEVICE_MAX_CONNECTIONS" $OUT/$be$r/logs/*colocc-full*.be.err | head -1
  sed -n '/^## Headline/,/^## All/p' $OUT/$be$r/summary.md | grep colocc
  echo "slow stops: $(grep -c 'slow stop' $OUT/$be$r/logs/*colocc-full*.be.err), over 5 ms: $(grep -o 'slow stop: [0-9.]*' $OUT/$be$r/logs/*colocc-full*.be.err | awk '$3>5' | wc -l)"
  grep "preemptions" $OUT/$be$r/logs/*colocc-full*.colocctl.txt | cut -c1-160
  cd $OUT && tar czf $be$r.tgz $be$r && rm -rf $be$r; cd - > /dev/null
done
done
