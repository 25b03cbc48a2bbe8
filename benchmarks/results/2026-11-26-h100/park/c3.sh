set -u
c=build-gpu/col
echo "== lazy (default)"; $c/park_probe hold threads; echo "rc $?"
echo "== lazy, again"; $c/park_probe hold threads; echo "rc $?"
echo "== eager"; CUDA_MODULE_LOADING=EAGER $c/park_probe hold threads; echo "rc $?"
