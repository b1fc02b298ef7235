#!/usr/bin/env bash
# Side-by-side comparison of siftdb with RocksDB and LevelDB on the read-miss
# workload, in one run on one machine, engines alternating, best of ROUNDS.
#
#   tools/compare.sh              # 1M keys, 300k reads, 2 rounds
#   NUM=200000 READS=100000 ROUNDS=3 tools/compare.sh
#
# 1. build/bin/peer_bench drives all three engines with identical keys
#    (RocksDB db_bench format), values, 4 MiB memtable and files, 8 MiB
#    block cache, Snappy and ~1% filters (RocksDB and LevelDB
#    NewBloomFilterPolicy(10), siftdb fp chance 0.01).
# 2. As a second opinion, RocksDB's own db_bench (Debian rocksdb-tools) and
#    siftdb's db_bench run the same command line (--bloom_bits=10 versus
#    --bloom_filter_fp_chance=0.01).
# 3. Each db_bench's database is then reopened in a new process and read
#    with --threads=1 and --threads=2 (readrandom, readmissing), and with
#    multireadrandom --batch_size=32 (siftdb also multireadmissing, its
#    own). LevelDB has no db_bench installed, so it has no column there.
# Prints one table of micros/op (lower is better) and ratios peer/siftdb
# (above 1: siftdb is faster), the second opinion, and the reopened reads
# in ops/sec (higher is better) with each engine's 2-thread/1-thread
# scaling; also saved as ${PLOT_DATA:-build/plots}/compare.txt for
# tools/plot.sh (and tools/bench.sh) to draw (the first table).
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh --peers
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=OFF >/dev/null
cmake --build "$build" -j2 --target peer_bench db_bench

NUM=${NUM:-1000000}
READS=${READS:-300000}
ROUNDS=${ROUNDS:-2}
out=$(mktemp -d /tmp/siftdb-compare.XXXXXX)
trap 'rm -rf "$out"' EXIT
plots=${PLOT_DATA:-$build/plots}
mkdir -p "$plots"
exec > >(tee "$plots/compare.txt")

source tools/bench_shape.sh
common=(--num="$NUM" --reads="$READS" "${bench_shape[@]}" --seed=1)
benchmarks=fillrandom,waitforcompaction,readrandom,readmissing
# The reopened reads: "<threads> <benchmarks> [flags]" per run.
reopened=("1 readrandom,readmissing" "2 readrandom,readmissing"
          "1 multireadrandom --batch_size=32")

for round in $(seq 1 "$ROUNDS"); do
  for engine in sift rocksdb leveldb; do
    echo "round $round: peer_bench --engine=$engine" >&2
    "$build/bin/peer_bench" --engine="$engine" --num="$NUM" --reads="$READS" \
      --db="$out/db-$engine" >>"$out/peer.txt"
  done
  echo "round $round: db_bench (siftdb, then RocksDB's)" >&2
  "$build/bin/db_bench" --benchmarks="$benchmarks" "${common[@]}" \
    --threads=1 --bloom_filter_fp_chance=0.01 --db="$out/dbb-sift" |
    sed 's/^/dbbench-sift /' >>"$out/dbbench.txt"
  rocksdb=$(command -v /usr/bin/db_bench || true)
  if [ -n "$rocksdb" ]; then
    "$rocksdb" --benchmarks="$benchmarks" "${common[@]}" --threads=1 \
      --bloom_bits=10 --db="$out/dbb-rocksdb" 2>/dev/null |
      sed 's/^/dbbench-rocksdb /' >>"$out/dbbench.txt"
  fi
  for run in "${reopened[@]}"; do
    read -r threads names flags <<<"$run"
    echo "round $round: reopened, --threads=$threads $names" >&2
    sift_names=$names
    [ "$names" = multireadrandom ] && sift_names=multireadrandom,multireadmissing
    # shellcheck disable=SC2086  # flags: words on purpose
    "$build/bin/db_bench" --use_existing_db=1 --benchmarks="$sift_names" \
      "${common[@]}" --threads="$threads" $flags \
      --bloom_filter_fp_chance=0.01 --db="$out/dbb-sift" |
      sed "s/^/reopen-sift-$threads /" >>"$out/reopen.txt"
    if [ -n "$rocksdb" ]; then
      # shellcheck disable=SC2086
      "$rocksdb" --use_existing_db=1 --benchmarks="$names" "${common[@]}" \
        --threads="$threads" $flags --bloom_bits=10 \
        --db="$out/dbb-rocksdb" 2>/dev/null |
        sed "s/^/reopen-rocksdb-$threads /" >>"$out/reopen.txt"
    fi
  done
  rm -rf "$out"/db-* "$out"/dbb-*
