#!/usr/bin/env bash
# Renders the README's pictures of the showcase tentacle (assets/Tentacle: 150 joints,
# a texture repeated by KHR_texture_transform, a travelling wave) headless with
# `cna render` — OpenGL 3.3 through EGL, Mesa's llvmpipe when there is no GPU:
#   docs/images/tentacle-split.png        tentacle.gltf at 0.5 s, its 150-joint skin split
#                                         into sub-palettes of at most 72 (--split-palettes);
#   docs/images/tentacle-meshopt.png      tentacle-meshopt.glb (gltfpack -cc) at 1 s;
#   docs/images/tentacle-wave-sheet.png   the compressed file, eight frames over the wave;
#   docs/images/robot-ik-sheet.png        RobotExpressive walking with its left hand held at
#                                         one point (--ik) and its head aimed at another (--aim).
#   docs/images/retarget-apose.png        T-pose human clips retargeted onto an A-pose human
#   docs/images/retarget-apose-aligned.png  (tests/data/libraries), without and with reference
#                                         alignment (--retarget, --retarget-align).
# Not run by the tests; run it again after changing the asset or the renderer, and look at
# the pictures before committing them.
# Usage: scripts/screenshots.sh      (from anywhere; CNA_BUILD_DIR overrides build/)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${CNA_BUILD_DIR:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target cna_tool
T=assets/Tentacle
"$BUILD/cna" render "$T/tentacle.gltf" --split-palettes --animation Wave --time 0.5 --size 400x300 \
    -o docs/images/tentacle-split.png
"$BUILD/cna" render "$T/tentacle-meshopt.glb" --split-palettes --animation Wave --time 1.0 --size 400x300 \
    -o docs/images/tentacle-meshopt.png
"$BUILD/cna" render "$T/tentacle-meshopt.glb" --split-palettes --sheet 8 --size 160x220 \
    -o docs/images/tentacle-wave-sheet.png
"$BUILD/cna" render tests/data/corpus/valid/RobotExpressive/robot.glb --animation Robot_Walking --sheet 4 \
    --size 200x240 --ik Palm2.L=0.9,2.3,1.6 --ik-pole 1,-1,0 --aim Head=2.5,3,3 --aim-forward 0,0,1 \
    -o docs/images/robot-ik-sheet.png
L=tests/data/libraries
"$BUILD/cna" render "$L/CraftedAPoseHuman/human-male-apose.glb" --clips "$L/Mesh2MotionHuman/human-addon-animations.glb" \
    --retarget --animation "Run Anime" --sheet 4 --size 160x220 -o docs/images/retarget-apose.png
"$BUILD/cna" render "$L/CraftedAPoseHuman/human-male-apose.glb" --clips "$L/Mesh2MotionHuman/human-addon-animations.glb" \
    --retarget --retarget-align --animation "Run Anime" --sheet 4 --size 160x220 \
    -o docs/images/retarget-apose-aligned.png
