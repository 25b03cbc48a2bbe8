#!/bin/sh
# Installs what colocc needs (Debian/Ubuntu), builds it into build/, and runs
# the compiler on the bundled example.  Safe to run again.
set -eu
cd "$(dirname "$0")"

packages="cmake ninja-build gcc clang libclang-rt-14-dev flex bison llvm-14-tools python3 liblz4-dev libzstd-dev"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get install -y $missing || { $sudo apt-get update && $sudo apt-get install -y $missing; }
fi

if [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
	echo "setup: note: no CUDA toolkit at ${CUDA_HOME:-/usr/local/cuda}; .cu inputs and the tests need" \
	     "one (set CUDA_HOME)" >&2
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build

echo "setup: colocc --verify -arch=sm_90 examples/saxpy.cu"
./build/colocc --verify -arch=sm_90 examples/saxpy.cu -o build/saxpy.ptx
./build/colocc -v --verify examples/vector_ops.ptx -o build/vector_ops.ptx
echo "setup: wrote build/saxpy.ptx and build/vector_ops.ptx"
