#!/usr/bin/env bash
# Runs the metamorphic stress test of tests/stress_test.cc for as long as
# asked: fresh seeds one after another, each sequence run under every
# configuration and checked against the model. CI runs a bounded version
# (fixed seeds plus one fresh seed) through ctest.
#
#   tools/stress.sh [MINUTES] [SEED]
#     MINUTES  how long to run (default 10)
#     SEED     seeds the stream of sequence seeds (default: random); a
#              failure prints its own sequence seed, which replays alone:
#              SIFT_TEST_SEED=<seed> build/bin/stress_test --gtest_filter='*FreshSeed'
#   BUILD_DIR  build directory (default: build); bin/stress_test is built
#              there with -j2 if missing
#   SIFT_STRESS_OPS  operations per sequence (default 3000)
#
# Exits non-zero on the first disagreement, after printing the seed and a
# minimized operation log.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
build=${BUILD_DIR:-build}
bin="$build/bin/stress_test"
if ! [[ "$minutes" =~ ^[0-9]+$ && "$minutes" -gt 0 ]]; then
  echo "MINUTES must be a positive number, got '$minutes'" >&2
  exit 2
fi
if [[ ! -x "$bin" ]]; then
  cmake --build "$build" --target stress_test -j2
fi
if [[ $# -ge 2 ]]; then
  export SIFT_TEST_SEED="$2"
fi
echo "stress: $minutes minutes, seed stream ${SIFT_TEST_SEED:-random}"
SIFT_STRESS_SECONDS=$((minutes * 60)) \
  exec "$bin" --gtest_filter='StressTest.ForAsLongAsAsked'
