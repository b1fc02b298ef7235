// db_bench: siftdb's workload driver, flag- and output-compatible with
// RocksDB's db_bench for the flags and benchmarks below, so that scripts move
// between the two without edits.
//
//   build/bin/db_bench --num=1000000 --reads=300000 --statistics=1
//     --benchmarks=fillrandom,waitforcompaction,readrandom,readmissing,stats
//
// Benchmarks (run in the order given): fillseq, fillrandom, overwrite,
// fillsync, readseq, readreverse, readrandom, readmissing, readhot,
// seekrandom, deleterandom, readwhilewriting, compact; meta steps (no report
// line, as in RocksDB): flush, waitforcompaction, stats, levelstats,
// sstables. An unknown flag or benchmark is an error (exit 1) before
// anything runs.

#include "bench/db_bench.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "sift/env.h"
#include "util/bloom.h"

ABSL_FLAG(std::string, benchmarks,
          "fillseq,fillsync,fillrandom,overwrite,readrandom,readmissing,"
          "readseq,readreverse,readhot,seekrandom,readwhilewriting,"
          "deleterandom,stats",
          "Comma-separated list of benchmarks to run, in order.");
ABSL_FLAG(int64_t, num, 1000000, "Number of key/values to place in database.");
ABSL_FLAG(int64_t, reads, -1,
          "Number of read operations to do. If negative, do --num reads.");
ABSL_FLAG(int32_t, key_size, 16, "Size of each key (at least 8).");
ABSL_FLAG(int32_t, value_size, 100, "Size of each value.");
ABSL_FLAG(std::string, db, "",
          "Use the db with the following name. Default: a fresh directory "
          "/tmp/siftdb-bench-<pid>.");
ABSL_FLAG(bool, use_existing_db, false,
          "If true, do not destroy the existing database. Benchmarks that "
          "need a fresh database (fill*) are skipped.");
ABSL_FLAG(int32_t, threads, 1, "Number of concurrent threads to run.");
ABSL_FLAG(int64_t, seed, 0,
          "Seed base for random number generators. When 0 it is derived from "
          "the current time.");
ABSL_FLAG(int64_t, write_buffer_size,
          static_cast<int64_t>(sift::Options().write_buffer_size),
          "Bytes to buffer in the memtable before flushing to a file.");
ABSL_FLAG(int64_t, target_file_size_base,
          static_cast<int64_t>(sift::Options().max_file_size),
          "Target size of one SSTable (Options::max_file_size).");
ABSL_FLAG(int32_t, level0_file_num_compaction_trigger,
          sift::Options().level0_compaction_trigger,
          "Level-0 files that start a compaction "
          "(Options::level0_compaction_trigger).");
ABSL_FLAG(int32_t, level0_slowdown_writes_trigger,
          sift::Options().level0_slowdown_writes_trigger,
          "Level-0 files at which each write is delayed by 1 ms.");
ABSL_FLAG(int32_t, level0_stop_writes_trigger,
          sift::Options().level0_stop_writes_trigger,
          "Level-0 files at which writes wait for compaction.");
ABSL_FLAG(int64_t, cache_size,
          static_cast<int64_t>(sift::Options().block_cache_capacity),
          "Bytes of uncompressed data blocks to cache.");
ABSL_FLAG(std::string, compression_type, "snappy",
          "Algorithm to use to compress the database: none or snappy.");
ABSL_FLAG(double, compression_ratio, 0.5,
          "Arrange to generate values that shrink to this fraction of their "
          "original size after compression.");
ABSL_FLAG(int64_t, block_size, static_cast<int64_t>(sift::Options().block_size),
          "Bytes of user data per data block.");
ABSL_FLAG(double, bloom_bits, -1,
          "Bloom filter bits per key, RocksDB's meaning: the filter is built "
          "for the false-positive chance of a standard Bloom filter with "
          "this many bits per key. Negative means use the default (or "
          "--bloom_filter_fp_chance). Zero disables filters.");
ABSL_FLAG(std::optional<double>, bloom_filter_fp_chance, std::nullopt,
          "False-positive chance new filters are built for, in (0, 1]; 1.0 "
          "writes no filters. Default: Options' (0.01). Not with "
          "--bloom_bits.");
ABSL_FLAG(std::string, filter_layout, "blocked",
          "Layout of new filters: blocked (one cache line per probe) or "
          "standard.");
ABSL_FLAG(bool, statistics, false,
          "Print the database statistics at the end of the run, with the "
          "observed filter false-positive rate.");
ABSL_FLAG(bool, histogram, false, "Print histogram of operation timings.");
ABSL_FLAG(bool, mmap_read, sift::Options().allow_mmap_reads,
          "Read table files through memory maps (Options::allow_mmap_reads) "
          "instead of pread.");
ABSL_FLAG(int32_t, duration, 0,
          "Time in seconds for the random-ops tests to run. When 0 then num "
          "and reads determine the test duration.");

