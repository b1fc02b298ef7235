#!/usr/bin/env bash
# Turns benchmark output into PNG plots with gnuplot (tools/setup.sh --plots
# installs Debian's gnuplot-nox when it is missing).
#
#   tools/plot.sh fp FILE OUT.png        measured false-positive rate against
#                                        the target, per filter layout; FILE:
#                                        filter_bench --benchmark_filter=BM_FpRate
#                                        --benchmark_format=csv
#   tools/plot.sh scale FILE OUT.png     micros per missing Get and filter
#                                        false positives per Get against the
#                                        number of keys; FILE: tools/scale.sh's
#                                        output
#   tools/plot.sh timeline FILE OUT.png  ops/sec and P99 latency over time;
#                                        FILE: db_bench --report_file CSV (P99
#                                        needs --report_latency)
#   tools/plot.sh compare FILE OUT.png   micros/op of siftdb, RocksDB and
#                                        LevelDB per workload; FILE:
#                                        tools/compare.sh's output
#   tools/plot.sh all DIR                runs the filter_bench sweep and a
#                                        10-second readwhilewriting, plots
#                                        them into DIR, plus DIR/scale.txt and
#                                        DIR/compare.txt when scale.sh and
#                                        compare.sh left them there; prints
#                                        the PNGs' paths
#   tools/plot.sh readme                 the README's pictures in docs/img:
#                                        fp.png and timeline.png from "all"
#
#   BUILD_DIR  build directory for "all" and "readme" (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh --plots
build=${BUILD_DIR:-build}
# Small PNGs that read at README width; one font and palette for all.
term='set terminal pngcairo size 720,420 font "DejaVu Sans,10" noenhanced'
style='set grid lc rgb "#dddddd"; set key top left box opaque'
style+='; set linetype 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.8'
style+='; set linetype 2 lc rgb "#d62728" lw 2 pt 5 ps 0.8'
style+='; set linetype 3 lc rgb "#2ca02c" lw 2 pt 9 ps 0.8'
style+='; set linetype 4 lc rgb "#7f7f7f" lw 1 dt 2'

die() { echo "plot.sh: $*" >&2; exit 1; }

# filter_bench CSV -> "layout target fp_rate" rows, one block per layout.
plot_fp() {
  local in=$1 out=$2 data
  data=$(mktemp)
  awk -F, '
    /^name,/ { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }
               next }
    /BM_FpRate/ {
      layout = ($1 ~ /blocked:1/) ? "blocked" : "standard"
      rows[layout] = rows[layout] $(col["target"]) " " $(col["fp_rate"]) "\n"
    }
    END {
      if (!("standard" in rows) && !("blocked" in rows)) exit 1
      printf "# standard\n%s\n\n# blocked\n%s", rows["standard"], rows["blocked"]
    }' "$in" >"$data" || die "$in: no BM_FpRate rows with fp_rate and target"
  gnuplot <<EOF
$term
set output "$out"
$style
set multiplot layout 1,2 title "Bloom filters: measured false-positive rate against the target (1M keys, 1M absent probes)"
set logscale x
set format x "%g"
set xlabel "target p"
set xrange [0.00007:0.14]
set title "measured rate"
set logscale y
set format y "%g"
set yrange [0.00007:0.14]
set key top left box opaque
plot x title "= target" lt 4, \
  "$data" index 0 using 1:2 with linespoints lt 1 title "standard", \
  "$data" index 1 using 1:2 with linespoints lt 2 title "blocked"
set title "measured / target"
unset logscale y
set format y "%.2f"
set yrange [0.6:1.4]
set key bottom left box opaque
plot 1 title "= target" lt 4, \
  "$data" index 0 using 1:(\$2/\$1) with linespoints lt 1 title "standard", \
  "$data" index 1 using 1:(\$2/\$1) with linespoints lt 2 title "blocked"
unset multiplot
EOF
  rm -f "$data"
}

# scale.sh's table -> keys us/miss FP/Get predicted.
plot_scale() {
  local in=$1 out=$2 data
  data=$(mktemp)
  awk '$1 ~ /^[0-9]+$/ && NF >= 8 { print $1, $4, $6, $7 }' "$in" >"$data"
  [ -s "$data" ] || die "$in: no rows of tools/scale.sh output"
  gnuplot <<EOF
$term
set output "$out"
$style
set title "Cost of a missing Get as the data grows (tools/scale.sh)"
set logscale x
set format x "%.0s%c"
set xlabel "keys in the database"
set ylabel "microseconds per missing Get"
set y2label "filter false positives per Get"
stats "$data" using 2 name "US" nooutput
stats "$data" using 3 name "FP" nooutput
set yrange [0:US_max * 1.3]; set y2range [0:FP_max * 1.3]
set ytics nomirror; set y2tics
set autoscale xfix
set offsets graph 0.08, graph 0.08, 0, 0
set key bottom right box opaque
plot "$data" using 1:2 axes x1y1 with linespoints lt 1 title "us per missing Get (left)", \
  "$data" using 1:3 axes x1y2 with linespoints lt 2 title "false positives per Get, measured (right)", \
  "$data" using 1:4 axes x1y2 with points pt 6 ps 2 lc rgb "#555555" title "predicted: filters probed x p (right)"
EOF
  rm -f "$data"
}

