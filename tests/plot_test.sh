#!/usr/bin/env bash
# Run by ctest (plot_test): tools/plot.sh draws each kind of benchmark
# output it knows into a PNG, and refuses input that is not that kind,
# naming the file. Skipped (exit 77) where gnuplot is not installed: only
# the scripts that draw install it (tools/setup.sh --plots).
#
#   tests/plot_test.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
src=$1
dir=$2
if ! command -v gnuplot >/dev/null; then
  echo "plot_test: gnuplot is not installed: skipped"
  exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"

# Inputs in the exact forms the producers print (trimmed).
cat >"$dir/fp.csv" <<'CSV'
name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"bits_per_key","fp_rate","target"
"BM_FpRate/blocked:0/p_inv:10/iterations:1",1,41.1,41.1,ms,,,,,,4.8,0.1002,0.1
"BM_FpRate/blocked:0/p_inv:100/iterations:1",1,55.7,55.7,ms,,,,,,9.59,0.00986,0.01
"BM_FpRate/blocked:1/p_inv:10/iterations:1",1,40.2,40.2,ms,,,,,,5.1,0.0998,0.1
"BM_FpRate/blocked:1/p_inv:100/iterations:1",1,50.3,50.3,ms,,,,,,10.2,0.0101,0.01
CSV
cat >"$dir/scale.txt" <<'TXT'
keys        files levels   us/miss  filters/Get     FP/Get  predicted   blocks/Get
1000000        12      2     0.358        3.000     0.0298     0.0300       0.0150
10000000      115      4     0.452        2.388     0.0238     0.0239       0.0143
TXT
printf 'secs_elapsed,interval_qps,interval_p50_us,interval_p99_us\n1,400000,2.1,5.5\n2,420000,2.0,5.9\n' \
  >"$dir/report.csv"
printf 'secs_elapsed,interval_qps\n1,400000\n2,420000\n' >"$dir/rocksdb.csv"
cat >"$dir/compare.txt" <<'TXT'

micros/op            siftdb    rocksdb    leveldb rocks/sift level/sift
fillrandom            1.743      3.785      2.559       2.17x       1.47x
readmissing           0.150      1.539      1.326      10.26x       8.84x

second opinion, the same db_bench command line:
TXT

fail=0
check_png() {
  local png=$1
  if [ "$(head -c 4 "$png" | od -An -c | tr -d ' ')" != '211PNG' ] ||
     [ "$(stat -c %s "$png")" -lt 5000 ]; then
    echo "plot_test: $png is not a drawn PNG" >&2
    fail=1
  fi
}
for kind in fp:fp.csv scale:scale.txt timeline:report.csv \
            timeline:rocksdb.csv compare:compare.txt; do
  name=${kind%%:*}
  input=${kind#*:}
  "$src/tools/plot.sh" "$name" "$dir/$input" "$dir/$input.png" >/dev/null
  check_png "$dir/$input.png"
done

# Input of the wrong kind: exit 1, naming the file, no PNG.
for kind in fp:scale.txt scale:report.csv timeline:compare.txt compare:fp.csv; do
  name=${kind%%:*}
  input=${kind#*:}
  if "$src/tools/plot.sh" "$name" "$dir/$input" "$dir/bad.png" 2>"$dir/err"; then
    echo "plot_test: plot.sh $name accepted $input" >&2
    fail=1
  elif ! grep -q "$dir/$input" "$dir/err"; then
    echo "plot_test: plot.sh $name did not name $input: $(cat "$dir/err")" >&2
    fail=1
  fi
done
[ ! -e "$dir/bad.png" ] || { echo "plot_test: bad.png was written" >&2; fail=1; }
exit "$fail"
