#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds programs against it the ways README.md
# shows, as written there (the blocks are read from README.md when the test runs):
#   - the ```sh block with the pkg-config commands, line by line (the modules cna, cna_gltf,
#     cna_gl and their _static twins), with PKG_CONFIG_PATH=<prefix>/<libdir>/pkgconfig;
#   - the ```cmake block with find_package(cna), as the CMakeLists.txt of a consumer project
#     configured with CMAKE_PREFIX_PATH=<prefix>;
# the programs being tests/packaging/app.c (loads a .glb: the importer), view.c (the importer
# and the renderer) and game.c (loads a .cnb, made by the installed `cna convert`: the runtime
# alone). Each program is run with no LD_LIBRARY_PATH and must print exactly what the robot
# gives; a program of the shared libraries must load exactly the libcna*.so files it needs
# from the prefix (game: libcna.so alone), a static one none.
# Also: the installed `cna` tool runs from the prefix, libcna_gl.so exports cna_gl_ names only,
# and libcna.so needs none of the importer's libraries.
# Fails (never skips) when a tool it needs is missing: scripts/setup.sh installs them all.
#
# Usage: test_consumers.sh SOURCE_DIR BUILD_DIR LIBDIR VERSION SOVERSION C_COMPILER GENERATOR
#                          MAKE_PROGRAM SHARED(ON|OFF) [EXTRA_FLAGS]
# SHARED: whether libcna.so was built (OFF: cna, cna_gl and cna::cna, cna::cna_gl are static).
# The build must have cna_gl (CNA_BUILD_GL) and the tool: README.md's commands build both.
# EXTRA_FLAGS: compiler and linker flags every consumer needs (the sanitizers of a
# CNA_SANITIZE build, whose libraries are instrumented); given through a `cc` that adds them.
set -euo pipefail