# --report_file CSV -> secs ops/sec [p99]; the interval is the distance to
# the previous line (RocksDB's interval_qps is that interval's count).
plot_timeline() {
  local in=$1 out=$2 data p99
  data=$(mktemp)
  head -1 "$in" | grep -q '^secs_elapsed,interval_qps' ||
    die "$in: not a db_bench --report_file CSV"
  awk -F, 'NR > 1 { d = $1 - prev; prev = $1; if (d <= 0) d = 1
                    print $1, $2 / d, (NF >= 4 ? $4 : "NaN") }' "$in" >"$data"
  [ -s "$data" ] || die "$in: no intervals (run longer than --report_interval_seconds)"
  p99=""
  y2='unset y2tics'
  if head -1 "$in" | grep -q interval_p99_us; then
    p99=', "'$data'" using 1:3 axes x1y2 with linespoints lt 2 title "P99 latency (us)"'
    y2='set y2label "P99 latency, microseconds"; set y2range [0:*]; set y2tics'
  fi
  local title="Throughput${p99:+ and P99 latency} over time (db_bench --report_file)"
  # Whole seconds: one tic each when there are few.
  local xtics='set xtics autofreq'
  [ "$(wc -l <"$data")" -le 20 ] && xtics='set xtics 1'

  gnuplot <<EOF
$term
set output "$out"
$style
set title "${TIMELINE_TITLE:-$title}"
set xlabel "seconds"
set format x "%.0f"
$xtics
set ylabel "operations per second"
set format y "%.0s%c"
set yrange [0:*]
set ytics nomirror
$y2
set key bottom right box opaque
plot "$data" using 1:2 axes x1y1 with linespoints lt 1 title "ops/sec" $p99
EOF
  rm -f "$data"
}

# compare.sh's first table -> workload siftdb rocksdb leveldb (micros/op).
plot_compare() {
  local in=$1 out=$2 data
  data=$(mktemp)
  awk '/^micros\/op +siftdb +rocksdb +leveldb/ { on = 1; next }
       on && NF == 0 { exit }
       on { print $1, $2, $3, $4 }' "$in" >"$data"
  [ -s "$data" ] || die "$in: no table of tools/compare.sh output"
  gnuplot <<EOF
$term
set output "$out"
$style
set title "siftdb, RocksDB and LevelDB, same workload (tools/compare.sh)"
set ylabel "microseconds per operation (log scale, lower is better)"
set logscale y
set yrange [0.05:*]
set format y "%g"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top right box opaque
set xtics nomirror
plot "$data" using 2:xtic(1) lt 1 title "siftdb", \
  "" using 3 lt 2 title "RocksDB", "" using 4 lt 3 title "LevelDB"
EOF
  rm -f "$data"
}

# Runs the sweeps "all" needs and plots everything there is into $1.
plot_all() {
  local dir=$1
  mkdir -p "$dir"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIFT_INVARIANTS=OFF >/dev/null
  cmake --build "$build" -j2 --target filter_bench db_bench >/dev/null
  "$build/bin/filter_bench" --benchmark_filter=BM_FpRate \
    --benchmark_format=csv >"$dir/fp.csv" 2>/dev/null
  plot_fp "$dir/fp.csv" "$dir/fp.png"
  local db
  db=$(mktemp -d "${TMPDIR:-/tmp}/siftdb-plot.XXXXXX")
  # One reader and one writer for 10 seconds on 1M keys, one line a second.
  "$build/bin/db_bench" --db="$db" --num=1000000 --seed=1 --duration=10 \
    --benchmarks=fillrandom,readwhilewriting --report_interval_seconds=1 \
    --report_latency --report_file="$dir/timeline.csv" >/dev/null 2>&1
  rm -rf "$db"
  TIMELINE_TITLE="readwhilewriting on 1M keys, one reader and one writer: ops/sec and P99 per second" \
    plot_timeline "$dir/timeline.csv" "$dir/timeline.png"
  [ -s "$dir/scale.txt" ] && plot_scale "$dir/scale.txt" "$dir/scale.png"
  [ -s "$dir/compare.txt" ] && plot_compare "$dir/compare.txt" "$dir/compare.png"
  echo "plots:"
  ls -1 "$dir"/*.png
}

case "${1:-}" in
  fp | scale | timeline | compare)
    [ $# -eq 3 ] || die "usage: tools/plot.sh $1 INPUT OUTPUT.png"
    [ -r "$2" ] || die "$2: cannot read"
    "plot_$1" "$2" "$3"
    echo "$3" ;;
  all)
    [ $# -eq 2 ] || die "usage: tools/plot.sh all DIR"
    plot_all "$2" ;;
  readme)
    mkdir -p docs/img
    rm -f docs/img/scale.txt docs/img/compare.txt
    plot_all docs/img
    rm -f docs/img/*.csv ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2 ;;
esac
