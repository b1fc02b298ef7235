#!/usr/bin/env bash
# Runs the libFuzzer targets of a SIFT_FUZZ build, each for a bounded time,
# starting from its seed corpus in tests/fuzz/corpus (never modified: new
# inputs go to <build>/fuzz-work/<target>/corpus). Prints the executions
# and coverage of each target; exits non-zero if any target found a crash,
# leak, UB or timeout (its input is saved in <build>/fuzz-work/<target>/).
#
#   tests/fuzz/run_fuzzers.sh <build dir> [seconds per target] [target...]
#   JOBS=2  run two targets at a time (default 1)
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: $0 <build dir> [seconds] [target...]}
secs=${2:-25}
shift $(( $# < 2 ? $# : 2 ))
jobs=${JOBS:-1}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for bin in "$build"/bin/*_fuzz; do targets+=("$(basename "$bin")"); done
fi
[ -x "$build/bin/${targets[0]}" ] || {
  echo "run_fuzzers: no fuzz targets in $build/bin (configure with -DSIFT_FUZZ=ON)" >&2
  exit 2
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

run_one() {
  local name=$1 corpus=${1%_fuzz}
  [ "$corpus" = sst_reader ] && corpus=table
  local work="$build/fuzz-work/$name"
  mkdir -p "$work/corpus"
  local rc=0
  "$build/bin/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "$src/corpus/$corpus" >"$work/log" 2>&1 || rc=$?
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "$name: ok, ${execs:-?} executions in ${secs}s, ${cov:-cov: ?}"
  else
    echo "$name: FAILED (exit $rc); see $work/log:"
    grep -m5 -E 'ERROR|FUZZ_CHECK|runtime error|Test unit written' "$work/log" || tail -5 "$work/log"
  fi
  return $rc
}

failed=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit $failed
