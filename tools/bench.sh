#!/usr/bin/env bash
# The benchmark command: install what is missing, configure, build db_bench
# (-j2), then run the read-miss benchmark on an embedded database with
# default options:
#   fillrandom, waitforcompaction, readrandom, readmissing, stats
# with --statistics, and end with the observed filter false-positive rate
# beside the configured fp chance; then tools/plot.sh draws its plots under
# build/plots/ (filter FP vs target, throughput and P99 over time, and the
# scale.sh and compare.sh tables if those scripts ran) and prints their
# paths.
#   BUILD_DIR   build directory (default: build)
#   CMAKE_ARGS  extra configure arguments
#   NUM         keys to write (default 1000000)
#   READS       reads per read benchmark (default 300000)
#   DB          database directory (default: a fresh /tmp/siftdb-bench-<pid>,
#               removed afterwards unless KEEP_DB=1)
# Extra arguments go to db_bench, e.g. tools/bench.sh --bloom_bits=10
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh --plots
build=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=OFF ${CMAKE_ARGS:-}
cmake --build "$build" -j2 --target db_bench sst_dump

db=${DB:-/tmp/siftdb-bench-$$}
out=$(mktemp)
cleanup() {
  rm -f "$out"
  if [ -z "${DB:-}" ] && [ "${KEEP_DB:-0}" != 1 ]; then rm -rf "$db"; fi
}
trap cleanup EXIT

"$build/bin/db_bench" --db="$db" --num="${NUM:-1000000}" \
  --reads="${READS:-300000}" --statistics=1 \
  --benchmarks=fillrandom,waitforcompaction,readrandom,readmissing,stats \
  "$@" | tee "$out"

echo
echo "Observed filter false-positive rate (configured fp chance in parentheses):"
grep '^sift\.bloom\.filter\.observed\.fp\.rate' "$out"

echo
BUILD_DIR="$build" tools/plot.sh all "$build/plots"
