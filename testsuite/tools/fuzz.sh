#!/bin/sh
# Builds the libFuzzer targets with clang, ASan and UBSan, and fuzzes each
# for SECONDS: the PTX parser, seeded with every PTX file of the test suite
# and of the corpus run, then the binary readers (fatbin, ELF, cubin),
# seeded with the small binaries lit-binary built.  Fails on any crash,
# leak, timeout or round-trip mismatch; the failing input is left in
# BUILD_DIR.
# usage: fuzz.sh SOURCE_DIR BUILD_DIR SECONDS PTX_DIR
set -eu
src=$1 out=$2 seconds=$3 ptxdir=$4
# lit-binary keeps its binaries next to the corpus PTX, under testsuite/binary.
bindir=$(dirname "$ptxdir")/binary/Output

cmake -S "$src" -B "$out" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCOLOC_FUZZ=ON -DCOLOC_SANITIZE=ON >/dev/null
cmake --build "$out" --target fuzz_parse fuzz_fatbin
rm -rf "$out/fuzz-seeds" "$out/fuzz-fatbin-seeds"
mkdir -p "$out/fuzz-seeds" "$out/fuzz-corpus" "$out/fuzz-fatbin-seeds" "$out/fuzz-fatbin-corpus"
find "$src/testsuite" "$src/examples" "$ptxdir" -name '*.ptx' -size -256k 2>/dev/null |
	while read -r f; do cp "$f" "$out/fuzz-seeds/$(echo "$f" | cksum | cut -d' ' -f1).ptx"; done
echo "fuzzing the parser for $seconds s with $(ls "$out/fuzz-seeds" | wc -l) seed files"
export ASAN_OPTIONS=detect_leaks=1
"$out/testsuite/fuzz/fuzz_parse" -max_total_time="$seconds" -max_len=262144 -timeout=10 \
	-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/" \
	"$out/fuzz-corpus" "$out/fuzz-seeds"

# Fatbins, cubins and objects; executables and libraries are too large to mutate usefully.
find "$bindir" -type f \( -name '*.fatbin' -o -name '*.cubin' -o -name '*.o' \) -size -64k \
	2>/dev/null | while read -r f; do
	cp "$f" "$out/fuzz-fatbin-seeds/$(echo "$f" | cksum | cut -d' ' -f1)"
done
echo "fuzzing the binary readers for $seconds s with $(ls "$out/fuzz-fatbin-seeds" | wc -l) seed files"
"$out/testsuite/fuzz/fuzz_fatbin" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
	-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/fatbin-" \
	"$out/fuzz-fatbin-corpus" "$out/fuzz-fatbin-seeds"