namespace sift::bench {
namespace {

absl::Status Bad(const char* flag, const auto& value, const char* want) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", value, ": ", want));
}

// The fp chance of a standard Bloom filter with bits_per_key bits per key
// and the optimal round(b ln 2) probes: what RocksDB's --bloom_bits=b asks
// for. 0 means no filter.
double FpChanceForBloomBits(double bits_per_key) {
  if (bits_per_key <= 0) return 1.0;
  const int k =
      std::max(1, static_cast<int>(std::lround(bits_per_key * std::log(2.0))));
  return StandardFpRate(bits_per_key, k);
}

absl::Status FilterOptions(BenchConfig* c) {
  const std::optional<double> fp = absl::GetFlag(FLAGS_bloom_filter_fp_chance);
  c->bloom_bits = absl::GetFlag(FLAGS_bloom_bits);
  if (fp.has_value() && c->bloom_bits >= 0) {
    return absl::InvalidArgumentError(
        "--bloom_bits and --bloom_filter_fp_chance both set the filter's "
        "false-positive chance: give one");
  }
  if (fp.has_value()) {
    if (!(*fp > 0 && *fp <= 1)) {
      return Bad("bloom_filter_fp_chance", *fp, "must be in (0, 1]");
    }
    c->options.bloom_filter_fp_chance = *fp;
  } else if (c->bloom_bits >= 0) {
    c->options.bloom_filter_fp_chance = FpChanceForBloomBits(c->bloom_bits);
  }
  const std::string layout = absl::GetFlag(FLAGS_filter_layout);
  if (layout == "blocked") {
    c->options.filter_layout = FilterLayout::kBlocked;
  } else if (layout == "standard") {
    c->options.filter_layout = FilterLayout::kStandard;
  } else {
    return Bad("filter_layout", layout, "must be blocked or standard");
  }
  return absl::OkStatus();
}

absl::Status SizeOptions(BenchConfig* c) {
  struct {
    const char* name;
    int64_t value;
    size_t* field;
  } sizes[] = {
      {"write_buffer_size", absl::GetFlag(FLAGS_write_buffer_size),
       &c->options.write_buffer_size},
      {"target_file_size_base", absl::GetFlag(FLAGS_target_file_size_base),
       &c->options.max_file_size},
      {"cache_size", absl::GetFlag(FLAGS_cache_size),
       &c->options.block_cache_capacity},
      {"block_size", absl::GetFlag(FLAGS_block_size), &c->options.block_size},
  };
  for (const auto& s : sizes) {
    if (s.value < 0) return Bad(s.name, s.value, "must not be negative");
    *s.field = static_cast<size_t>(s.value);
  }
  // DB::Open checks these (and names the field) against each other.
  c->options.level0_compaction_trigger =
      absl::GetFlag(FLAGS_level0_file_num_compaction_trigger);
  c->options.level0_slowdown_writes_trigger =
      absl::GetFlag(FLAGS_level0_slowdown_writes_trigger);
  c->options.level0_stop_writes_trigger =
      absl::GetFlag(FLAGS_level0_stop_writes_trigger);
  c->options.allow_mmap_reads = absl::GetFlag(FLAGS_mmap_read);
  const std::string comp = absl::GetFlag(FLAGS_compression_type);
  if (comp == "snappy") {
    c->options.compression = Compression::kSnappy;
  } else if (comp == "none") {
    c->options.compression = Compression::kNone;
  } else {
    return Bad("compression_type", comp, "must be none or snappy");
  }
  return FilterOptions(c);
}

absl::StatusOr<BenchConfig> ConfigFromFlags() {
  BenchConfig c;
  for (absl::string_view b : absl::StrSplit(absl::GetFlag(FLAGS_benchmarks),
                                            ',', absl::SkipWhitespace())) {
    std::string name(b);
    if (!IsKnownBenchmark(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown benchmark '", name, "'"));
    }
    c.benchmarks.push_back(std::move(name));
  }
  c.num = absl::GetFlag(FLAGS_num);
  if (c.num < 1) return Bad("num", c.num, "must be at least 1");
  const int64_t reads = absl::GetFlag(FLAGS_reads);
  c.reads = reads < 0 ? c.num : reads;
  const int32_t key_size = absl::GetFlag(FLAGS_key_size);
  if (key_size < 8) {
    return Bad("key_size", key_size,
               "must be at least 8 (the key number is 8 bytes)");
  }
  c.key_size = static_cast<size_t>(key_size);
  const int32_t value_size = absl::GetFlag(FLAGS_value_size);
  if (value_size < 0) return Bad("value_size", value_size, "is negative");
  c.value_size = static_cast<size_t>(value_size);
  c.threads = absl::GetFlag(FLAGS_threads);
  if (c.threads < 1) return Bad("threads", c.threads, "must be at least 1");
  c.compression_ratio = absl::GetFlag(FLAGS_compression_ratio);
  if (!(c.compression_ratio > 0 && c.compression_ratio <= 1)) {
    return Bad("compression_ratio", c.compression_ratio, "must be in (0, 1]");
  }
  c.duration = absl::GetFlag(FLAGS_duration);
  c.statistics = absl::GetFlag(FLAGS_statistics);
  c.histogram = absl::GetFlag(FLAGS_histogram);
  c.use_existing_db = absl::GetFlag(FLAGS_use_existing_db);
  c.db = absl::GetFlag(FLAGS_db);
  if (c.db.empty()) {
    if (c.use_existing_db) {
      return absl::InvalidArgumentError("--use_existing_db needs --db");
    }
    c.db = absl::StrCat("/tmp/siftdb-bench-", getpid());
  }
  const int64_t seed = absl::GetFlag(FLAGS_seed);
  c.seed = static_cast<uint64_t>(seed);
  if (seed == 0) {
    c.seed = static_cast<uint64_t>(absl::ToUnixMicros(absl::Now()));
    std::printf("Set seed to %llu because --seed was 0\n",
                static_cast<unsigned long long>(c.seed));
  }
  absl::Status s = SizeOptions(&c);
  if (!s.ok()) return s;
  return c;
}

// Like RocksDB, the machine on stderr and the workload on stdout.
void PrintEnvironment() {
  std::fprintf(stderr, "siftdb:     version %s\n", "0.1.0");
  std::fprintf(stderr, "Date:       %s\n",
               absl::FormatTime("%a %b %e %H:%M:%S %Y", absl::Now(),
                                absl::LocalTimeZone())
                   .c_str());
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model, cache;
  int cpus = 0;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size()) continue;
    const std::string value = line.substr(colon + 2);
    if (line.rfind("model name", 0) == 0) {
      ++cpus;
      model = value;
    } else if (line.rfind("cache size", 0) == 0) {
      cache = value;
    }
  }
  if (cpus > 0) {
    std::fprintf(stderr, "CPU:        %d * %s\n", cpus, model.c_str());
    std::fprintf(stderr, "CPUCache:   %s\n", cache.c_str());
  }
}

