#!/usr/bin/env bash
# Runs the crash loops of tests/crash_test.cc for as many cycles as asked:
# the SIGKILL loop on a forked writer (every acknowledged write must
# survive) and the simulated power-loss loop (every synced write must
# survive, with no holes). CI runs the bounded default through ctest.
#
#   tools/crash_test.sh [CYCLES] [SEED]
#     CYCLES  cycles per loop (default 100)
#     SEED    workload seed (default: the time); printed, replays with
#             the same value
#   BUILD_DIR  build directory (default: build); bin/crash_test is built
#              there with -j2 if missing
#   MODE       process | machine | all (default: all)
#
# Exits non-zero on the first lost write; the output names the cycle.
set -euo pipefail
cd "$(dirname "$0")/.."

cycles=${1:-100}
seed=${2:-$(date +%s)}
build=${BUILD_DIR:-build}
bin="$build/bin/crash_test"
case "${MODE:-all}" in
  process) filter='CrashTest.*' ;;
  machine) filter='Envs/MachineCrashTest.*' ;;
  all) filter='*' ;;
  *) echo "MODE must be process, machine or all" >&2; exit 2 ;;
esac
if ! [[ "$cycles" =~ ^[0-9]+$ && "$cycles" -gt 0 ]]; then
  echo "CYCLES must be a positive number, got '$cycles'" >&2
  exit 2
fi
if [[ ! -x "$bin" ]]; then
  cmake --build "$build" --target crash_test -j2
fi
echo "crash_test: $cycles cycles per loop, seed $seed, mode ${MODE:-all}"
SIFT_CRASH_CYCLES="$cycles" SIFT_TEST_SEED="$seed" \
  exec "$bin" --gtest_filter="$filter"
