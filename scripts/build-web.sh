#!/usr/bin/env bash
# Builds cna for the web with Debian 12's emscripten into build-web/ (docs/web.md), then
# runs the web tests (tests/web/run.sh) unless --no-test is given.
# Usage: scripts/build-web.sh [--no-test]      (root, or sudo, for the packages)
#   build-web/cna-core.mjs + .wasm   the library (glTF/GLB/.cnb import, characters), an ES module factory
#   build-web/cna-web.mjs            the JavaScript API over it
#   build-web/cna.mjs (+ cna-cli.*)  the cna tool for Node: node build-web/cna.mjs pose model.glb ...
#   build-web/demo.html, demo.js     the WebGL2 demo (serve build-web/ over HTTP)
# cJSON and meshoptimizer are built from Debian's source packages (apt-get source, into
# build-web/deps; a deb-src entry is added when apt has none), cglm's headers are copied
# from libcglm-dev. Environment: JOBS (default 2) parallel compile jobs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/build-web
JOBS=${JOBS:-2}
RUN_TESTS=1
for arg in "$@"; do
  case $arg in
    --no-test) RUN_TESTS=0 ;;
    *) echo "usage: scripts/build-web.sh [--no-test]" >&2; exit 2 ;;
  esac
done
start=$(date +%s)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# ---------------------------------------------------------------- packages
PACKAGES=(emscripten nodejs dpkg-dev libcglm-dev cmake ninja-build xz-utils gzip)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-web: installing ${missing[*]}"
  $SUDO apt-get update
  $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "${missing[@]}"
fi
# Debian's emscripten runs its JavaScript tools with `node` and finds acorn in
# /usr/share/nodejs, which Debian's own nodejs searches and other builds of Node do not.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# ---------------------------------------------------------------- dependencies from Debian
DEPS=$OUT/deps
mkdir -p "$DEPS/src" "$DEPS/include"
# The unpacked source package of $1 (apt-get source, once).
source_dir() {
  local pkg=$1 dir
  dir=$(find "$DEPS/src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
  if [ -z "$dir" ]; then
    if ! apt-get source --print-uris "$pkg" >/dev/null 2>&1; then
      echo "build-web: adding a deb-src entry (/etc/apt/sources.list.d/cna-deb-src.sources)" >&2
      printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" \
        "Suites: bookworm bookworm-updates" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" "" \
        "Types: deb-src" "URIs: http://deb.debian.org/debian-security" \
        "Suites: bookworm-security" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
        $SUDO tee /etc/apt/sources.list.d/cna-deb-src.sources >/dev/null
      $SUDO apt-get update >&2
    fi
    (cd "$DEPS/src" && apt-get source "$pkg" >&2)
    dir=$(find "$DEPS/src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
  fi
  [ -n "$dir" ] || { echo "build-web: apt-get source $pkg left no $pkg-* folder" >&2; exit 1; }
  echo "$dir"
}
CJSON_SRC=$(source_dir cjson)
MESHOPT_SRC=$(source_dir meshoptimizer)
mkdir -p "$DEPS/include/cjson"
cp -u "$CJSON_SRC/cJSON.h" "$DEPS/include/cjson/cJSON.h"
cp -u "$MESHOPT_SRC/src/meshoptimizer.h" "$DEPS/include/meshoptimizer.h"
rm -rf "$DEPS/include/cglm.new" && cp -r /usr/include/cglm "$DEPS/include/cglm.new"
if ! diff -r -q "$DEPS/include/cglm.new" "$DEPS/include/cglm" >/dev/null 2>&1; then
  rm -rf "$DEPS/include/cglm" && mv "$DEPS/include/cglm.new" "$DEPS/include/cglm"
else
  rm -rf "$DEPS/include/cglm.new"
fi

# ---------------------------------------------------------------- build
emcmake cmake -S "$ROOT/web" -B "$OUT/obj" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCNA_WERROR=ON \
  -DCNA_WEB_DEPS="$DEPS" -DCNA_WEB_CJSON_SRC="$CJSON_SRC" -DCNA_WEB_MESHOPT_SRC="$MESHOPT_SRC" >/dev/null
cmake --build "$OUT/obj" -j "$JOBS"
for f in cna-core.mjs cna-core.wasm cna-cli.js cna-cli.wasm; do cp "$OUT/obj/$f" "$OUT/$f"; done
for f in cna.mjs cna-web.mjs example.mjs demo.html demo.js; do cp "$ROOT/web/$f" "$OUT/$f"; done
cp "$ROOT/assets/RobotExpressive/robot.glb" "$OUT/robot.glb"
chmod +x "$OUT/cna.mjs"

# ---------------------------------------------------------------- size budget
raw=$(stat -c %s "$OUT/cna-core.wasm")
gz=$(gzip -9 -n -c "$OUT/cna-core.wasm" | wc -c)
budget=$((400 * 1000))
echo "build-web: cna-core.wasm (library + glTF importer) $raw bytes, $gz bytes gzipped (budget $budget)"
if [ "$gz" -gt "$budget" ]; then
  echo "build-web: cna-core.wasm is over its size budget: $gz > $budget bytes gzipped" >&2
  exit 1
fi
echo "build-web: built in $(( $(date +%s) - start )) s"

if [ "$RUN_TESTS" -eq 1 ]; then
  "$ROOT/tests/web/run.sh"
fi
