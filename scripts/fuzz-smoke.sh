#!/usr/bin/env bash
# Bounded libFuzzer smoke run of the four harnesses: the glTF reader, the .cnb
# reader, the .cnj reader and the whole path from bytes to pose (about 90 s in all).
#
# Usage: scripts/fuzz-smoke.sh BUILD_DIR [SECONDS]
#   BUILD_DIR  a build configured with clang and -DCNA_BUILD_FUZZ=ON (see scripts/test.sh)
#   (env CNA_TOOL: the `cna` that converts the .cnb seeds; default BUILD_DIR/cna)
#   SECONDS    fuzzing time of the four harnesses together, default 80 (or $CNA_FUZZ_SECONDS):
#              27/80 to fuzz_gltf_load, 18/80 to fuzz_cnb_load, 10/80 to fuzz_cnj_read,
#              the rest (25/80) to fuzz_model_path
#
# Seeds of fuzz_gltf_load: every .gltf/.glb under tests/data/corpus/{valid,invalid},
# tests/data/compressed (meshopt and Draco) and fuzz/corpus/gltf (cna's own hostile seeds);
# each .gltf is first rewritten with its external buffers inlined as data: URIs (the
# harness loads from memory, with no files behind it), by fuzz_seed_inline_buffers
# (fuzz/corpus/gltf's self-contained seeds are copied as they are).
# Seeds of fuzz_cnb_load: the valid corpus converted to .cnb by `cna convert DIR -o DIR`,
# fixtures with every version 4 section (split palettes, instances, markers, full materials),
# and the version 2 files of tests/data/cnb-v2.
# Seeds of fuzz_model_path: the same inlined corpus, plus the self-contained models of
# tests/data/fixtures and tests/data/fixtures-mesh (read in place).
# Seeds of fuzz_cnj_read: fuzz/corpus/cnj (read in place).
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
SECONDS_BUDGET=${2:-${CNA_FUZZ_SECONDS:-80}}
FUZZER=$BUILD/fuzz/fuzz_gltf_load
CNB_FUZZER=$BUILD/fuzz/fuzz_cnb_load
CNJ_FUZZER=$BUILD/fuzz/fuzz_cnj_read
MODEL_FUZZER=$BUILD/fuzz/fuzz_model_path
SEEDER=$BUILD/fuzz/fuzz_seed_inline_buffers
# The converter that makes the .cnb seeds: $CNA_TOOL, else BUILD_DIR/cna.
CNA=${CNA_TOOL:-$BUILD/cna}
GLTF_SECONDS=$((SECONDS_BUDGET * 27 / 80))
CNB_SECONDS=$((SECONDS_BUDGET * 18 / 80))
CNJ_SECONDS=$((SECONDS_BUDGET * 10 / 80))
MODEL_SECONDS=$((SECONDS_BUDGET - GLTF_SECONDS - CNB_SECONDS - CNJ_SECONDS))
for exe in "$FUZZER" "$CNB_FUZZER" "$CNJ_FUZZER" "$MODEL_FUZZER" "$SEEDER" "$CNA"; do
  if [ ! -x "$exe" ]; then
    echo "fuzz-smoke: $exe not built (configure with clang and -DCNA_BUILD_FUZZ=ON)" >&2
    exit 1
  fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cna-fuzz-smoke.XXXXXX")
keep=0
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$TMP"; fi; }
trap cleanup EXIT
mkdir -p "$TMP/seeds" "$TMP/work" "$TMP/artifacts" "$TMP/cnb-converted" "$TMP/cnb-seeds" "$TMP/cnb-work" \
  "$TMP/cnj-work" "$TMP/model-work"

