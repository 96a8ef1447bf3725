#!/usr/bin/env bash
# Cross-builds cna for 64-bit Windows on Debian 12 with MinGW-w64 and runs its tests under wine64.
# Usage: scripts/build-windows.sh     (as root, or with sudo available, when packages are missing)
#   build-windows/cna.exe          the command-line tool
#   build-windows/cna.dll          the library as a DLL (import library: libcna.dll.a),
#   build-windows/libcna.a         and as static libraries (libcna_gltf.a: the glTF importer;
#                                  the DLL holds both)
#   build-windows/deps/            cJSON, meshoptimizer and cmocka built from Debian's source
#                                  packages, cglm's headers from Debian's libcglm-dev
# Without the OpenGL renderer (cna render, cna view) and without Draco (files that require
# KHR_draco_mesh_compression are refused): see docs/platforms.md.
# Jobs: CMAKE_BUILD_PARALLEL_LEVEL (default: Ninja's, all cores). Ends with a line
# "windows: ..." that gives the time of each phase (packages, dependencies, cna build, tests)
# and exits 0 only when everything built and every test passed.
set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${CNA_WINDOWS_BUILD:-$ROOT/build-windows}
DEPS=$OUT/deps
TOOLCHAIN=$ROOT/cmake/mingw-w64.cmake
export CNA_WINDOWS_DEPS=$DEPS
start=$(date +%s)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

phase_start=$start
phases=""
phase() { # name: the seconds since the previous phase ended, printed and kept for the summary
  local now
  now=$(date +%s)
  echo "build-windows: $1 done ($(( now - phase_start )) s)"
  phases="$phases${phases:+, }$1 $(( now - phase_start )) s"
  phase_start=$now
}
summary() { # status message
  echo "windows: $2 ($(( $(date +%s) - start )) s${phases:+: $phases})"
  exit "$1"
}
trap 'summary 1 "FAILED: a build step failed (see above)"' ERR

# ------------------------------------------------------------------ Debian packages
PACKAGES=(gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 cmake ninja-build pkg-config dpkg-dev
          libcglm-dev xz-utils)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-windows: installing ${missing[*]}"
  $SUDO apt-get update
  $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "${missing[@]}"
fi
phase packages
WINE64=/usr/lib/wine/wine64
[ -x "$WINE64" ] || WINE64=$(command -v wine64 || command -v wine)
WINESERVER=/usr/lib/wine/wineserver
[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver)

# ------------------------------------------------------------------ dependencies from Debian's sources
# apt-get source needs a deb-src entry; one for Debian's main archive is added when there is none.
have_deb_src() {
  grep -hqsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
    grep -hqsE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}

