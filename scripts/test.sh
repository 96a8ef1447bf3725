#!/usr/bin/env bash
# Sets up, builds and runs every test of cna, in four stages:
#   1. plain   build/        warnings as errors, the whole CTest suite;
#   2. asan    build-asan/   the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer
#                            (LeakSanitizer included);
#   3. scalar  build-scalar/ the whole suite again with CNA_NO_SIMD (the scalar code paths only);
#   4. fuzz    build-fuzz/   a bounded libFuzzer smoke run (scripts/fuzz-smoke.sh; needs clang and
#                            its libFuzzer, which scripts/setup.sh installs).
# Every stage runs, even after an earlier one failed. Each ends with one line
#   <stage>: N passed, N failed
# where a test is one CTest test (one cmocka program) in stages 1-3 and one of the four libFuzzer
# harnesses in stage 4 (it passes when it runs to its time limit without a finding). A stage whose
# configure or build fails says so on the line above and counts as 0 passed, 1 failed (its tests
# are not run); so does a fuzz run that fails before any harness ran, or a CTest run that fails
# without a failed test. The run ends with the stages that failed, if any, and one line over all
# stages:
#   total: N passed, N failed
# Usage: scripts/test.sh    (from anywhere; exits 0 when every stage passed, 1 otherwise)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
if ! scripts/setup.sh; then
  echo "scripts/test.sh: scripts/setup.sh failed" >&2
  exit 1
fi

JOBS=$(nproc 2>/dev/null || echo 2)
export CTEST_OUTPUT_ON_FAILURE=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cna-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

stages=()
failed_stages=()
total_passed=0
total_failed=0

# stage_end NAME PASSED FAILED: the stage's closing line; adds it to the totals.
stage_end() {
  echo "$1: $2 passed, $3 failed"
  stages+=("$1")
  total_passed=$((total_passed + $2))
  total_failed=$((total_failed + $3))
  if [ "$3" -ne 0 ]; then
    failed_stages+=("$1")
  fi
}

# build_stage NAME DIR CMAKE_OPTION...: configures and builds DIR. On failure it closes the
# stage (0 passed, 1 failed) and returns non-zero.
build_stage() {
  local name=$1 dir=$2
  shift 2
  if ! cmake -S . -B "$dir" -G Ninja "$@" >/dev/null; then
    echo "$name: configure failed ($dir/)"
    stage_end "$name" 0 1
    return 1
  fi
  if ! cmake --build "$dir" -j "$JOBS"; then
    echo "$name: build failed ($dir/)"
    stage_end "$name" 0 1
    return 1
  fi
}

# ctest_stage NAME DIR [VAR=VALUE...]: runs DIR's CTest suite with the variables in its
# environment, shown as it runs, and closes the stage with CTest's counts.
ctest_stage() {
  local name=$1 dir=$2
  shift 2
  local log=$TMP/$name.log
  (cd "$dir" && env "$@" ctest -j "$JOBS") | tee "$log"
  local rc=${PIPESTATUS[0]}
  local summary failed total
  # CTest's summary: "97% tests passed, 2 tests failed out of 76"
  summary=$(sed -n 's/^[0-9]*% tests passed, \([0-9]*\) tests failed out of \([0-9]*\)$/\1 \2/p' "$log" | tail -n 1)
  if [ -z "$summary" ]; then
    echo "$name: no CTest summary (ctest exit status $rc)"
    stage_end "$name" 0 1
    return
  fi
  read -r failed total <<< "$summary"
  local passed=$((total - failed))
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "$name: ctest exit status $rc with no failed test"
    failed=1
  fi
  stage_end "$name" "$passed" "$failed"
}

echo "== plain: build/ (-Werror)"
if build_stage plain build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCNA_WERROR=ON; then
  ctest_stage plain build
fi

echo "== asan: build-asan/ (ASan + UBSan, -Werror)"
if build_stage asan build-asan -DCMAKE_BUILD_TYPE=Debug -DCNA_WERROR=ON -DCNA_SANITIZE=ON \
     -DCNA_BUILD_BENCH=OFF; then
  ctest_stage asan build-asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
fi

echo "== scalar: build-scalar/ (CNA_NO_SIMD, -Werror)"
if build_stage scalar build-scalar -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCNA_NO_SIMD=ON -DCNA_WERROR=ON \
     -DCNA_BUILD_BENCH=OFF; then
  ctest_stage scalar build-scalar
fi

if [ -f fuzz/CMakeLists.txt ]; then
  echo "== fuzz: build-fuzz/ (libFuzzer smoke run)"
  if build_stage fuzz build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
       -DCMAKE_BUILD_TYPE=Debug -DCNA_BUILD_FUZZ=ON -DCNA_SANITIZE=ON -DCNA_BUILD_TESTS=OFF \
       -DCNA_BUILD_TOOLS=OFF -DCNA_BUILD_EXAMPLES=OFF -DCNA_BUILD_BENCH=OFF; then
    # The `cna` that converts the .cnb seeds: build/'s, else another stage's if build/ failed.
    cna_tool=build/cna
    for t in build/cna build-scalar/cna build-asan/cna; do
      if [ -x "$t" ]; then
        cna_tool=$t
        break
      fi
    done
    CNA_TOOL=$cna_tool scripts/fuzz-smoke.sh build-fuzz 2>&1 | tee "$TMP/fuzz.log"
    rc=${PIPESTATUS[0]}
    # one "fuzz-smoke: NAME: N seed files, Ss" line per harness started,
    # one "fuzz-smoke: NAME FAILED (...)" line per harness with a finding
    ran=$(grep -cE '^fuzz-smoke: [a-z]+: [0-9]+ seed files' "$TMP/fuzz.log")
    bad=$(grep -cE '^fuzz-smoke: [a-z]+ FAILED \(' "$TMP/fuzz.log")
    if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
      echo "fuzz: scripts/fuzz-smoke.sh failed (exit status $rc)"
      bad=1
    elif [ "$rc" -eq 0 ] && [ "$ran" -eq 0 ]; then
      echo "fuzz: scripts/fuzz-smoke.sh ran no harness"
      bad=1
    fi
    ok=$((ran > bad ? ran - bad : 0))
    stage_end fuzz "$ok" "$bad"
  fi
fi

echo
if [ ${#failed_stages[@]} -eq 0 ]; then
  echo "scripts/test.sh: all stages passed (${stages[*]})"
else
  echo "scripts/test.sh: FAILED stages: ${failed_stages[*]} (of ${stages[*]})"
fi
echo "total: $total_passed passed, $total_failed failed"
[ ${#failed_stages[@]} -eq 0 ]
