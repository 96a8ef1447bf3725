#!/usr/bin/env bash
# Builds and runs the animation demo: the spec's two-bone rig played for
# 1.25 s at 60 fps, printed as a table (a later version renders a picture).
# Usage: scripts/demo.sh            (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target example_play_two_bone
./build/examples/example_play_two_bone
