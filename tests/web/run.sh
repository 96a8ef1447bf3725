#!/usr/bin/env bash
# The web build's tests (scripts/build-web.sh runs them after building):
#   1. `node build-web/cna.mjs pose ...` prints the same bytes as the native `cna pose ...`
#      on the test models (tests/web/compare-pose.mjs: every corpus, fixture and compressed
#      model, the bundled assets, the robot baked to .cnb; the rest pose, three times of up
#      to three clips, a blend); `cna convert` writes the same .cnb bytes;
#   2. cna_mat4_inverse gives x86-64's bits (tests/web/mat4.c);
#      a crowd asked for 4 threads runs on the calling thread with the same bits
#      (tests/web/crowd.c; the web build has no threads);
#   3. the JavaScript module: its checks (tests/web/api.mjs: a .cnb as its glTF, errors,
#      crossfade weights, free()) and its usage example (web/example.mjs).
# Needs build-web/ (scripts/build-web.sh --no-test) and the native tool: build/cna, or
# the path in CNA_NATIVE (the plain CMake build of the repository).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WEB=$ROOT/build-web
NATIVE=${CNA_NATIVE:-$ROOT/build/cna}
[ -f "$WEB/cna.mjs" ] || { echo "tests/web: no $WEB/cna.mjs: run scripts/build-web.sh first" >&2; exit 1; }
[ -x "$NATIVE" ] || { echo "tests/web: no native cna at $NATIVE: build the repository (README) or set CNA_NATIVE" >&2; exit 1; }
start=$(date +%s)

mapfile -t models < <(cd "$ROOT" && find tests/data/corpus/valid tests/data/fixtures tests/data/compressed \
  -maxdepth 2 \( -name '*.gltf' -o -name '*.glb' \) | sort; \
  echo assets/RobotExpressive/robot.glb; echo assets/Tentacle/tentacle.gltf; echo assets/Tentacle/tentacle-meshopt.glb)
# A .cnb baked model too, converted by the native tool.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NATIVE" convert "$ROOT/assets/RobotExpressive/robot.glb" -o "$tmp/robot.cnb" >/dev/null
(cd "$ROOT" && node tests/web/compare-pose.mjs "$NATIVE" "$WEB/cna.mjs" "${models[@]}" "$tmp/robot.cnb")

# `cna convert` under Node writes the native tool's bytes.
node "$WEB/cna.mjs" convert "$ROOT/assets/RobotExpressive/robot.glb" -o "$tmp/robot-web.cnb" >/dev/null
cmp "$tmp/robot.cnb" "$tmp/robot-web.cnb"
echo "convert: the .cnb written under Node is the native tool's, byte for byte"

# The JavaScript module: .cnb and glTF alike, errors, crossfade weights, free().
node "$ROOT/tests/web/api.mjs" "$WEB/cna-web.mjs" "$ROOT/assets/RobotExpressive/robot.glb" "$tmp/robot.cnb"

# cna_mat4_inverse: x86-64's bits (the portable form of cglm's SSE2 code).
node "$WEB/obj/test-mat4.js"

# The crowd without threads: the calling thread evaluates, with the bits of one by one.
node "$WEB/obj/test-crowd.js" "$ROOT/assets/RobotExpressive/robot.glb"

# The usage example of cna-web.mjs, and what it prints.
out=$(node "$WEB/example.mjs")
echo "$out"
expect() {
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "tests/web: the example's output lacks: $1" >&2
    exit 1
  fi
}
expect "58 bones, 14 animations"
expect "playing Robot_Running at 0.250 s; palette of mesh 0 part 0: 43 matrices"
expect "refused: no animation \"Robot_Flying\" (the model has 14)"
echo "tests/web: passed in $(( $(date +%s) - start )) s"
