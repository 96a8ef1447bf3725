#!/usr/bin/env bash
# The demo: renders the CC0 robot of assets/RobotExpressive (glTF, 43 joints,
# 14 clips) headless — OpenGL 3.3 through EGL on Mesa, llvmpipe when there is
# no GPU, no display needed — with GPU skinning:
#   out/demo.png        one frame of the Robot_Running clip;
#   out/demo-sheet.png  a contact sheet of the Robot_Walking cycle (8 frames, time under each).
# Usage: scripts/demo.sh            (from anywhere; CNA_BUILD_DIR overrides build/)
# Parallelism: the build runs as many compile jobs at once as Ninja's default
# (about the CPU count + 2). CMake's own variable sets it, e.g. on a shared or small
# machine:   CMAKE_BUILD_PARALLEL_LEVEL=2 scripts/demo.sh
# The two renders run one after the other, each on Mesa's llvmpipe threads
# (LP_NUM_THREADS=N caps those; 0 draws on the calling thread alone).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD="${CNA_BUILD_DIR:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
echo "demo: building with CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-(unset: the Ninja default)} parallel jobs"
cmake --build "$BUILD" --target cna_tool
mkdir -p out
ROBOT=assets/RobotExpressive/robot.glb
"$BUILD/cna" render "$ROBOT" --animation Robot_Running --time 0.25 --size 800x600 -o out/demo.png
"$BUILD/cna" render "$ROBOT" --animation Robot_Walking --sheet 8 --size 240x300 -o out/demo-sheet.png
echo "demo: wrote out/demo.png and out/demo-sheet.png"
