#!/usr/bin/env bash
# sift-server beside Debian's redis-server 7 (in memory, no persistence: the
# comparison only), with redis-benchmark, in one run on loopback:
#   - SET and GET: redis-benchmark -t set,get -n N -r N -P 16 -c 50
#   - GET of absent keys (a key prefix no SET wrote)
#   - BF.EXISTS and BF.MEXISTS (10 items) on a filter of N/2 items, beside
#     GET (sift-server only: redis-server has no BF.*)
#   - the measured false-positive rate of a filter grown to 10x its
#     initial capacity
# Prints requests per second and the ratios. Run it alone on the machine:
#   locked tools/server_bench.sh
# N (default 1000000) requests per test; BUILD_DIR (default build) holds
# bin/sift-server; the databases go to $BUILD_DIR/server-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}
build=${BUILD_DIR:-build}
SIFT_PORT=${SIFT_PORT:-6390}
REDIS_PORT=${REDIS_PORT:-6389}
work=$build/server-bench
die() { echo "server_bench.sh: $*" >&2; exit 1; }

tools/setup.sh --redis-server
[ -x "$build/bin/sift-server" ] || die "build sift-server first"
command -v redis-server >/dev/null || die "no redis-server"

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

"$build/bin/sift-server" --db "$work/sift" --port "$SIFT_PORT" \
  --logfile "$work/sift.log" &
pids+=($!)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" \
  --appendonly no --dir "$work" --logfile "$work/redis.log" &
pids+=($!)
for port in "$SIFT_PORT" "$REDIS_PORT"; do
  for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
done

# rps PORT ARGS...: the requests per second redis-benchmark reports.
rps() {
  local port=$1
  shift
  redis-benchmark -p "$port" -q "$@" 2>/dev/null | tr '\r' '\n' |
    sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
# setget PORT: "SET GET" requests per second.
setget() {
  redis-benchmark -p "$1" -t set,get -n "$N" -r "$N" -P 16 -c 50 -q 2>/dev/null |
    tr '\r' '\n' | sed -n 's/^\(SET\|GET\): \([0-9.]*\) requests per second.*/\2/p' |
    tr '\n' ' '
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }'; }

read -r sift_set sift_get <<<"$(setget "$SIFT_PORT")"
read -r redis_set redis_get <<<"$(setget "$REDIS_PORT")"
absent=(-n "$N" -r "$N" -P 16 -c 50 GET "absent:__rand_int__")
sift_absent=$(rps "$SIFT_PORT" "${absent[@]}")
redis_absent=$(rps "$REDIS_PORT" "${absent[@]}")

# A filter of about N/2 items, then existence checks of random items (half
# of them present).
redis-cli -p "$SIFT_PORT" BF.RESERVE bench 0.01 "$N" >/dev/null
rps "$SIFT_PORT" -n "$N" -r "$N" -P 16 -c 50 BF.ADD bench "__rand_int__" >/dev/null
sift_exists=$(rps "$SIFT_PORT" -n "$N" -r "$((2 * N))" -P 16 -c 50 \
  BF.EXISTS bench "__rand_int__")
mexists_args=()
for _ in $(seq 10); do mexists_args+=("__rand_int__"); done
sift_mexists=$(rps "$SIFT_PORT" -n "$N" -r "$((2 * N))" -P 16 -c 50 \
  BF.MEXISTS bench "${mexists_args[@]}")
sift_get_present=$(rps "$SIFT_PORT" -n "$N" -r "$N" -P 16 -c 50 \
  GET "key:__rand_int__")

# FP of a filter grown to 10x its capacity (error rate 0.01).
fp=$(/usr/bin/python3 - "$SIFT_PORT" <<'EOF'
import sys
import redis
r = redis.Redis(port=int(sys.argv[1]))
cap = 100000
r.execute_command("BF.RESERVE", "grown", 0.01, cap)
p = r.pipeline(transaction=False)
for i in range(0, 10 * cap, 1000):
    p.execute_command("BF.MADD", "grown", *range(i, i + 1000))
p.execute()
filters = r.execute_command("BF.INFO", "grown", "FILTERS")[0]
fp = probes = 0
p = r.pipeline(transaction=False)
for i in range(0, 1000000, 1000):
    p.execute_command("BF.MEXISTS", "grown",
                      *["x%d" % j for j in range(i, i + 1000)])
for hits in p.execute():
    fp += sum(hits)
    probes += len(hits)
missed = 0
for i in range(0, 10 * cap, 1000):
    missed += 1000 - sum(r.execute_command("BF.MEXISTS", "grown",
                                           *range(i, i + 1000)))
print("%.5f %d %d %d" % (fp / probes, probes, filters, missed))
EOF
)
read -r fp_rate fp_probes fp_filters fp_missed <<<"$fp"

echo
echo "redis-benchmark -t set,get -n $N -r $N -P 16 -c 50 (requests/s)"
printf "%-24s %12s %12s %10s\n" test sift-server redis-server sift/redis
printf "%-24s %12s %12s %10s\n" SET "$sift_set" "$redis_set" "$(ratio "$sift_set" "$redis_set")"
printf "%-24s %12s %12s %10s\n" GET "$sift_get" "$redis_get" "$(ratio "$sift_get" "$redis_get")"
printf "%-24s %12s %12s %10s\n" "GET absent" "$sift_absent" "$redis_absent" "$(ratio "$sift_absent" "$redis_absent")"
echo
echo "sift-server filters (-n $N -P 16 -c 50, half the items present)"
printf "%-24s %12s %12s\n" test requests/s "vs GET"
printf "%-24s %12s %12s\n" "GET (set,get keys)" "$sift_get_present" 1.00x
printf "%-24s %12s %12s\n" BF.EXISTS "$sift_exists" "$(ratio "$sift_exists" "$sift_get_present")"
printf "%-24s %12s %12s\n" "BF.MEXISTS (10 items)" "$sift_mexists" "$(ratio "$sift_mexists" "$sift_get_present")"
echo
echo "filter grown to 10x its capacity (error rate 0.01, capacity 100000, 1M items):"
echo "  $fp_filters sub-filters, measured FP $fp_rate over $fp_probes absent items, $fp_missed of 1000000 added items missed"
