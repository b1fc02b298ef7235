#!/usr/bin/env bash
# The filter table of README.md: what each filter layout and allocation
# costs and buys on the tools/scale.sh shape (16-byte keys, 100-byte values,
# 4 MiB memtable and files, 8 MiB block cache, Snappy). For each
# configuration it fills a fresh DB with NUM keys, waits for compaction,
# reopens it and runs readmissing alone with statistics, then prints:
#   bits/key    8 * sift.filter-bytes / sift.filter-keys (all live filters)
#   filter MB   sift.filter-bytes
#   filters/Get filters probed per missing Get
#   FP/Get      false file reads per missing Get (filter said maybe, the
#               file did not hold the key)
#   us/miss     readmissing micros per Get, the best of ROUNDS runs in the
#               one process (a busy machine only ever adds time)
#   fill us/key wall time of fillrandom + waitforcompaction per key: the
#               build cost, filters included
# Configurations (CONFIGS, in this order by default):
#   uniform        blocked Bloom at fp chance 0.01 everywhere
#   budget-bloom   --filter_bits_per_key_budget=$BUDGET_BLOOM, blocked Bloom
#   budget-ribbon  --filter_bits_per_key_budget=$BUDGET_RIBBON, Ribbon below
#                  the flush level
#   eqfp-ribbon    --filter_bits_per_key_budget=$EQFP_BUDGET, Ribbon: the
#                  budget whose FP/Get matches uniform's
#   rocksdb        RocksDB's db_bench (Debian rocksdb-tools), --bloom_bits=10
#                  (no filter byte or FP counts: "-")
# BUDGET defaults to uniform's measured bits/key; BUDGET_BLOOM and
# BUDGET_RIBBON (default BUDGET) set each budget row's own, since the
# allocation does not spend a budget exactly: the "x mem" column (filter
# bytes over uniform's) shows how to adjust them for equal memory. EQFP_BUDGET
# defaults to
# BUDGET less 1.07 bits per halving of FP/Get between uniform and
# budget-ribbon (Ribbon's cost per halving, util/ribbon.h); the memory ratio
# column then shows how close it landed.
#
#   tools/filters.sh                              # 10M keys, 300k reads
#   NUM=3000000 READS=200000 tools/filters.sh
#   CONFIGS="uniform budget-ribbon" BUDGET=9.95 tools/filters.sh
# The table is also saved as ${PLOT_DATA:-build/plots}/filters.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
if [ -z "${NO_BUILD:-}" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=OFF >/dev/null
  cmake --build "$build" -j2 --target db_bench
fi

NUM=${NUM:-10000000}
READS=${READS:-300000}
ROUNDS=${ROUNDS:-3}
CONFIGS=${CONFIGS:-"uniform budget-bloom budget-ribbon eqfp-ribbon rocksdb"}
BUDGET=${BUDGET:-}
EQFP_BUDGET=${EQFP_BUDGET:-}
out=$(mktemp -d /tmp/siftdb-filters.XXXXXX)
plots=${PLOT_DATA:-$build/plots}
mkdir -p "$plots"
exec > >(tee "$plots/filters.txt")
trap 'rm -rf "$out"' EXIT
source tools/bench_shape.sh
common=("${bench_shape[@]}" --threads=1 --seed=1 --num="$NUM")

uniform_bpk='' uniform_bytes='' uniform_fp='' ribbon_fp=''

# Runs one configuration: $1 = name, $2 = the engine's db_bench, rest = its
# filter flags. Prints the row and sets row_bpk, row_bytes, row_fp.
run() {
  local name=$1 bench=$2
  shift 2
  local db="$out/db-$name" t0 t1
  t0=$(date +%s.%N)
  "$bench" --benchmarks=fillrandom,waitforcompaction --db="$db" \
    "${common[@]}" "$@" >"$out/fill-$name.txt" 2>/dev/null
  t1=$(date +%s.%N)
  local extra=(--statistics)
  [ "$name" = rocksdb ] && extra=()
  # Counters start at zero in the new process: they describe the misses.
  local reads
  reads=$(printf 'readmissing,%.0s' $(seq "$ROUNDS"))
  "$bench" --benchmarks="${reads}stats" --use_existing_db=1 \
    --reads="$READS" --db="$db" "${common[@]}" "${extra[@]}" "$@" \
    >"$out/read-$name.txt" 2>/dev/null
  read -r row_bpk row_bytes row_fp < <(awk -v reads="$((READS * ROUNDS))" '
    $1 == "total" && NF >= 9 { bpk = $8; bytes = $9 }
    $1 == "sift.bloom.filter.checked" { checked = $4 }
    $1 == "sift.bloom.filter.full.positive" { pos = $4 }
    $1 == "sift.bloom.filter.full.true.positive" { tp = $4 }
    END {
      if (bytes == "") print "- - -"
      else printf "%s %s %.5f\n", bpk, bytes, (pos - tp) / reads
    }' "$out/read-$name.txt")
  awk -v name="$name" -v reads="$((READS * ROUNDS))" -v num="$NUM" \
    -v t0="$t0" -v t1="$t1" -v bpk="$row_bpk" -v bytes="$row_bytes" \
    -v fp="$row_fp" -v ubytes="$uniform_bytes" -v ufp="$uniform_fp" '
    $1 == "readmissing" && (us == "" || $3 < us) { us = $3 }
    $1 == "sift.bloom.filter.checked" { checked = $4 }
    END {
      mem = bytes == "-" || ubytes == "" ? "-" : sprintf("%.3f", bytes / ubytes)
      fpr = fp == "-" || ufp == "" || ufp == 0 ? "-" : sprintf("%.3f", fp / ufp)
      printf "%-14s %8s %9s %6s %11s %9s %6s %8.3f %11.3f\n", name, bpk,
        bytes == "-" ? "-" : sprintf("%.2f", bytes / 1048576), mem,
        checked == "" ? "-" : sprintf("%.3f", checked / reads), fp, fpr, us,
        (t1 - t0) * 1e6 / num
    }' "$out/read-$name.txt"
  rm -rf "$db"
}

printf "%-14s %8s %9s %6s %11s %9s %6s %8s %11s\n" config bits/key \
  "filter MB" "x mem" filters/Get FP/Get "x FP" us/miss "fill us/key"
for config in $CONFIGS; do
  case "$config" in
    uniform)
      run uniform "$build/bin/db_bench" --bloom_filter_fp_chance=0.01
      uniform_bpk=$row_bpk uniform_bytes=$row_bytes uniform_fp=$row_fp ;;
    budget-bloom)
      run budget-bloom "$build/bin/db_bench" --filter_layout=blocked \
        --filter_bits_per_key_budget="${BUDGET_BLOOM:-${BUDGET:-$uniform_bpk}}" ;;
    budget-ribbon)
      run budget-ribbon "$build/bin/db_bench" --filter_layout=ribbon \
        --bloom_before_level=1 \
        --filter_bits_per_key_budget="${BUDGET_RIBBON:-${BUDGET:-$uniform_bpk}}"
      ribbon_fp=$row_fp ;;
    eqfp-ribbon)
      if [ -z "$EQFP_BUDGET" ]; then
        EQFP_BUDGET=$(awk -v b="${BUDGET_RIBBON:-${BUDGET:-$uniform_bpk}}" -v u="$uniform_fp" \
          -v r="$ribbon_fp" 'BEGIN { printf "%.3f", b - 1.07 * log(u / r) / log(2) }')
      fi
      echo "eqfp-ribbon: --filter_bits_per_key_budget=$EQFP_BUDGET" >&2
      run eqfp-ribbon "$build/bin/db_bench" --filter_layout=ribbon \
        --bloom_before_level=1 --filter_bits_per_key_budget="$EQFP_BUDGET" ;;
    rocksdb)
      rocksdb=$(command -v /usr/bin/db_bench || true)
      if [ -z "$rocksdb" ]; then
        echo "filters.sh: no RocksDB db_bench (tools/setup.sh --peers)" >&2
        continue
      fi
      run rocksdb "$rocksdb" --bloom_bits=10 ;;
    *) echo "filters.sh: unknown config '$config'" >&2; exit 2 ;;
  esac
done
