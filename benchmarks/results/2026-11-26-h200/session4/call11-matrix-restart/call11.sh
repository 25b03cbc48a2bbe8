#!/bin/sh
# Call 11: the suite's default matrix (one command), COLOC_RESTART=1 for the colocc modes.
nvidia-smi -L
timeout -k 5 580 build-gpu/suite/run --pin build-gpu/suite $OUT/matrix --colocc-env COLOC_RESTART=1 > $OUT/matrix.log 2>&1
echo rc=$?
sed -n '/^## Headline/,/^## All/p' $OUT/matrix/summary.md
sed -n '/^## All runs/,/^## Service/p' $OUT/matrix/summary.md | cut -d'|' -f2-5,11,13,15,17 | head -30
tail -3 $OUT/matrix.log
cd $OUT && tar czf matrix.tgz matrix && rm -rf matrix
