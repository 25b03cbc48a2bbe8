set -u
c=build-gpu/col
export CUDA_MODULE_LOADING=EAGER
for how in none wait spin wait; do
  if [ $how = none ]; then $c/park_probe probe 4; continue; fi
  $c/park_probe hold $how 7 & h=$!
  sleep 2
  $c/park_probe probe 4
  wait $h; echo "hold rc $?"
done
