#!/usr/bin/env bash
# Shards keys over several sift-servers behind twemproxy (Debian's
# nutcracker), which hashes each key with ketama consistent hashing to one
# server, so clients talk to one address and adding a server moves only
# about 1/N of the keys.
#
#   tools/cluster.sh start [N] [DIR]     N servers (default 3) + the proxy
#   tools/cluster.sh stop [DIR]          stops them (SIGTERM, by pid)
#   tools/cluster.sh restart-server I [DIR]   restarts server I (1..N)
#   tools/cluster.sh status [DIR]        prints what runs where
#
# DIR (default build/cluster) holds each server's database, logs, pid
# files and the proxy's nutcracker.yml. Ports, all on 127.0.0.1:
#   PROXY_PORT   the proxy clients connect to (default 22121)
#   BASE_PORT    server I listens on BASE_PORT + I (default 7000)
#   STATS_PORT   nutcracker's statistics port (default 22222)
# SIFT_SERVER names the server binary (default build/bin/sift-server),
# NUTCRACKER the proxy (default: nutcracker on PATH).
#
# Servers are named sift1..siftN in the proxy's configuration, and ketama
# places keys by name, so a restarted server gets the same keys back.
# twemproxy forwards the commands it knows (GET, SET, DEL, MGET split per
# server, INCR, EXISTS, ...; README.md lists them); it refuses BF.*, which
# it does not know: clients shard filter keys themselves (README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

cmd=${1:-}
shift || true
PROXY_PORT=${PROXY_PORT:-22121}
BASE_PORT=${BASE_PORT:-7000}
STATS_PORT=${STATS_PORT:-22222}
SIFT_SERVER=${SIFT_SERVER:-build/bin/sift-server}
NUTCRACKER=${NUTCRACKER:-nutcracker}

die() { echo "cluster.sh: $*" >&2; exit 1; }

# Waits until 127.0.0.1:$1 accepts connections (10 s at most).
wait_port() {
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "nothing listens on 127.0.0.1:$1 after 10 s (see the logs in $dir)"
}

start_server() {  # $1: index
  local i=$1 port=$((BASE_PORT + $1))
  mkdir -p "$dir/sift$i"
  "$SIFT_SERVER" --db "$dir/sift$i/db" --port "$port" --bind 127.0.0.1 \
    --logfile "$dir/sift$i/log" </dev/null >>"$dir/sift$i/out" 2>&1 &
  echo $! >"$dir/sift$i/pid"
  wait_port "$port"
}

# Whether pid $1 runs (an exited process nobody reaped yet does not).
alive() {
  kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

stop_pid() {  # $1: pid file
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  if alive "$pid"; then
    kill -TERM "$pid"
    for _ in $(seq 200); do alive "$pid" || break; sleep 0.05; done
    if alive "$pid"; then kill -KILL "$pid"; fi
  fi
  rm -f "$1"
}

# The other commands use the ports the cluster was started with.
load_ports() {
  # shellcheck disable=SC1091
  if [ -f "$dir/ports" ]; then . "$dir/ports"; fi
}

case "$cmd" in
  start)
    n=${1:-3}
    dir=${2:-build/cluster}
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number, got '$n'"
    [ -x "$SIFT_SERVER" ] || die "no sift-server at $SIFT_SERVER (build it: cmake --build build --target sift-server)"
    command -v "$NUTCRACKER" >/dev/null ||
      die "no $NUTCRACKER: install twemproxy (tools/setup.sh installs Debian's nutcracker)"
    mkdir -p "$dir"
    [ -f "$dir/nutcracker.pid" ] && die "$dir already runs a cluster (cluster.sh stop $dir)"
    echo "$n" >"$dir/servers"
    echo "BASE_PORT=$BASE_PORT PROXY_PORT=$PROXY_PORT STATS_PORT=$STATS_PORT" >"$dir/ports"
    {
      echo "sift:"
      echo "  listen: 127.0.0.1:$PROXY_PORT"
      echo "  hash: murmur"
      echo "  distribution: ketama"
      echo "  redis: true"
      echo "  preconnect: false"
      echo "  auto_eject_hosts: false"
      echo "  server_retry_timeout: 500"
      echo "  timeout: 5000"
      echo "  servers:"
      for i in $(seq "$n"); do
        echo "   - 127.0.0.1:$((BASE_PORT + i)):1 sift$i"
      done
    } >"$dir/nutcracker.yml"
    "$NUTCRACKER" -t -c "$dir/nutcracker.yml" >/dev/null 2>&1 ||
      die "nutcracker rejects $dir/nutcracker.yml"
    for i in $(seq "$n"); do start_server "$i"; done
    "$NUTCRACKER" -c "$dir/nutcracker.yml" -s "$STATS_PORT" \
      -o "$dir/nutcracker.log" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/nutcracker.pid"
    wait_port "$PROXY_PORT"
    echo "cluster: $n sift-servers on 127.0.0.1:$((BASE_PORT + 1))..$((BASE_PORT + n)), proxy on 127.0.0.1:$PROXY_PORT"
    ;;
  stop)
    dir=${1:-build/cluster}
    load_ports
    stop_pid "$dir/nutcracker.pid"
    if [ -f "$dir/servers" ]; then
      for i in $(seq "$(cat "$dir/servers")"); do stop_pid "$dir/sift$i/pid"; done
    fi
    echo "cluster: stopped"
    ;;
  restart-server)
    i=${1:?usage: cluster.sh restart-server I [DIR]}
    dir=${2:-build/cluster}
    load_ports
    [ -f "$dir/sift$i/pid" ] || die "no server $i in $dir"
    stop_pid "$dir/sift$i/pid"
    start_server "$i"
    echo "cluster: server $i restarted on 127.0.0.1:$((BASE_PORT + i))"
    ;;
  status)
    dir=${1:-build/cluster}
    load_ports
    [ -f "$dir/servers" ] || die "no cluster in $dir"
    for i in $(seq "$(cat "$dir/servers")"); do
      pid=$(cat "$dir/sift$i/pid" 2>/dev/null || echo -)
      echo "sift$i 127.0.0.1:$((BASE_PORT + i)) pid $pid"
    done
    echo "proxy 127.0.0.1:$PROXY_PORT pid $(cat "$dir/nutcracker.pid" 2>/dev/null || echo -)"
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    [ -z "$cmd" ] || [ "$cmd" = help ] || exit 1
    ;;
esac
