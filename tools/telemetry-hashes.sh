#!/usr/bin/env bash
# Prints the sha256 of every bundled scene's telemetry.csv, run by the given raycar-sim (default
# build/demos/sim/raycar-sim). A refactoring that must not move the physics keeps every line:
#   bash tools/telemetry-hashes.sh > before.txt; ...; bash tools/telemetry-hashes.sh | diff before.txt -
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/demos/sim/raycar-sim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scene in data/scenes/*.toml; do
  name=$(basename "$scene" .toml)
  "$sim" "$scene" --out "$out/$name" > /dev/null
  echo "$(sha256sum < "$out/$name/telemetry.csv" | cut -d' ' -f1)  $name"
done
