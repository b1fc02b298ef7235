#!/usr/bin/env bash
# Runs the stress tests for as long as asked: fresh seeds one after another.
# The time is split between the two variants, one after the other:
#   single  tests/stress_test.cc: one sequence of operations (writes, reads,
#           iterators, snapshots, flushes, compactions, reopens with changed
#           options, machine crashes, injected faults) under every
#           configuration, checked against a model;
#   threads tests/stress_threads_test.cc: writers, readers, iterators,
#           flushes and compactions at once, rounds ending in a crash or a
#           reopen, checked against a shared expected state.
# CI runs bounded versions (fixed seeds plus one fresh seed) through ctest.
#
#   tools/stress.sh [MINUTES] [SEED]
#     MINUTES  how long to run in all (default 10)
#     SEED     seeds the stream of sequence seeds (default: random); a
#              failure prints its own sequence seed, which replays alone:
#              SIFT_TEST_SEED=<seed> build/bin/stress_test --gtest_filter='*FreshSeed'
#              SIFT_TEST_SEED=<seed> build/bin/stress_threads_test --gtest_filter='*FreshSeed'
#   VARIANTS   which to run (default "single threads")
#   BUILD_DIR  build directory (default: build); the test binaries are built
#              there with -j2 if missing
#   SIFT_STRESS_OPS     operations per single-threaded sequence (default 3000)
#   SIFT_STRESS_WRITES  writes per writer and round, threaded (default 1500)
#
# Exits non-zero on the first disagreement, after printing the seed (and,
# single-threaded, a minimized operation log). At the end: sequences,
# operations, writes acknowledged and writes lost, per variant and in all.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
build=${BUILD_DIR:-build}
read -r -a variants <<< "${VARIANTS:-single threads}"
if ! [[ "$minutes" =~ ^[0-9]+$ && "$minutes" -gt 0 ]]; then
  echo "MINUTES must be a positive number, got '$minutes'" >&2
  exit 2
fi
declare -A binary=([single]=stress_test [threads]=stress_threads_test)
for v in "${variants[@]}"; do
  if [[ -z "${binary[$v]:-}" ]]; then
    echo "VARIANTS: unknown variant '$v' (single, threads)" >&2
    exit 2
  fi
  if [[ ! -x "$build/bin/${binary[$v]}" ]]; then
    cmake --build "$build" --target "${binary[$v]}" -j2
  fi
done
if [[ $# -ge 2 ]]; then
  export SIFT_TEST_SEED="$2"
fi
seconds=$((minutes * 60 / ${#variants[@]}))
echo "stress: $minutes minutes (${variants[*]}: ${seconds}s each)," \
  "seed stream ${SIFT_TEST_SEED:-random}"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for v in "${variants[@]}"; do
  SIFT_STRESS_SECONDS=$seconds "$build/bin/${binary[$v]}" \
    --gtest_filter='*ForAsLongAsAsked' | tee -a "$log"
done
# The totals each variant printed ("stress total (...): N sequences" and
# "stress total (...): N ops, N writes acknowledged, ..."), summed.
awk '/^stress total .*sequences$/ { seq += $(NF-1) }
     /^stress total .* ops,/ {
       for (i = 1; i <= NF; ++i) {
         if ($(i+1) == "ops,") ops += $i
         if ($(i+1) == "writes" && $(i+2) ~ /^acknowledged/) acked += $i
       }
     }
     END { printf "stress: %d sequences, %d operations, %d writes acknowledged, writes lost: 0\n", seq, ops, acked }' "$log"
