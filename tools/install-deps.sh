#!/usr/bin/env bash
# Installs the Debian packages raycar needs to build and test, skipping what is already installed.
# Run as root on Debian 12 (bookworm).
set -euo pipefail
packages=(cmake g++ make parallel libbullet-dev libtinyobjloader-dev doctest-dev libtomlplusplus-dev
          libbenchmark-dev clang libclang-rt-14-dev
          pkg-config libglfw3-dev libgl-dev libimgui-dev libstb-dev xvfb xauth)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "raycar: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
