#!/usr/bin/env bash
# Installs the Debian 12 packages siftdb builds with, when missing (a no-op
# when everything is present), and the real clients the sift-server tests
# drive it with (redis-tools: redis-cli, redis-benchmark; python3-redis;
# nutcracker, twemproxy, for tools/cluster.sh). With --peers, also the
# engines we measure against (RocksDB, LevelDB: only tools/compare.sh needs
# them; redis-server, for sift-server's benchmark, which --redis-server
# installs alone). With --plots,
# gnuplot for tools/plot.sh. With --sanitizers, clang's sanitizer runtimes.
set -euo pipefail

pkgs=(cmake make g++ clang pkg-config libabsl-dev libsnappy-dev libgtest-dev
      libgmock-dev libbenchmark-dev libxxhash-dev libasio-dev
      redis-tools python3-redis nutcracker)
for arg in "$@"; do
  case "$arg" in
    --peers) pkgs+=(librocksdb-dev libleveldb-dev rocksdb-tools redis-server) ;;
    --redis-server) pkgs+=(redis-server) ;;
    --plots) pkgs+=(gnuplot-nox) ;;
    --sanitizers) pkgs+=(libclang-rt-14-dev) ;;
    *) echo "setup.sh: unknown argument '$arg'" >&2; exit 1 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup.sh: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
