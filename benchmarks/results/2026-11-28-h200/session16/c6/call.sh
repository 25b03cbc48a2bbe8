export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/c6
t0=$(date +%s)
for cfg in mlp-old mlp-new long-new; do
  left=$(( 235 - ($(date +%s) - t0) ))
  [ $left -lt 62 ] && { echo "no time for $cfg"; break; }
  case $cfg in *old) d=build-gpu/suite;; *) d=build-gpu/suite-new;; esac
  case $cfg in mlp*) be=offline_mlp;; *) be=gpt_train_long;; esac
  timeout $left python3 $d/run --pin $d $OUT/c6/$cfg --latency resnet50_graph_b1 --be $be --modes alone,colocc-ts-full --seconds 8 --loads 0.5 --colocc-env COLOC_LOG=info --colocc-env COLOC_LOG_FILE=$OUT/c6/coloc-$cfg.log > $OUT/c6/$cfg.txt 2>&1
  echo "$cfg ($d) rc=$? at $(( $(date +%s) - t0 )) s"
  grep "colocc-ts-full" $OUT/c6/$cfg.txt | cut -c1-240 | tail -3
  grep "profile:" $OUT/c6/coloc-$cfg.log | grep -v "16,16,1" | cut -c1-300 | head -4
done
find $OUT/c6 -name colocc-cache -o -name colocc-run -o -name "cache-*" -o -name latency | xargs rm -rf
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
