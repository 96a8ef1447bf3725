#!/usr/bin/env bash
# Sets up, builds and runs every test of cna:
#   1. build/        warnings as errors, the whole CTest suite;
#   2. build-asan/   the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer
#                    (LeakSanitizer included);
#   3. build-scalar/ the whole suite again with CNA_NO_SIMD (the scalar code paths only);
#   4. build-fuzz/   when clang's libFuzzer is present, a bounded fuzzing smoke run.
# Usage: scripts/test.sh            (from anywhere; exits non-zero on any failure)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

JOBS=$(nproc 2>/dev/null || echo 2)
export CTEST_OUTPUT_ON_FAILURE=1

echo "== build/ (-Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCNA_WERROR=ON >/dev/null
cmake --build build -j "$JOBS"
LOG=$(mktemp "${TMPDIR:-/tmp}/cna-ctest.XXXXXX")
trap 'rm -f "$LOG"' EXIT
(cd build && ctest -j "$JOBS") | tee "$LOG"

echo "== build-asan/ (ASan + UBSan, -Werror)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCNA_WERROR=ON -DCNA_SANITIZE=ON \
  -DCNA_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest -j "$JOBS") \
  | tee -a "$LOG"

echo "== build-scalar/ (CNA_NO_SIMD, -Werror)"
cmake -S . -B build-scalar -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCNA_NO_SIMD=ON -DCNA_WERROR=ON \
  -DCNA_BUILD_BENCH=OFF >/dev/null
cmake --build build-scalar -j "$JOBS"
(cd build-scalar && ctest -j "$JOBS") | tee -a "$LOG"

if [ -f fuzz/CMakeLists.txt ]; then
  echo "== build-fuzz/ (libFuzzer smoke run)"
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Debug -DCNA_BUILD_FUZZ=ON -DCNA_SANITIZE=ON -DCNA_BUILD_TESTS=OFF \
    -DCNA_BUILD_TOOLS=OFF -DCNA_BUILD_EXAMPLES=OFF -DCNA_BUILD_BENCH=OFF >/dev/null
  cmake --build build-fuzz -j "$JOBS"
  CNA_TOOL=build/cna scripts/fuzz-smoke.sh build-fuzz
fi
# One closing line over the three CTest runs (each CTest test is one cmocka program).
passed=0
failed=0
while read -r p f; do
  passed=$((passed + p - f))
  failed=$((failed + f))
done < <(sed -n 's/^[0-9]*% tests passed, \([0-9]*\) tests failed out of \([0-9]*\)$/\2 \1/p' "$LOG")
echo "scripts/test.sh: all suites passed (plain, ASan + UBSan, scalar, fuzz smoke run)"
echo "ctest: $passed passed, $failed failed"
