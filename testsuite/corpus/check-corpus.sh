#!/usr/bin/env bash
# check-corpus.sh - compile every corpus file for every target and variant.
#
# For each FILE.cu in this directory, each ARCH in "sm_80 sm_90 sm_90a sm_100"
# plus the archs named on a "// EXTRA-ARCHS:" line in the file, and each
# variant VAR in (none) -G -lineinfo:
#     nvcc -ptx -arch=ARCH VAR $EXTRA_FLAGS FILE -o out.ptx
#     ptxas -arch=ARCH out.ptx -o out.cubin
# EXTRA_FLAGS come from a "// NVCC-EXTRA-FLAGS:" line in the file.
#
# The generated PTX is kept in $CORPUS_OUT (default: a fresh directory under
# ${TMPDIR:-/tmp}) as NAME.ARCH.VARIANT.ptx (VARIANT is O, G or L) so that
# it can be grepped or fed to the colocc front end afterwards.
#
# Usage: check-corpus.sh [FILE.cu ...]      (default: all *.cu here)
# Env:   CUDA_HOME (default /usr/local/cuda), JOBS (default 2),
#        CORPUS_OUT (output directory), KEEP_CUBIN=1 keeps the cubins.
# Exit status: 0 if everything compiled, 1 otherwise.
set -u

here=$(cd "$(dirname "$0")" && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
PTXAS=$CUDA_HOME/bin/ptxas
JOBS=${JOBS:-2}
BASE_ARCHS="sm_80 sm_90 sm_90a sm_100"
OUT=${CORPUS_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/colocc-corpus.XXXXXX")}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1

if [ $# -gt 0 ]; then files=("$@"); else files=("$here"/[0-9]*.cu); fi
for i in "${!files[@]}"; do   # absolute paths: the jobs run inside $OUT
  files[$i]=$(cd "$(dirname "${files[$i]}")" && pwd)/$(basename "${files[$i]}")
done

# Directive lines: "// EXTRA-ARCHS: a b c" and "// NVCC-EXTRA-FLAGS: -x -y".
directive() { sed -n "s|^// *$2: *||p" "$1" | head -n 1; }

# One job per line: FILE<TAB>ARCH<TAB>VARIANT-TAG
jobs_list() {
  local f archs a v
  for f in "${files[@]}"; do
    archs="$BASE_ARCHS $(directive "$f" EXTRA-ARCHS)"
    for a in $archs; do
      for v in O G L; do printf '%s\t%s\t%s\n' "$f" "$a" "$v"; done
    done
  done
}

# Compile one job; print a FAIL block (with the log) on failure, else nothing.
one_job() {
  local f=$1 arch=$2 tag=$3 var= name extra ptx cubin log
  case $tag in G) var=-G ;; L) var=-lineinfo ;; esac
  name=$(basename "$f" .cu)
  cd "$OUT" || return 0   # keep any stray compiler output out of the source tree
  extra=$(sed -n 's|^// *NVCC-EXTRA-FLAGS: *||p' "$f" | head -n 1)
  ptx=$OUT/$name.$arch.$tag.ptx
  cubin=$OUT/$name.$arch.$tag.cubin
  log=$OUT/$name.$arch.$tag.log
  # shellcheck disable=SC2086
  if ! "$NVCC" -ptx -arch="$arch" $var $extra "$f" -o "$ptx" >"$log" 2>&1; then
    printf 'FAIL nvcc  %-28s %-8s %s\n%s\n' "$name" "$arch" "${var:-(none)}" \
      "$(sed 's/^/    /' "$log" | head -n 30)"
    return 0
  fi
  if ! "$PTXAS" -arch="$arch" "$ptx" -o "$cubin" >>"$log" 2>&1; then
    printf 'FAIL ptxas %-28s %-8s %s\n%s\n' "$name" "$arch" "${var:-(none)}" \
      "$(sed 's/^/    /' "$log" | head -n 30)"
    return 0
  fi
  [ "${KEEP_CUBIN:-0}" = 1 ] || rm -f "$cubin"
  [ -s "$log" ] || rm -f "$log"
  printf 'ok\n'
}
export -f one_job
export NVCC PTXAS OUT

start=$(date +%s)
results=$(jobs_list | xargs -P "$JOBS" -n 1 -d '\n' \
            bash -c 'IFS=$'"'"'\t'"'"' read -r f a v <<<"$1"; one_job "$f" "$a" "$v"' _)
end=$(date +%s)

total=$(printf '%s\n' "$results" | grep -c -e '^ok$' -e '^FAIL')
fails=$(printf '%s\n' "$results" | grep -c '^FAIL')
printf '%s\n' "$results" | grep -v '^ok$'
echo "corpus: ${#files[@]} files, $total compiles, $fails failed, $((end - start)) s, output in $OUT"
[ "$fails" -eq 0 ]
