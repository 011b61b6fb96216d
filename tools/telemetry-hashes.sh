#!/usr/bin/env bash
# Prints the sha256 of every bundled scene's telemetry.csv (vehicle 0, every recorded step) and
# summary.json (every vehicle's distance, top speed and final pose), run by the given raycar-sim
# (default build/demos/sim/raycar-sim); then the same for the crowd (200 cars, 1440 steps) and
# haul scenes run through a two-thread VehicleGroup. A refactoring that must not move the
# physics keeps every line:
#   bash tools/telemetry-hashes.sh > before.txt; ...; bash tools/telemetry-hashes.sh | diff before.txt -
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/demos/sim/raycar-sim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # name, label, raycar-sim arguments
  local name=$1 label=$2
  shift 2
  "$sim" "data/scenes/$name.toml" --out "$out/$label" "$@" > /dev/null
  echo "$(sha256sum < "$out/$label/telemetry.csv" | cut -d' ' -f1)  $label telemetry"
  echo "$(sha256sum < "$out/$label/summary.json" | cut -d' ' -f1)  $label summary"
}
for scene in data/scenes/*.toml; do
  name=$(basename "$scene" .toml)
  run "$name" "$name"
done
run crowd crowd-group2 --threads 2
run haul haul-group2 --threads 2
