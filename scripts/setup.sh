#!/usr/bin/env bash
# Installs the Debian 12 packages cna needs, when any is missing.
# Usage: scripts/setup.sh        (run as root, or with sudo available)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev locales
  libcglm-dev libcjson-dev libcmocka-dev libmeshoptimizer-dev libdraco-dev
  libepoxy-dev libegl-dev libegl-mesa0 libgl1-mesa-dri libgbm1 libpng-dev libjpeg62-turbo-dev libgif-dev libglfw3-dev
  xvfb xauth
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