build_dep() { # package, then its CMake options
  local pkg=$1
  shift
  local stamp=$DEPS/.built-$pkg
  [ -f "$stamp" ] && return 0
  if ! have_deb_src; then
    echo "build-windows: adding Debian's source packages (/etc/apt/sources.list.d/cna-deb-src.sources)"
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$codename" "$codename" | $SUDO tee /etc/apt/sources.list.d/cna-deb-src.sources >/dev/null
    $SUDO apt-get update
  fi
  local src=$DEPS/src
  mkdir -p "$src/$pkg"
  rm -rf "${src:?}/$pkg"/*
  (cd "$src/$pkg" && apt-get source --download-only "$pkg" >/dev/null 2>&1 ||
     apt-get source --download-only "$pkg")
  local dsc
  dsc=$(ls "$src/$pkg"/*.dsc)
  (cd "$src/$pkg" && dpkg-source -x "$(basename "$dsc")" tree >/dev/null)  # Debian's patches applied
  echo "build-windows: $(basename "$dsc" .dsc) for Windows"
  cmake -S "$src/$pkg/tree" -B "$src/$pkg/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$DEPS" -DCMAKE_INSTALL_LIBDIR=lib "$@" >/dev/null
  cmake --build "$src/$pkg/build" >/dev/null
  cmake --install "$src/$pkg/build" >/dev/null
  basename "$dsc" .dsc > "$stamp"
}

mkdir -p "$DEPS/include" "$DEPS/lib/pkgconfig"
build_dep cjson -DBUILD_SHARED_LIBS=OFF -DENABLE_CJSON_TEST=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF \
  -DENABLE_HIDDEN_SYMBOLS=ON
build_dep meshoptimizer -DMESHOPT_BUILD_SHARED_LIBS=OFF -DMESHOPT_BUILD_GLTFPACK=OFF -DMESHOPT_BUILD_DEMO=OFF
build_dep cmocka -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF
if [ ! -f "$DEPS/.built-cmocka-static" ]; then
  # cmocka always builds its DLL too; the tests link the static library.
  sed -i 's/-lcmocka\b/-lcmocka-static/' "$DEPS/lib/pkgconfig/cmocka.pc"
  touch "$DEPS/.built-cmocka-static"
fi
# cglm is headers only: Debian's own, from libcglm-dev.
cglm_version=$(pkg-config --modversion cglm)
if [ ! -f "$DEPS/.built-cglm" ] || [ "$(cat "$DEPS/.built-cglm")" != "$cglm_version" ]; then
  rm -rf "$DEPS/include/cglm"
  cp -r /usr/include/cglm "$DEPS/include/cglm"
  printf 'prefix=%s\nincludedir=${prefix}/include\n\nName: cglm\nDescription: cglm headers (Debian libcglm-dev)\nVersion: %s\nCflags: -I${includedir}\n' \
    "$DEPS" "$cglm_version" > "$DEPS/lib/pkgconfig/cglm.pc"
  echo "$cglm_version" > "$DEPS/.built-cglm"
fi

phase dependencies

# ------------------------------------------------------------------ cna
cmake -S "$ROOT" -B "$OUT" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCNA_WERROR=ON -DCNA_BUILD_GL=OFF -DCNA_WITH_DRACO=OFF -DCNA_BUILD_SHARED=ON \
  -DCNA_BUILD_TESTS=ON -DCNA_BUILD_TOOLS=ON -DCNA_BUILD_EXAMPLES=OFF -DCNA_BUILD_BENCH=OFF >/dev/null
cmake --build "$OUT"

# A program of the DLL: cna.h without CNA_STATIC (dllimport), linked with the import library.
mkdir -p "$OUT/dll-consumer"
x86_64-w64-mingw32-gcc-posix -std=c11 -Wall -Wextra -Werror -I"$ROOT/include" -I"$DEPS/include" \
  "$ROOT/tests/packaging/dll_consumer.c" -o "$OUT/dll-consumer/dll_consumer.exe" -L"$OUT" -lcna.dll
cp "$OUT/cna.dll" "$OUT/dll-consumer/"
# cna.dll exports the public functions only: no cna__ internal, no cJSON or meshoptimizer.
exports=$(x86_64-w64-mingw32-objdump -p "$OUT/cna.dll" |
  sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' | awk '/^[[:space:]]*\[ *[0-9]+\] [^ ]+$/ {print $NF}')
foreign=$(grep -v '^cna_' <<< "$exports" | grep -c . || true)
internal=$(grep -c '^cna__' <<< "$exports" || true)
public=$(grep -c '^cna_' <<< "$exports" || true)
phase "cna build"
trap - ERR

# ------------------------------------------------------------------ tests under wine64
# The wine prefix of the build folder (the toolchain file's emulator uses the same), made by a
# first run; then one wine server kept for every test (started afresh, each costs seconds).
export WINEDEBUG=-all WINEPREFIX=$OUT/wine-prefix
"$WINE64" "$OUT/cna.exe" version >/dev/null 2>&1 || true
"$WINESERVER" -p 600 >/dev/null 2>&1 || true
stop_wine() { "$WINESERVER" -k >/dev/null 2>&1 || true; }
trap stop_wine EXIT
failed=0
log=$OUT/ctest.log
ctest --test-dir "$OUT" --output-on-failure -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}" 2>&1 | tee "$log" || true
tests_line=$(grep -E '^[0-9]+% tests passed' "$log" || echo "no test ran")
if ! grep -qE '^100% tests passed' "$log"; then failed=1; fi
consumer_out=$(cd "$OUT/dll-consumer" && "$WINE64" dll_consumer.exe "$ROOT/assets/RobotExpressive/robot.glb" 2>&1) && consumer_rc=0 || consumer_rc=$?
echo "$consumer_out"
if [ "$consumer_rc" -ne 0 ]; then
  failed=1
  consumer="the DLL's consumer FAILED (exit $consumer_rc)"
else
  consumer="the DLL's consumer ran"
fi
if [ "$foreign" -ne 0 ] || [ "$internal" -ne 0 ] || [ "$public" -eq 0 ]; then
  failed=1
  consumer="$consumer; cna.dll's exports are WRONG ($public public, $internal internal, $foreign others)"
else
  consumer="$consumer; cna.dll exports $public functions, all public"
fi
phase tests
if [ "$failed" -eq 0 ]; then
  summary 0 "PASS: $tests_line; $consumer"
else
  summary 1 "FAIL: $tests_line; $consumer"
fi
