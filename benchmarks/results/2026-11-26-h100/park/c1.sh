set -u
c=build-gpu/col
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for how in none spin wait none spin wait; do
  if [ $how = none ]; then $c/park_probe probe 5; continue; fi
  $c/park_probe hold $how 9 & h=$!
  sleep 2
  $c/park_probe probe 5
  wait $h; echo "hold rc $?"
done
