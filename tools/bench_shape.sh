# Sourced by tools/compare.sh, scale.sh and filters.sh: the one workload
# shape their db_bench runs share (peer_bench's defaults are the same):
# 16-byte keys, 100-byte values, 4 MiB memtables and table files, an 8 MiB
# block cache and Snappy.
# shellcheck shell=bash
# shellcheck disable=SC2034  # used by the scripts that source this file
bench_shape=(--key_size=16 --value_size=100 --write_buffer_size=4194304
             --target_file_size_base=4194304 --cache_size=8388608
             --compression_type=snappy)
