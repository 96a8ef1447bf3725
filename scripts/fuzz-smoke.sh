#!/usr/bin/env bash
# Bounded libFuzzer smoke run of the glTF reader (about a minute in all).
#
# Usage: scripts/fuzz-smoke.sh BUILD_DIR [SECONDS]
#   BUILD_DIR  a build configured with clang and -DCNA_BUILD_FUZZ=ON (see scripts/test.sh)
#   SECONDS    fuzzing time, default 45 (or $CNA_FUZZ_SECONDS)
#
# Seeds: every .gltf/.glb under tests/data/corpus/{valid,invalid}; each .gltf is
# first rewritten with its external buffers inlined as data: URIs (the harness
# loads from memory, with no files behind it), by fuzz_seed_inline_buffers.
# Everything is written to a temporary directory, never into the repository.
# Exit status: 0 when libFuzzer ran to its time limit without a finding;
# otherwise non-zero, with the temporary directory (crash inputs in artifacts/)
# kept and named on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/fuzz-smoke.sh BUILD_DIR [SECONDS]" >&2
  exit 2
fi
BUILD=$1
SECONDS_BUDGET=${2:-${CNA_FUZZ_SECONDS:-45}}
FUZZER=$BUILD/fuzz/fuzz_gltf_load
SEEDER=$BUILD/fuzz/fuzz_seed_inline_buffers
for exe in "$FUZZER" "$SEEDER"; do
  if [ ! -x "$exe" ]; then
    echo "fuzz-smoke: $exe not built (configure with clang and -DCNA_BUILD_FUZZ=ON)" >&2
    exit 1
  fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cna-fuzz-smoke.XXXXXX")
keep=0
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$TMP"; fi; }
trap cleanup EXIT
mkdir -p "$TMP/seeds" "$TMP/work" "$TMP/artifacts"

n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  case "$f" in
    *.gltf)
      if ! ASAN_OPTIONS=detect_leaks=0 "$SEEDER" "$f" "$TMP/seeds/$n.gltf" 2>/dev/null; then
        cp "$f" "$TMP/seeds/$n.gltf"   # not JSON: the raw bytes are a seed too
      fi ;;
    *) cp "$f" "$TMP/seeds/$n.glb" ;;
  esac
done < <(find tests/data/corpus/valid tests/data/corpus/invalid -type f \( -name '*.gltf' -o -name '*.glb' \) -print0 | sort -z)
echo "fuzz-smoke: $n seeds, ${SECONDS_BUDGET}s"

set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$FUZZER" -max_total_time="$SECONDS_BUDGET" -timeout=10 -rss_limit_mb=2048 \
  -dict=fuzz/gltf.dict -print_final_stats=1 -artifact_prefix="$TMP/artifacts/" \
  "$TMP/work" "$TMP/seeds" > "$TMP/fuzz.log" 2>&1
rc=$?
set -e

grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)' "$TMP/fuzz.log" || true
if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$TMP/artifacts")" ]; then
  keep=1
  tail -n 60 "$TMP/fuzz.log" >&2
  echo "fuzz-smoke: FAILED (libFuzzer exit $rc); log and crash inputs kept in $TMP" >&2
  exit 1
fi
echo "fuzz-smoke: no findings"
