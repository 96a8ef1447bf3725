#!/bin/sh
# bench/run-all.sh [BUILD_DIR] — build the benchmarks (Release-like RelWithDebInfo, -O2) and run
# every one in turn with its defaults (median of 5 runs of >= 0.5 s, [min-max]), printing the
# machine first. The figures in docs/benchmarks.md ("Summary") come from this script.
# Run it on an otherwise idle machine: each program also measures its own yardstick (baseline
# player, memcpy, glTF import) in the same run, and ratios are what to compare across machines.
# cna beside ozz-animation (built from a source tree you point at) is bench/peers/run.sh OZZ_SRC;
# it is not run here (docs/benchmarks.md, "Side by side with ozz-animation").
set -eu
cd "$(dirname "$0")/.."
B=${1:-build-bench}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCNA_BUILD_TESTS=OFF >/dev/null
cmake --build "$B" --target bench_player bench_skinning bench_blend bench_morph_blend bench_import bench_cnb_load \
    bench_gltf_load bench_character_create cna_tool >/dev/null
echo "== machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC')"
run() { echo; echo "== $*"; "$@"; }
run "$B/bench/bench_player" --clip Robot_Walking
run "$B/bench/bench_player" --clip "Walk (synthetic)"
run "$B/bench/bench_player" --crowd-only
run "$B/bench/bench_skinning"
run "$B/bench/bench_blend"
run "$B/bench/bench_morph_blend"
run "$B/bench/bench_import"
run "$B/bench/bench_cnb_load"
run "$B/bench/bench_gltf_load"
run "$B/bench/bench_character_create"
run "$B/cna" bench tests/data/corpus/valid/RobotExpressive/robot.glb --clip Robot_Walking --json
echo; echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
