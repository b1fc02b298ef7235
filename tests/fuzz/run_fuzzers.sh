#!/usr/bin/env bash
# Runs the libFuzzer targets of a SIFT_FUZZ build, each for a bounded time,
# starting from its seed corpus in tests/fuzz/corpus (never modified: new
# inputs go to <build>/fuzz-work/<target>/corpus). Prints the executions
# and coverage of each target; exits non-zero if any target found a crash,
# leak, UB or timeout (its input is saved in <build>/fuzz-work/<target>/).
#
#   tests/fuzz/run_fuzzers.sh <build dir> [seconds per target] [target...]
#   target: a name in <build>/bin or the path of a fuzz binary (default:
#   every <build>/bin/*_fuzz)
#   JOBS=2  run two targets at a time (default 1)
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: $0 <build dir> [seconds] [target...]}
secs=${2:-25}
shift $(( $# < 2 ? $# : 2 ))
jobs=${JOBS:-1}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for bin in "$build"/bin/*_fuzz; do [ -x "$bin" ] && targets+=("$bin"); done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "run_fuzzers: no fuzz targets in $build/bin (configure with -DSIFT_FUZZ=ON)" >&2
  exit 2
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# $1: a target name in <build>/bin, or the path of a fuzz binary elsewhere
# (e.g. one built against an installed siftdb). Its seeds are those of
# corpus/<name without _fuzz>.
run_one() {
  local bin=$1 name
  [[ $bin == */* ]] || bin=$build/bin/$bin
  name=$(basename "$bin")
  local corpus=${name%_fuzz}
  [ "$corpus" = sst_reader ] && corpus=table
  # Binaries outside bin/ get their directory in the work name: unique.
  local work="$build/fuzz-work/$name"
  if [ "$(dirname "$bin")" != "$build/bin" ]; then
    work="$build/fuzz-work/$(basename "$(dirname "$bin")")-$name"
    name="$bin"
  fi
  mkdir -p "$work/corpus"
  local rc=0
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "$src/corpus/$corpus" >"$work/log" 2>&1 || rc=$?
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 || true)
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
