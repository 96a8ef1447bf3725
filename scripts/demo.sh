#!/usr/bin/env bash
# The demo: renders the CC0 robot of assets/RobotExpressive (glTF, 43 joints,
# 14 clips) headless — OpenGL 3.3 through EGL on Mesa, llvmpipe when there is
# no GPU, no display needed — with GPU skinning:
#   out/demo.png        one frame of the Robot_Running clip;
#   out/demo-sheet.png  a contact sheet of the Robot_Walking cycle (8 frames, time under each).
# Usage: scripts/demo.sh            (from anywhere; CNA_BUILD_DIR overrides build/)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD="${CNA_BUILD_DIR:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target cna_tool
mkdir -p out
ROBOT=assets/RobotExpressive/robot.glb
"$BUILD/cna" render "$ROBOT" --animation Robot_Running --time 0.25 --size 800x600 -o out/demo.png
"$BUILD/cna" render "$ROBOT" --animation Robot_Walking --sheet 8 --size 240x300 -o out/demo-sheet.png
echo "demo: wrote out/demo.png and out/demo-sheet.png"