n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  case "$f" in
    fuzz/corpus/gltf/*.gltf)
      cp "$f" "$TMP/seeds/$n.gltf" ;;   # self-contained; cJSON's rewrite would drop their NULs
    *.gltf)
      if ! ASAN_OPTIONS=detect_leaks=0 "$SEEDER" "$f" "$TMP/seeds/$n.gltf" 2>/dev/null; then
        cp "$f" "$TMP/seeds/$n.gltf"   # not JSON: the raw bytes are a seed too
      fi ;;
    *) cp "$f" "$TMP/seeds/$n.glb" ;;
  esac
done < <(find tests/data/corpus/valid tests/data/corpus/invalid tests/data/compressed fuzz/corpus/gltf -type f \( -name '*.gltf' -o -name '*.glb' \) -print0 | sort -z)
# .cnb seeds: a model the converter refuses is simply not a seed.
ASAN_OPTIONS=detect_leaks=0 "$CNA" convert tests/data/corpus/valid -o "$TMP/cnb-converted" > /dev/null 2>&1 || true
m=0
while IFS= read -r -d '' f; do
  m=$((m + 1))
  cp "$f" "$TMP/cnb-seeds/$m.cnb"
done < <(find "$TMP/cnb-converted" -type f -name '*.cnb' -print0 | sort -z)
# files with every version 4 section: split palettes, instances, markers, full materials
ASAN_OPTIONS=detect_leaks=0 "$CNA" convert tests/data/fixtures/split-two-skins.gltf -o "$TMP/cnb-converted/split.cnb" \
  --split-palettes > /dev/null 2>&1 || true
ASAN_OPTIONS=detect_leaks=0 "$CNA" convert tests/data/fixtures/instancing.gltf -o "$TMP/cnb-converted/instancing.cnb" \
  > /dev/null 2>&1 || true
ASAN_OPTIONS=detect_leaks=0 "$CNA" convert tests/data/fixtures/skin-root-motion.gltf -o "$TMP/cnb-converted/markers.cnb" \
  --marker Walk:left:0 --marker Walk:right:0.5 > /dev/null 2>&1 || true
ASAN_OPTIONS=detect_leaks=0 "$CNA" convert tests/data/fixtures-materials/pbr-five-maps.gltf \
  -o "$TMP/cnb-converted/materials.cnb" > /dev/null 2>&1 || true
for f in "$TMP"/cnb-converted/split.cnb "$TMP"/cnb-converted/instancing.cnb "$TMP"/cnb-converted/markers.cnb \
         "$TMP"/cnb-converted/materials.cnb; do
  [ -f "$f" ] || continue
  m=$((m + 1))
  cp "$f" "$TMP/cnb-seeds/$m.cnb"
done
# and the version 2 files the reader still reads
while IFS= read -r -d '' f; do
  m=$((m + 1))
  cp "$f" "$TMP/cnb-seeds/$m.cnb"
done < <(find tests/data/cnb-v2 -type f -name '*.cnb' -print0 | sort -z)
if [ "$m" -eq 0 ]; then
  keep=1
  echo "fuzz-smoke: cna convert produced no .cnb seed (kept in $TMP)" >&2
  exit 1
fi

# run NAME SECONDS FUZZER WORK SEEDS [libFuzzer options...]
# (SEEDS: one directory, or several separated by ':')
failed=0
run() {
  local name=$1 secs=$2 exe=$3 work=$4 seeds=$5
  shift 5
  local dirs
  IFS=: read -r -a dirs <<< "$seeds"
  echo "fuzz-smoke: $name: $(find "${dirs[@]}" -maxdepth 1 -type f | wc -l) seed files, ${secs}s"
  set +e
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$TMP/artifacts/$name-" "$@" \
    "$work" "${dirs[@]}" > "$TMP/$name.log" 2>&1
  local rc=$?
  set -e
  grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)' "$TMP/$name.log" || true
  # this harness's findings only (an earlier harness's artifacts are not this one's)
  if [ "$rc" -ne 0 ] || [ -n "$(find "$TMP/artifacts" -maxdepth 1 -name "$name-*" -print -quit)" ]; then
    failed=1
    tail -n 60 "$TMP/$name.log" >&2
    echo "fuzz-smoke: $name FAILED (libFuzzer exit $rc)" >&2
  fi
}
run gltf "$GLTF_SECONDS" "$FUZZER" "$TMP/work" "$TMP/seeds" -dict=fuzz/gltf.dict
run cnb "$CNB_SECONDS" "$CNB_FUZZER" "$TMP/cnb-work" "$TMP/cnb-seeds"
run cnj "$CNJ_SECONDS" "$CNJ_FUZZER" "$TMP/cnj-work" fuzz/corpus/cnj -dict=fuzz/cnj.dict
run model "$MODEL_SECONDS" "$MODEL_FUZZER" "$TMP/model-work" \
  "$TMP/seeds:tests/data/fixtures:tests/data/fixtures-mesh" -dict=fuzz/gltf.dict

if [ "$failed" -ne 0 ]; then
  keep=1
  echo "fuzz-smoke: FAILED; logs and crash inputs kept in $TMP" >&2
  exit 1
fi
echo "fuzz-smoke: no findings"
