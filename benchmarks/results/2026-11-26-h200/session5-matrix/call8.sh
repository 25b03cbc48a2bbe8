#!/bin/sh
# Call 8 (fifth session, H100): the suite's default matrix as it comes, now that
# COLOC_RESTART=1 is the runtime's default (and COLOC_PARK=worker, 32 connections).
nvidia-smi -L
timeout -k 5 580 build-gpu/suite/run --pin build-gpu/suite $OUT/matrix > $OUT/matrix.log 2>&1
echo rc=$?
sed -n '/^## Headline/,/^## All/p' $OUT/matrix/summary.md
sed -n '/^## All runs/,/^## Service/p' $OUT/matrix/summary.md | cut -d'|' -f2-5,11,13,15,17 | head -30
tail -3 $OUT/matrix.log
cp $OUT/matrix/summary.* $OUT/ 2>/dev/null; cp -r $OUT/matrix/plots $OUT/ 2>/dev/null; cp $OUT/matrix/machine.txt $OUT/ 2>/dev/null
cd $OUT && tar czf matrix.tgz matrix && rm -rf matrix
