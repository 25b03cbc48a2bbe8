export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c5
t0=$(date +%s)
timeout 200 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/c5/mlp --latency resnet50_graph_b1 --be offline_mlp --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_FILE=$OUT/c5/coloc-mlp.log > $OUT/c5/mlp.txt 2>&1
echo "mlp rc=$? at $(( $(date +%s) - t0 )) s"
grep "colocc-ts-full" $OUT/c5/mlp.txt | cut -c1-260 | tail -3
grep "profile:" $OUT/c5/coloc-mlp.log | cut -c1-300 | head -30
mkdir -p $OUT/c5/profile; find $OUT/c5/mlp -path "*profile*" -type f | head -5 | while read f; do cp $f $OUT/c5/profile/; cat $f; done
find $OUT/c5 -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
