#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, and runs the headless demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target raycar-demo
./build/demos/raycar-demo
