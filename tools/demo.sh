#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, and runs two bundled scenes with
# raycar-sim (parking with its bicycle ghost, and the drift), writing their reports into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target raycar-sim
for scene in parking drift; do
  ./build/demos/sim/raycar-sim "data/scenes/$scene.toml" --out "out/$scene"
  echo "open out/$scene/report.html for the plots"
  echo
done