void PrintHeader(const BenchConfig& c) {
  PrintEnvironment();
  const double num = static_cast<double>(c.num);
  const double k = static_cast<double>(c.key_size);
  const double v = static_cast<double>(c.value_size);
  std::printf("Keys:       %zu bytes each (+ 0 bytes user-defined timestamp)\n",
              c.key_size);
  std::printf("Values:     %zu bytes each (%d bytes after compression)\n",
              c.value_size, static_cast<int>(v * c.compression_ratio + 0.5));
  std::printf("Entries:    %lld\n", static_cast<long long>(c.num));
  std::printf("Prefix:    0 bytes\nKeys per prefix:    0\n");
  std::printf("RawSize:    %.1f MB (estimated)\n", (k + v) * num / 1048576.0);
  std::printf("FileSize:   %.1f MB (estimated)\n",
              (k + v * c.compression_ratio) * num / 1048576.0);
  std::printf("Write rate: 0 bytes/second\nRead rate: 0 ops/second\n");
  std::printf("Compression: %s\n", c.options.compression == Compression::kSnappy
                                       ? "Snappy"
                                       : "NoCompression");
  std::printf("Memtablerep: SkipList\n");
  const double p = c.options.bloom_filter_fp_chance;
  if (p >= 1) {
    std::printf("Filter:     none (fp chance 1)\n");
  } else {
    std::printf("Filter:     %s Bloom, fp chance %g",
                c.options.filter_layout == FilterLayout::kBlocked ? "blocked"
                                                                  : "standard",
                p);
    if (c.bloom_bits > 0) {
      std::printf(" (from --bloom_bits=%g: a standard Bloom filter's rate)",
                  c.bloom_bits);
    }
    std::printf("\n");
  }
  std::printf("Write buffer: %zu bytes, target file size: %zu bytes\n",
              c.options.write_buffer_size, c.options.max_file_size);
  std::printf("Block size: %zu bytes, block cache: %zu bytes\n",
              c.options.block_size, c.options.block_cache_capacity);
  std::printf("Table reads: %s\n",
              c.options.allow_mmap_reads ? "mmap" : "pread");
#if defined(__GNUC__) && !defined(__OPTIMIZE__)
  std::printf(
      "WARNING: Optimization is disabled: benchmarks unnecessarily "
      "slow\n");
#endif
#ifndef NDEBUG
  std::printf(
      "WARNING: Assertions are enabled; benchmarks unnecessarily "
      "slow\n");
#endif
  std::printf("------------------------------------------------\n");
}

}  // namespace
}  // namespace sift::bench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "siftdb's db_bench: --benchmarks=fillrandom,readrandom,... (see "
      "--helpfull for the flags)");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "db_bench: unexpected argument '%s'\n", rest[1]);
    return 1;
  }
  absl::StatusOr<sift::bench::BenchConfig> config =
      sift::bench::ConfigFromFlags();
  if (!config.ok()) {
    std::fprintf(stderr, "db_bench: %s\n",
                 std::string(config.status().message()).c_str());
    return 1;
  }
  sift::bench::PrintHeader(*config);
  sift::bench::Benchmark bench(*std::move(config));
  absl::Status s = bench.Run();
  if (!s.ok()) {
    std::fprintf(stderr, "db_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
