#!/usr/bin/env bash
# The test command: install what is missing, configure, build with -j2, run
# every test. Exits non-zero on any failure.
#   BUILD_DIR   build directory (default: build)
#   CMAKE_ARGS  extra configure arguments, e.g. "-DSIFT_WERROR=ON"
#   CTEST_ARGS  extra ctest arguments, e.g. "-L concurrency"
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
build=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=ON \
  ${CMAKE_ARGS:-}
cmake --build "$build" -j2
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j2 ${CTEST_ARGS:-}
