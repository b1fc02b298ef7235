#!/usr/bin/env bash
# How the cost of a missing Get grows with the data: for each size in SIZES
# it fills a fresh DB (the compare.sh shape: 16-byte keys, 100-byte values,
# 4 MiB memtable and files, 8 MiB block cache, Snappy, fp chance 0.01),
# waits for compaction, reopens it and runs readmissing alone, then prints
# per size: micros per missing Get, filters probed per Get (the candidate
# files), filter false positives per Get beside what the fp chance predicts
# (probes x fp chance), and data blocks read from files per Get (false
# positives the 8 MiB block cache did not already hold).
#
#   tools/scale.sh                       # 1M and 10M keys, 300k reads
#   tools/scale.sh --30m                 # and 30M keys (~2 GB on disk, the
#                                        # fill alone takes minutes)
#   SIZES="1000000 4000000" READS=100000 tools/scale.sh
# The table is also saved as ${PLOT_DATA:-build/plots}/scale.txt, where
# tools/plot.sh (and tools/bench.sh) draw it from.
set -euo pipefail
cd "$(dirname "$0")/.."
large=
case "${1:-}" in
  "") ;;
  --30m) large=30000000 ;;
  *) echo "usage: tools/scale.sh [--30m]" >&2; exit 2 ;;
esac

tools/setup.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target db_bench

SIZES=${SIZES:-"1000000 10000000"}
[ -z "$large" ] || SIZES="$SIZES $large"
READS=${READS:-300000}
FP=${FP:-0.01}
out=$(mktemp -d /tmp/siftdb-scale.XXXXXX)
plots=${PLOT_DATA:-$build/plots}
mkdir -p "$plots"
exec > >(tee "$plots/scale.txt")
trap 'rm -rf "$out"' EXIT
source tools/bench_shape.sh
common=("${bench_shape[@]}" --threads=1 --seed=1 --bloom_filter_fp_chance="$FP")

printf "%-10s %6s %6s %9s %12s %10s %10s %12s\n" keys files levels \
  "us/miss" "filters/Get" "FP/Get" predicted "blocks/Get"
for n in $SIZES; do
  db="$out/db-$n"
  "$build/bin/db_bench" --benchmarks=fillrandom,waitforcompaction \
    --num="$n" --db="$db" "${common[@]}" >"$out/fill-$n.txt" 2>/dev/null
  # Counters start at zero in the new process: they describe the misses.
  "$build/bin/db_bench" --benchmarks=readmissing,levelstats --use_existing_db \
    --statistics --num="$n" --reads="$READS" --db="$db" "${common[@]}" \
    >"$out/read-$n.txt" 2>/dev/null
  awk -v n="$n" -v reads="$READS" -v fp="$FP" '
    $1 == "readmissing" { us = $3 }
    $1 == "sift.bloom.filter.checked" { checked = $4 }
    $1 == "sift.bloom.filter.full.positive" { pos = $4 }
    $1 == "sift.bloom.filter.full.true.positive" { tp = $4 }
    $1 == "sift.data.blocks.read" { blocks = $4 }
    # levelstats: "  <level>  <files>  <MB> ..." rows under a header.
    /^ *[0-9]+ +[0-9]+ +[0-9.]+/ { if ($2 > 0) { files += $2; levels++ } }
    END {
      printf "%-10d %6d %6d %9.3f %12.3f %10.4f %10.4f %12.4f\n", n, files,
        levels, us, checked / reads, (pos - tp) / reads, checked / reads * fp,
        blocks / reads
    }' "$out/read-$n.txt"
  rm -rf "$db"
done
