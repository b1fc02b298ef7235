#!/usr/bin/env bash
# How siftdb's reads and fills grow with the data, alone and beside LevelDB
# and RocksDB. Every database has the compare.sh shape (16-byte keys,
# 100-byte values, 4 MiB memtable and files, 8 MiB block cache, Snappy, ~1%
# filters).
#
#   tools/scale.sh                # 1M and 10M keys, siftdb's miss table
#   tools/scale.sh --30m          # and 30M keys, with the peer table at 30M
#                                 # (~2 GB per engine on disk, ~30 minutes)
#   tools/scale.sh --100m         # and 100M keys, with the peer table at
#                                 # 100M (~12 GB of data per engine; needs
#                                 # 30 GB free and 4 GiB of RAM available,
#                                 # checked first; hours)
#   SIZES="1000000 4000000" READS=100000 tools/scale.sh
#   PEER_SIZES=10000000 ENGINES="sift rocksdb" tools/scale.sh
#
# 1. The miss table (SIZES; --30m / --100m add their size): for each size
#    db_bench fills a fresh DB, waits for compaction, reopens it and runs
#    readmissing alone, then prints per size: micros per missing Get,
#    filters probed per Get (the candidate files), filter false positives
#    per Get beside what the fp chance predicts (probes x fp chance), and
#    data blocks read from files per Get (false positives the 8 MiB block
#    cache did not already hold).
# 2. The peer table (PEER_SIZES; the sizes --30m / --100m add): for each
#    size and engine in ENGINES, one after another, build/bin/peer_bench
#    fills a fresh DB with --num random keys and waits for its compaction,
#    then a second process reopens it and runs readmissing and readrandom
#    (READS each). Per row: filter memory (the filters of every live table:
#    sift.filter-bytes; RocksDB's aggregated table properties; LevelDB's,
#    read from its table files), fill time (fillrandom, then waiting out
#    the compaction backlog), stall share (writers' stall time over the
#    fillrandom time: sift.stall.micros; RocksDB's cumulative stall;
#    LevelDB reports none), write amplification (table bytes flushes and
#    compactions wrote over the key and value bytes put), missing and
#    random Gets per second (readrandom finds 63% of its keys: --num draws
#    over --num numbers). siftdb and RocksDB run with
#    max_background_jobs=JOBS (default 2, both engines' default); LevelDB
#    has one background thread. Databases go under SCALE_DIR (default /tmp) and each is
#    removed after its row.
# The tables are also saved as ${PLOT_DATA:-build/plots}/scale.txt, where
# tools/plot.sh (and tools/bench.sh) draw the miss table from.
set -euo pipefail
cd "$(dirname "$0")/.."
large=()
for arg in "$@"; do
  case "$arg" in
    --30m) large+=(30000000) ;;
    --100m) large+=(100000000) ;;
    *) echo "usage: tools/scale.sh [--30m] [--100m]" >&2; exit 2 ;;
  esac
done

SIZES=${SIZES:-"1000000 10000000"}
for n in "${large[@]}"; do SIZES="$SIZES $n"; done
PEER_SIZES=${PEER_SIZES:-"${large[*]}"}
READS=${READS:-300000}
FP=${FP:-0.01}
JOBS=${JOBS:-2}
ENGINES=${ENGINES:-"sift leveldb rocksdb"}
SCALE_DIR=${SCALE_DIR:-/tmp}

# The 100M case: about 12 GB of keys and values per engine, up to twice that
# on disk while a compaction holds its inputs and outputs, and the filters,
# indexes and page cache in memory. Refuse to start rather than fail hours
# in with a full disk.
largest=0
for n in $SIZES $PEER_SIZES; do [ "$n" -gt "$largest" ] && largest=$n; done
if [ "$largest" -ge 100000000 ]; then
  mkdir -p "$SCALE_DIR"
  free_kb=$(df -Pk "$SCALE_DIR" | awk 'NR == 2 { print $4 }')
  need_kb=$((largest * 30 * 1024 * 1024 / 100000000))
  if [ "$free_kb" -lt "$need_kb" ]; then
    echo "scale.sh: $largest keys need $((need_kb / 1024 / 1024)) GB free" \
      "under SCALE_DIR=$SCALE_DIR; it has $((free_kb / 1024 / 1024)) GB" >&2
    exit 1
  fi
  avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  if [ "${avail_kb:-0}" -lt $((4 * 1024 * 1024)) ]; then
    echo "scale.sh: $largest keys need 4 GiB of RAM available;" \
      "MemAvailable is $((${avail_kb:-0} / 1024)) MiB" >&2
    exit 1
  fi
fi

if [ -n "$PEER_SIZES" ]; then tools/setup.sh --peers; else tools/setup.sh; fi
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=OFF >/dev/null
targets=(db_bench)
[ -z "$PEER_SIZES" ] || targets+=(peer_bench)
cmake --build "$build" -j2 --target "${targets[@]}"

out=$(mktemp -d "$SCALE_DIR/siftdb-scale.XXXXXX")
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

[ -n "$PEER_SIZES" ] || exit 0
: >"$plots/scale-peers-raw.txt"
echo
echo "beside the peers (peer_bench; siftdb and RocksDB max_background_jobs=$JOBS):"
printf "%-8s %10s %10s %9s %7s %7s %12s %12s\n" engine keys "filter MB" \
  "fill s" "stall%" "W-amp" "misses/s" "readrandom/s"
for n in $PEER_SIZES; do
  for engine in $ENGINES; do
    db="$out/peer-$engine-$n"
    echo "scale.sh: $engine, $n keys" >&2
    "$build/bin/peer_bench" --engine="$engine" --num="$n" --db="$db" \
      --max_background_jobs="$JOBS" --seed=1 \
      --benchmarks=fillrandom,waitforcompaction,facts >"$out/pfill.txt"
    "$build/bin/peer_bench" --engine="$engine" --num="$n" --db="$db" \
      --reads="$READS" --use_existing_db --seed=1 \
      --benchmarks=readmissing,readrandom,facts >"$out/pread.txt"
    awk -v n="$n" -v engine="$engine" '
      FNR == 1 { file++ }
      $2 == "fillrandom" { fill_us = $4 }
      $2 == "waitforcompaction" { wait_s = $4 }
      $2 == "readmissing" { miss_us = $4 }
      $2 == "readrandom" { found_us = $4 }
      $2 == "facts" {
        for (i = 4; i <= NF; i++) { split($i, kv, "="); f[file, kv[1]] = kv[2] }
      }
      END {
        fill_s = fill_us * n / 1e6
        stall = f[1, "stall_micros"]
        written = f[1, "table_bytes_written"]
        printf "%-8s %10d %10.1f %9.1f %7s %7.2f %12.0f %12.0f\n", engine, n,
          f[2, "filter_bytes"] / 1048576, fill_s + wait_s,
          (stall < 0 ? "-" : sprintf("%.1f", 100 * stall / 1e6 / fill_s)),
          written / (n * (16 + 100)), 1e6 / miss_us, 1e6 / found_us
      }' "$out/pfill.txt" "$out/pread.txt"
    cat "$out/pfill.txt" "$out/pread.txt" >>"$plots/scale-peers-raw.txt"
    rm -rf "$db"
  done
done
