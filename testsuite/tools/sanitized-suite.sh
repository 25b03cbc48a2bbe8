#!/bin/sh
# The test suite again, built with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer: the lit suites, then a parse/print round trip
# and the passes over every PTX file the corpus run kept.
# usage: sanitized-suite.sh SOURCE_DIR BUILD_DIR PTX_DIR LIT
set -eu
src=$1 out=$2 ptxdir=$3 lit=$4

cmake -S "$src" -B "$out" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	-DCOLOC_SANITIZE=ON >/dev/null
cmake --build "$out"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
python3 "$lit" -sv "$out/testsuite/parse" "$out/testsuite/driver" "$out/testsuite/passes" "$out/testsuite/binary"

n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# nvcc's own PTX (not colocc's outputs): round trip, then the passes.
for f in $(find "$ptxdir" -regex '.*/sm_[0-9a-z]*-\(plain\|G\|lineinfo\)\.ptx' 2>/dev/null | sort); do
	"$out/colocc" --verify "$f" -o "$tmp/a.ptx"
	"$out/colocc" "$tmp/a.ptx" -o "$tmp/b.ptx"
	cmp "$tmp/a.ptx" "$tmp/b.ptx"
	rc=0
	"$out/colocc" --verify --passes=slice,unisync,ptb "$f" -o "$tmp/c.ptx" 2>/dev/null || rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		echo "colocc --passes failed ($rc) on $f" >&2
		exit 1
	fi
	n=$((n + 1))
done
echo "sanitized round trip and passes over $n corpus PTX files: ok"
if [ "$n" -eq 0 ]; then
	echo "no corpus PTX found in $ptxdir: run the lit-corpus test first" >&2
	exit 1
fi
