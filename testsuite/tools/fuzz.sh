#!/bin/sh
# Builds the libFuzzer target of the PTX parser with clang, ASan and UBSan,
# and fuzzes it for SECONDS, seeded with every PTX file of the test suite and
# of the corpus run.  Fails on any crash, leak, timeout or round-trip
# mismatch; the failing input is left in BUILD_DIR.
# usage: fuzz.sh SOURCE_DIR BUILD_DIR SECONDS PTX_DIR
set -eu
src=$1 out=$2 seconds=$3 ptxdir=$4

cmake -S "$src" -B "$out" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCOLOC_FUZZ=ON -DCOLOC_SANITIZE=ON >/dev/null
cmake --build "$out" --target fuzz_parse
rm -rf "$out/fuzz-seeds"
mkdir -p "$out/fuzz-seeds" "$out/fuzz-corpus"
find "$src/testsuite" "$src/examples" "$ptxdir" -name '*.ptx' -size -256k 2>/dev/null |
	while read -r f; do cp "$f" "$out/fuzz-seeds/$(echo "$f" | cksum | cut -d' ' -f1).ptx"; done
echo "fuzzing for $seconds s with $(ls "$out/fuzz-seeds" | wc -l) seed files"
export ASAN_OPTIONS=detect_leaks=1
"$out/testsuite/fuzz/fuzz_parse" -max_total_time="$seconds" -max_len=262144 -timeout=10 \
	-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/" \
	"$out/fuzz-corpus" "$out/fuzz-seeds"
