#!/usr/bin/env bash
# Checks the WebGL2 demo (web/demo.html) in headless Chromium: serves build-web/ on
# 127.0.0.1, takes a screenshot of demo.html?still=0.6 (Robot_Walking at 0.6 s, one frame,
# no controls), and requires the robot drawn: enough of its orange and of its grey joints,
# the background elsewhere (tests/web/png-stats.mjs counts them).
# Usage: tests/web/demo-check.sh [--update-image]   (after scripts/build-web.sh)
#   --update-image  also copies the screenshot to docs/images/web-demo.png
# Installs Debian's chromium when it is missing (root or sudo). WebGL runs on
# SwiftShader, Chromium's CPU renderer: no GPU or display is needed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WEB=$ROOT/build-web
UPDATE=0
for arg in "$@"; do
  case $arg in
    --update-image) UPDATE=1 ;;
    *) echo "usage: tests/web/demo-check.sh [--update-image]" >&2; exit 2 ;;
  esac
done
[ -f "$WEB/demo.html" ] || { echo "demo-check: no $WEB/demo.html: run scripts/build-web.sh first" >&2; exit 1; }
if ! command -v chromium >/dev/null; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "demo-check: installing chromium"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends chromium
fi

tmp=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
node "$ROOT/tests/web/serve.mjs" "$WEB" "$tmp/port" &
server=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { echo "demo-check: the server did not start" >&2; exit 1; }
port=$(cat "$tmp/port")

# --virtual-time-budget: the page's loading (module, wasm, model) runs to its end before
# the screenshot is taken.
timeout 180 chromium --headless --no-sandbox --disable-dev-shm-usage --user-data-dir="$tmp/profile" \
  --enable-unsafe-swiftshader --use-angle=swiftshader --hide-scrollbars \
  --window-size=640,480 --virtual-time-budget=15000 --screenshot="$tmp/shot.png" \
  "http://127.0.0.1:$port/demo.html?still=0.6" >"$tmp/chromium.log" 2>&1 || {
  echo "demo-check: chromium failed:" >&2
  tail -20 "$tmp/chromium.log" >&2
  exit 1
}
stats=$(node "$ROOT/tests/web/png-stats.mjs" "$tmp/shot.png")
echo "demo-check: $stats"
node -e '
const s = JSON.parse(process.argv[1]), total = s.width * s.height, fail = [];
if (s.width !== 640 || s.height !== 480) fail.push(`size ${s.width}x${s.height}, not 640x480`);
if (s.backgroundColour.join() !== "32,36,44") fail.push(`background ${s.backgroundColour} is not the clear colour 32,36,44: the demo did not draw`);
if (!(s.robot >= 3000 && s.robot <= 60000)) fail.push(`${s.robot} robot-orange pixels, expected 3000..60000`);
if (!(s.grey >= 1000 && s.grey <= 30000)) fail.push(`${s.grey} light grey pixels, expected 1000..30000`);
if (!(s.background >= total * 0.6 && s.background <= total * 0.97)) fail.push(`${s.background} background pixels of ${total}, expected 60%..97%`);
if (fail.length) { console.error("demo-check: " + fail.join("; ")); process.exit(1); }
' "$stats"
if [ "$UPDATE" -eq 1 ]; then
  cp "$tmp/shot.png" "$ROOT/docs/images/web-demo.png"
  echo "demo-check: wrote docs/images/web-demo.png"
fi
echo "demo-check: passed"
