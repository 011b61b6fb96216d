#!/usr/bin/env bash
# The README's test command: installs what is missing, then builds and runs every test three
# times: optimised (build/, with the viewer and its Xvfb screenshot tests), under
# AddressSanitizer + UndefinedBehaviorSanitizer + libstdc++ assertions (build-sanitize/), and
# under ThreadSanitizer (build-tsan/: every test but the one that replaces malloc, whose
# replacement ThreadSanitizer would report against its own allocator); then once more against
# Debian's double-precision Bullet (build-double/: RAYCAR_DOUBLE_PRECISION, every test but the
# fuzzers, whose parsers do not depend on the precision).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAYCAR_BUILD_VIEWER=ON -DRAYCAR_BUILD_DEMOS=ON -DRAYCAR_BUILD_TESTS=ON
cmake --build build -j "$jobs"
ctest --no-tests=error --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DRAYCAR_SANITIZE=ON -DRAYCAR_BUILD_DEMOS=ON -DRAYCAR_BUILD_TESTS=ON
cmake --build build-sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --no-tests=error --test-dir build-sanitize --output-on-failure -j "$jobs"

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAYCAR_SANITIZE_THREAD=ON -DRAYCAR_BUILD_DEMOS=ON -DRAYCAR_BUILD_TESTS=ON
cmake --build build-tsan -j "$jobs"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --no-tests=error --test-dir build-tsan --output-on-failure -j "$jobs"

cmake -S . -B build-double -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAYCAR_DOUBLE_PRECISION=ON -DRAYCAR_BUILD_DEMOS=ON -DRAYCAR_BUILD_TESTS=ON
cmake --build build-double -j "$jobs"
ctest --no-tests=error --test-dir build-double --output-on-failure -j "$jobs"