if [ $# -lt 9 ]; then
  echo "usage: $0 SOURCE_DIR BUILD_DIR LIBDIR VERSION SOVERSION C_COMPILER GENERATOR MAKE_PROGRAM SHARED [EXTRA_FLAGS]" >&2
  exit 2
fi
SRC=$1 BUILD=$2 LIBDIR=$3 VERSION=$4 SOVERSION=$5 CC_REAL=$6 GENERATOR=$7 MAKE_PROGRAM=$8
SHARED=$9 EXTRA_FLAGS=${10:-}
MODEL=$SRC/tests/data/corpus/valid/RobotExpressive/robot.glb
EXPECT_APP="cna $VERSION: 58 bones, 14 animations, 14 skins"
EXPECT_VIEW="58 bones, 14 meshes, pixel 51 102 153 255"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
die() {
  echo "FAIL: $*"
  exit 1
}

for tool in pkg-config cmake readelf nm "$CC_REAL" "$MAKE_PROGRAM"; do
  command -v "$tool" > /dev/null 2>&1 || die "'$tool' is not installed (scripts/setup.sh installs it)"
done
[ -f "$MODEL" ] || die "$MODEL is missing"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cna-consumers.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix
unset LD_LIBRARY_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR CMAKE_PREFIX_PATH

# ---------------------------------------------------------------- install
cmake --install "$BUILD" --prefix "$PREFIX" > "$TMP/install.log" 2>&1 ||
  { cat "$TMP/install.log"; die "cmake --install $BUILD --prefix $PREFIX failed"; }
echo "installed into $PREFIX"

# A program's libraries: "static" (it needs no libcna*), or every libcna*.so file it loads,
# its own and theirs, as "libcna.so.X libcna_gltf.so.X ...", each checked to come from the
# prefix.
loaded_cna() {
  local exe=$1 out libs=""
  out=$(readelf -d "$exe") || { echo "readelf failed"; return; }
  if ! grep -q 'NEEDED.*\[libcna' <<< "$out"; then
    echo static
    return
  fi
  # The dynamic loader's own listing: what it loads and where each one was found.
  local trace lib where
  trace=$(LD_TRACE_LOADED_OBJECTS=1 "$exe" 2>&1) || true
  while read -r lib where; do
    if [ "$(realpath -m "$where")" != "$(realpath -m "$PREFIX/$LIBDIR/$lib")" ]; then
      libs="$libs $lib(from:${where:-not found})"
    else
      libs="$libs $lib"
    fi
  done < <(awk '$1 ~ /^libcna/ { print $1, $3 }' <<< "$trace")
  echo "${libs# }"
}

# check NAME EXE KIND(app|view|game) LINK(shared|static)
check_program() {
  local name=$1 exe=$2 kind=$3 link=$4 out expect want_libs
  if [ "$kind" = app ]; then
    expect=$EXPECT_APP
    out=$("$exe" "$MODEL" 2>&1) || { fail "$name: exit status $?: $out"; return; }
    want_libs="libcna_gltf.so.$SOVERSION libcna.so.$SOVERSION"
  elif [ "$kind" = game ]; then
    expect=$EXPECT_APP
    out=$("$exe" "$TMP/robot.cnb" 2>&1) || { fail "$name: exit status $?: $out"; return; }
    want_libs="libcna.so.$SOVERSION"
  else
    expect=$EXPECT_VIEW
    rm -f "$TMP/view.png"
    out=$("$exe" "$MODEL" "$TMP/view.png" 2>&1) || { fail "$name: exit status $?: $out"; return; }
    if [ "$(head -c 8 "$TMP/view.png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
      fail "$name: $TMP/view.png is not a PNG file"
    fi
    want_libs="libcna_gl.so.$SOVERSION libcna_gltf.so.$SOVERSION libcna.so.$SOVERSION"
  fi
  [ "$out" = "$expect" ] || fail "$name printed \"$out\", expected \"$expect\""
  if [ "$link" = static ]; then
    want_libs=static
  fi
  local got
  got=$(loaded_cna "$exe")
  # The libraries' NEEDED entries in any order.
  if [ "$(tr ' ' '\n' <<< "$got" | sort | tr '\n' ' ')" != "$(tr ' ' '\n' <<< "$want_libs" | sort | tr '\n' ' ')" ]; then
    fail "$name loads \"$got\", expected \"$want_libs\""
  fi
  echo "ok: $name: $out [$got]"
}

# The block ```LANG, of README.md that contains MARKER, as written.
readme_block() {
  local lang=$1 marker=$2
  awk -v lang="$lang" -v marker="$marker" '
    !inside && $0 == "```" lang { inside = 1; block = ""; next }
    inside && $0 == "```" { inside = 0; if (index(block, marker)) { printf "%s", block; found = 1; exit } next }
    inside { block = block $0 "\n" }
    END { if (!found) exit 1 }' "$SRC/README.md"
}

# ---------------------------------------------------------------- the installed tool
[ -x "$PREFIX/bin/cna" ] || die "$PREFIX/bin/cna was not installed"
{
  out=$("$PREFIX/bin/cna" version 2>&1) || fail "$PREFIX/bin/cna version: exit status $?: $out"
  [ "$out" = "cna $VERSION" ] || fail "$PREFIX/bin/cna version printed \"$out\", expected \"cna $VERSION\""
  [ "$(loaded_cna "$PREFIX/bin/cna")" = static ] || fail "the installed cna tool loads $(loaded_cna "$PREFIX/bin/cna")"
  echo "ok: $PREFIX/bin/cna version: $out"
  "$PREFIX/bin/cna" convert "$MODEL" -o "$TMP/robot.cnb" > "$TMP/convert.log" 2>&1 ||
    { cat "$TMP/convert.log"; die "$PREFIX/bin/cna convert $MODEL -o $TMP/robot.cnb failed"; }
}

# ---------------------------------------------------------------- libcna_gl.so's exports
if [ "$SHARED" = ON ]; then
  so=$PREFIX/$LIBDIR/libcna_gl.so.$SOVERSION
  [ -f "$so" ] || die "$so was not installed"
  exports=$(nm -D --defined-only "$so" | awk '{ print $3 }')
  [ -n "$exports" ] || fail "$so exports nothing"
  others=$(grep -v '^cna_gl_' <<< "$exports" || true)
  [ -z "$others" ] || fail "$so exports names outside cna_gl_: $(tr '\n' ' ' <<< "$others")"
  echo "ok: $so exports $(wc -l <<< "$exports") cna_gl_ functions only"
  so=$PREFIX/$LIBDIR/libcna.so.$SOVERSION
  [ -f "$so" ] || die "$so was not installed"
  needs=$(readelf -d "$so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  if grep -Eq 'cjson|meshoptimizer|draco|stdc\+\+' <<< "$needs"; then
    fail "$so needs a library of the importer's: $needs"
  fi
  echo "ok: $so needs $needs"
fi

# ---------------------------------------------------------------- pkg-config, as README.md shows it
CONSUMER_CC=()
if [ -n "$EXTRA_FLAGS" ]; then
  # The sanitizer build's libraries need the same runtime in the program: `cc` adds the flags.
  mkdir -p "$TMP/bin"
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$CC_REAL" "$EXTRA_FLAGS" > "$TMP/bin/cc"
  chmod +x "$TMP/bin/cc"
  CONSUMER_CC=(-DCMAKE_C_FLAGS="$EXTRA_FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$EXTRA_FLAGS")
fi
command -v cc > /dev/null 2>&1 || [ -n "$EXTRA_FLAGS" ] || die "'cc' is not installed (scripts/setup.sh installs it)"

block=$(readme_block sh 'pkg-config --cflags --libs cna)') ||
  die "README.md: no \`\`\`sh block contains 'pkg-config --cflags --libs cna)'"
mkdir -p "$TMP/pc"
cp "$SRC/tests/packaging/app.c" "$SRC/tests/packaging/view.c" "$SRC/tests/packaging/game.c" "$TMP/pc/"
commands=0
while IFS= read -r line; do
  case "$line" in '' | '#'*) continue ;; esac
  commands=$((commands + 1))
  module=$(sed -n 's/.*pkg-config --cflags --libs \([a-z_ ]*\)).*/\1/p' <<< "$line")
  exe=$(sed -n 's/.* -o \([A-Za-z0-9_.-]*\).*/\1/p' <<< "$line")
  if [ -z "$module" ] || [ -z "$exe" ]; then
    fail "README.md: cannot tell the module and the program of: $line"
    continue
  fi
  rm -f "$TMP/pc/$exe"
  if ! (cd "$TMP/pc" && PATH="$TMP/bin:$PATH" PKG_CONFIG_PATH="$PREFIX/$LIBDIR/pkgconfig" \
        bash -euo pipefail -c "$line") > "$TMP/pc.log" 2>&1; then
    fail "README.md's command failed: $line"
    cat "$TMP/pc.log"
    continue
  fi
  kind=app
  [[ " $module " == *" cna_gl "* || " $module " == *" cna_gl_static "* ]] && kind=view
  [[ $module == cna || $module == cna_static ]] && kind=game
  link=shared
  [[ $module == *_static || $SHARED = OFF ]] && link=static
  check_program "pkg-config $module ($exe)" "$TMP/pc/$exe" "$kind" "$link"
done <<< "$block"
[ "$commands" -eq 6 ] || fail "README.md's pkg-config block has $commands commands, expected 6"

# ---------------------------------------------------------------- find_package, as README.md shows it
mkdir -p "$TMP/cm"
readme_block cmake 'find_package(cna' > "$TMP/cm/CMakeLists.txt" ||
  die "README.md: no \`\`\`cmake block contains 'find_package(cna'"
cp "$SRC/tests/packaging/app.c" "$SRC/tests/packaging/view.c" "$SRC/tests/packaging/game.c" "$TMP/cm/"
if ! cmake -S "$TMP/cm" -B "$TMP/cm/build" -G "$GENERATOR" -DCMAKE_MAKE_PROGRAM="$MAKE_PROGRAM" \
     -DCMAKE_C_COMPILER="$CC_REAL" -DCMAKE_PREFIX_PATH="$PREFIX" "${CONSUMER_CC[@]}" \
     > "$TMP/cm.log" 2>&1 ||
   ! cmake --build "$TMP/cm/build" >> "$TMP/cm.log" 2>&1; then
  cat "$TMP/cm.log"
  die "the consumer project of README.md's find_package block did not build"
fi
for target in app view game app_static view_static game_static; do
  exe=$TMP/cm/build/$target
  if [ ! -x "$exe" ]; then
    fail "README.md's find_package block builds no '$target'"
    continue
  fi
  kind=app
  [[ $target == view* ]] && kind=view
  [[ $target == game* ]] && kind=game
  link=shared
  [[ $target == *_static || $SHARED = OFF ]] && link=static
  check_program "find_package $target" "$exe" "$kind" "$link"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all consumers built and ran"
