#!/usr/bin/env bash
# YCSB's core workloads A-F on siftdb, LevelDB and RocksDB, in one run on
# one machine, engines alternating, best of ROUNDS (bench/ycsb.h says what
# each workload does).
#
#   tools/ycsb.sh                       # 1M records, 1M operations, 3 rounds
#   RECORDS=100000 OPS=100000 ROUNDS=1 THREADS="1" tools/ycsb.sh
#
# Every run is one build/bin/peer_bench process per engine and thread count
# on a fresh database: the load (RECORDS records of 10 fields x 100 bytes,
# on THREADS threads), then A, B, C, F, D and E in that order (YCSB's
# recommended order; E, whose scans read ~50 records each, runs OPS_E
# operations, a tenth of OPS by default), each starting with whatever
# compaction backlog the previous left, as a YCSB client session does.
# Every engine gets the shape of tools/compare.sh: 4 MiB memtable and
# files, 8 MiB block cache, Snappy, ~1% Bloom filters (siftdb fp chance
# 0.01, the peers 10 bits per key), sync off; siftdb and RocksDB with
# max_background_jobs=2 (both engines' default). RUN_PREFIX is put before every
# peer_bench command (e.g. RUN_PREFIX="taskset -c 1").
#
# Prints ops/sec per workload and thread count (best of the rounds) with
# siftdb's ratio to each peer (above 1: siftdb is faster), then the p99
# latency of updates (A, B) and read-modify-writes (F) in the round that
# gave the best ops/sec; also saved as ${PLOT_DATA:-build/plots}/ycsb.txt,
# the raw lines as ycsb-raw.txt beside it.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh --peers
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=OFF >/dev/null
cmake --build "$build" -j2 --target peer_bench

RECORDS=${RECORDS:-1000000}
OPS=${OPS:-1000000}
OPS_E=${OPS_E:-$((OPS / 10))}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-"1 2"}
ENGINES=${ENGINES:-"sift leveldb rocksdb"}
read -r -a prefix <<<"${RUN_PREFIX:-}"
out=$(mktemp -d /tmp/siftdb-ycsb.XXXXXX)
trap 'rm -rf "$out"' EXIT
plots=${PLOT_DATA:-$build/plots}
mkdir -p "$plots"
raw="$plots/ycsb-raw.txt"
: >"$raw"

common=(--ycsb_record_count="$RECORDS" --max_background_jobs=2 --seed=1)
for round in $(seq 1 "$ROUNDS"); do
  for threads in $THREADS; do
    for engine in $ENGINES; do
      echo "round $round: --engine=$engine --threads=$threads" >&2
      db="$out/db-$engine"
      "${prefix[@]}" "$build/bin/peer_bench" --engine="$engine" --db="$db" \
        "${common[@]}" --threads="$threads" --ycsb_operation_count="$OPS" \
        --benchmarks=ycsbload,ycsba,ycsbb,ycsbc,ycsbf,ycsbd |
        sed "s/^/$round $threads /" >>"$raw"
      "${prefix[@]}" "$build/bin/peer_bench" --engine="$engine" --db="$db" \
        "${common[@]}" --threads="$threads" --ycsb_operation_count="$OPS_E" \
        --use_existing_db --benchmarks=ycsbe |
        sed "s/^/$round $threads /" >>"$raw"
      rm -rf "$db"
    done
  done
done

exec > >(tee "$plots/ycsb.txt")
echo "YCSB: $RECORDS records x 1 KB, $OPS operations per workload (E: $OPS_E)," \
  "best of $ROUNDS rounds"
awk -v engines="$ENGINES" -v threads="$THREADS" '
  # "<round> <threads> <engine> <workload> : X micros/op; Y ops/sec; ..."
  $7 == "micros/op;" {
    key = $3 SUBSEP $4 SUBSEP $2
    cur = key SUBSEP $1
    if (!(key in best) || $8 + 0 > best[key] + 0) { best[key] = $8; bestround[key] = $1 }
    next
  }
  # "<round> <threads> [UPDATE], 99thPercentileLatency(us), 81.4"
  $4 == "99thPercentileLatency(us)," { p99[cur SUBSEP $3] = $5 }
  END {
    ne = split(engines, es, " "); nt = split(threads, ts, " ")
    nw = split("ycsbload ycsba ycsbb ycsbc ycsbd ycsbe ycsbf", ws, " ")
    printf "\n%-12s", "ops/sec"
    for (e = 1; e <= ne; e++) printf " %10s", es[e]
    for (e = 2; e <= ne; e++) printf " %11s", "sift/" es[e]
    printf "\n"
    for (t = 1; t <= nt; t++) for (w = 1; w <= nw; w++) {
      name = ws[w]; sub("ycsb", "", name)
      line = sprintf("%-12s", name " x" ts[t])
      s = best["sift" SUBSEP ws[w] SUBSEP ts[t]]
      for (e = 1; e <= ne; e++) line = line sprintf(" %10d", best[es[e] SUBSEP ws[w] SUBSEP ts[t]])
      for (e = 2; e <= ne; e++) {
        p = best[es[e] SUBSEP ws[w] SUBSEP ts[t]]
        line = line sprintf(" %10.2fx", (p > 0 ? s / p : 0))
      }
      print line
    }
    printf "\n%-12s", "p99 us"
    for (e = 1; e <= ne; e++) printf " %10s", es[e]
    for (e = 2; e <= ne; e++) printf " %11s", "sift/" es[e]
    printf "\n"
    split("ycsba:UPDATE ycsbb:UPDATE ycsbf:READ-MODIFY-WRITE ycsbc:READ", rows, " ")
    for (t = 1; t <= nt; t++) for (r = 1; r <= 4; r++) {
      split(rows[r], rw, ":"); w = rw[1]; op = "[" rw[2] "],"
      name = w; sub("ycsb", "", name)
      line = sprintf("%-12s", name " " tolower(substr(rw[2], 1, 6)) " x" ts[t])
      for (e = 1; e <= ne; e++) {
        k = es[e] SUBSEP w SUBSEP ts[t]
        v[e] = p99[k SUBSEP bestround[k] SUBSEP op]
        line = line sprintf(" %10.1f", v[e])
      }
      for (e = 2; e <= ne; e++) line = line sprintf(" %10.2fx", (v[e] > 0 ? v[1] / v[e] : 0))
      print line
    }
  }' "$raw"
echo
echo "(p99: the round with the best ops/sec; sift/peer above 1 means siftdb's"
echo " p99 is the longer one)"