done

# Best (lowest) micros/op per engine and workload.
awk '
  /micros\/op/ {
    if ($1 ~ /^dbbench-/) { eng = $1; sub("dbbench-", "db_bench:", eng); w = $2; v = $4 }
    else { eng = $1; w = $2; v = $4 }
    key = eng SUBSEP w
    if (!(key in best) || v + 0 < best[key] + 0) best[key] = v
    engines[eng] = 1; workloads[w] = 1
  }
  END {
    n = split("fillrandom readrandom readmissing manyfiles-miss", order, " ")
    printf "\n%-16s %10s %10s %10s %10s %10s\n", "micros/op", "siftdb", "rocksdb", "leveldb", "rocks/sift", "level/sift"
    for (i = 1; i <= n; i++) {
      w = order[i]; s = best["sift" SUBSEP w]; r = best["rocksdb" SUBSEP w]; l = best["leveldb" SUBSEP w]
      if (s == "") continue
      printf "%-16s %10.3f %10.3f %10.3f %10.2fx %10.2fx\n", w, s, r, l, (s > 0 ? r / s : 0), (s > 0 ? l / s : 0)
    }
    printf "\nsecond opinion, the same db_bench command line:\n"
    printf "%-16s %10s %10s %10s\n", "micros/op", "siftdb", "rocksdb", "rocks/sift"
    for (i = 1; i <= 3; i++) {
      w = order[i]; s = best["db_bench:sift" SUBSEP w]; r = best["db_bench:rocksdb" SUBSEP w]
      if (s == "") continue
      printf "%-16s %10.3f %10.3f %10.2fx\n", w, s, r, (s > 0 && r != "" ? r / s : 0)
    }
  }' "$out/peer.txt" "$out/dbbench.txt"

# Best (highest) ops/sec of the reopened reads per engine, workload and
# thread count.
awk '
  /ops\/sec/ && $1 ~ /^reopen-/ {
    split($1, p, "-"); key = p[2] SUBSEP $2 SUBSEP p[3]
    if (!(key in best) || $6 + 0 > best[key] + 0) best[key] = $6
  }
  END {
    printf "\nreopened, ops/sec (--threads=N; multiread: batches of 32, ops are keys):\n"
    printf "%-20s %10s %10s %10s\n", "ops/sec", "siftdb", "rocksdb", "sift/rocks"
    n = split("readrandom:1 readrandom:2 readmissing:1 readmissing:2 multireadrandom:1 multireadmissing:1", rows, " ")
    for (i = 1; i <= n; i++) {
      split(rows[i], rw, ":"); w = rw[1]; t = rw[2]
      s = best["sift" SUBSEP w SUBSEP t]; r = best["rocksdb" SUBSEP w SUBSEP t]
      if (s == "") continue
      printf "%-20s %10d %10s %10s\n", w " x" t, s, (r == "" ? "-" : r),
        (r > 0 ? sprintf("%.2fx", s / r) : "-")
    }
    printf "\n%-20s %10s %10s\n", "2 threads / 1", "siftdb", "rocksdb"
    split("readrandom readmissing", ws, " ")
    for (i = 1; i <= 2; i++) {
      w = ws[i]; line = sprintf("%-20s", w)
      split("sift rocksdb", es, " ")
      for (j = 1; j <= 2; j++) {
        a = best[es[j] SUBSEP w SUBSEP 1]; b = best[es[j] SUBSEP w SUBSEP 2]
        line = line sprintf(" %10s", (a > 0 && b != "" ? sprintf("%.2fx", b / a) : "-"))
      }
      print line
    }
    printf "\n%-20s %10s\n", "multiread/Get cost", "siftdb"
    split("multireadrandom:readrandom multireadmissing:readmissing", ps, " ")
    for (i = 1; i <= 2; i++) {
      split(ps[i], pw, ":")
      m = best["sift" SUBSEP pw[1] SUBSEP 1]; g = best["sift" SUBSEP pw[2] SUBSEP 1]
      if (m > 0 && g > 0) printf "%-20s %9.2fx\n", pw[1], g / m
    }
  }' "$out/reopen.txt"
echo
echo "raw peer_bench lines:"
cat "$out/peer.txt"
