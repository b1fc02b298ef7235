// db_bench's flags: RocksDB's names, defaults and meanings (where siftdb's
// default differs, the flag's help says so), parsed into a BenchConfig. A
// RocksDB flag siftdb cannot honour is refused by name with the reason,
// never ignored; one that only tunes what siftdb does not have (perf
// counters, a background thread pool) is accepted and its help says what it
// maps to. siftdb's own flags (filter fp chance and layout,
// --report_latency) are extra.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/db_bench.h"
#include "bench/ycsb_flags.h"
#include "db/dbformat.h"
#include "sift/rate_limiter.h"
#include "util/cache.h"
#include "util/filter.h"

// ---- the workload ----------------------------------------------------------
ABSL_FLAG(std::string, benchmarks,
          "fillseq,fillsync,fillrandom,overwrite,readrandom,readmissing,"
          "readseq,readreverse,readhot,seekrandom,readwhilewriting,"
          "deleterandom,stats",
          "Comma-separated list of benchmarks to run, in order (see the "
          "list above).");
ABSL_FLAG(int64_t, num, 1000000, "Number of key/values to place in database.");
ABSL_FLAG(int64_t, reads, -1,
          "Number of read operations to do (per thread). If negative, do "
          "--num reads.");
ABSL_FLAG(int64_t, writes, -1,
          "Number of write operations to do (per thread). If negative, do "
          "--num writes.");
ABSL_FLAG(int32_t, readwritepercent, 90,
          "Ratio of reads to reads/writes (expressed as percentage) for the "
          "readrandomwriterandom benchmark.");
ABSL_FLAG(int64_t, batch_size, 1,
          "Batch size: entries per WriteBatch for the fill, overwrite and "
          "delete benchmarks; keys per DB::MultiGet for multireadrandom and "
          "multireadmissing.");
ABSL_FLAG(int64_t, writes_per_range_tombstone, 0,
          "As RocksDB's: the fill and overwrite benchmarks issue one "
          "DB::DeleteRange after every this many entries written (per "
          "thread); 0: none.");
ABSL_FLAG(int64_t, range_tombstone_width, 100,
          "Key numbers each of those range deletions covers: [k, k + width) "
          "from a random k below --num.");
ABSL_FLAG(int64_t, max_num_range_tombstones, 0,
          "At most this many range deletions per thread and benchmark; 0: "
          "no limit.");
ABSL_FLAG(int32_t, key_size, 16, "Size of each key (at least 8).");
ABSL_FLAG(int32_t, value_size, 100, "Size of each value.");
ABSL_FLAG(double, compression_ratio, 0.5,
          "Arrange to generate values that shrink to this fraction of their "
          "original size after compression.");
ABSL_FLAG(int32_t, threads, 1,
          "Number of concurrent threads to run; each does the whole count "
          "with its own seed (readwhilewriting: this many readers plus one "
          "writer).");
ABSL_FLAG(int64_t, seed, 0,
          "Seed base for random number generators (thread i of a benchmark "
          "gets seed + a count). When 0 it is derived from the current "
          "time.");
ABSL_FLAG(int32_t, duration, 0,
          "Time in seconds for the random-ops tests to run. When 0 then num "
          "and reads determine the test duration.");
ABSL_FLAG(std::string, db, "",
          "Use the db with the following name. Default: a fresh directory "
          "siftdb-bench-<pid> under the system temp directory ($TMPDIR), "
          "removed at exit.");
ABSL_FLAG(int32_t, num_column_families, 1,
          "Number of column families to use: key k is written to and read "
          "from family k % N (\"default\", then column_family_name_000001, "
          "...), each with the same options. Iterators read \"default\".");
ABSL_FLAG(bool, use_existing_db, false,
          "If true, do not destroy the existing database (needs --db). "
          "Benchmarks that need a fresh database (fill*) are skipped.");

// ---- writes ----------------------------------------------------------------
ABSL_FLAG(bool, sync, false, "Sync all writes to disk (WriteOptions::sync).");
ABSL_FLAG(bool, disable_wal, false,
          "If true, do not write WAL for write. siftdb always writes its "
          "log: true is refused.");

// ---- reads -----------------------------------------------------------------
ABSL_FLAG(bool, mmap_read, sift::Options().allow_mmap_reads,
          "Read table files through memory maps (Options::allow_mmap_reads) "
          "instead of pread.");
ABSL_FLAG(bool, verify_checksum, true,
          "Accepted for RocksDB's command lines; no effect: siftdb checks "
          "the CRC of every block it reads from storage, always.");

// ---- options ---------------------------------------------------------------
ABSL_FLAG(int64_t, write_buffer_size,
          static_cast<int64_t>(sift::Options().write_buffer_size),
          "Bytes to buffer in the memtable before flushing to a file.");
ABSL_FLAG(int64_t, target_file_size_base,
          static_cast<int64_t>(sift::Options().max_file_size),
          "Target size of one SSTable (Options::max_file_size).");
ABSL_FLAG(int32_t, num_levels, sift::config::kNumLevels,
          "The total number of levels. siftdb's is fixed at 7 (RocksDB's "
          "default); another value is refused.");
ABSL_FLAG(int64_t, max_bytes_for_level_base,
          static_cast<int64_t>(sift::Options().max_bytes_for_level_base),
          "Max bytes for level-1 (Options::max_bytes_for_level_base, at "
          "least 1 KiB).");
ABSL_FLAG(double, max_bytes_for_level_multiplier,
          sift::Options().max_bytes_for_level_multiplier,
          "A multiplier to compute max bytes for level-N (N >= 2), in [2, "
          "100].");
ABSL_FLAG(int32_t, level0_file_num_compaction_trigger,
          sift::Options().level0_compaction_trigger,
          "Level-0 files that start a compaction "
          "(Options::level0_compaction_trigger).");
ABSL_FLAG(int32_t, level0_slowdown_writes_trigger,
          sift::Options().level0_slowdown_writes_trigger,
          "Level-0 files at which writes are slowed to --delayed_write_rate.");
ABSL_FLAG(uint64_t, delayed_write_rate, sift::Options().delayed_write_rate,
          "Bytes per second writes may enter at while level 0 is at or past "
          "--level0_slowdown_writes_trigger (Options::delayed_write_rate).");
ABSL_FLAG(int32_t, level0_stop_writes_trigger,
          sift::Options().level0_stop_writes_trigger,
          "Level-0 files at which writes wait for compaction.");
ABSL_FLAG(int32_t, max_background_jobs, 2,
          "Background threads for flushes and compactions "
          "(Options::max_background_jobs; with N >= 2, at most N - 1 "
          "compact, so one is free to flush).");
ABSL_FLAG(int32_t, subcompactions, sift::Options().max_subcompactions,
          "Threads that share one large level-0 -> level-1 compaction, each "
          "merging its own key range (Options::max_subcompactions).");
ABSL_FLAG(int64_t, rate_limiter_bytes_per_sec, 0,
          "Cap on the bytes per second flushes and compactions write "
          "(Options::rate_limiter from NewGenericRateLimiter); 0: no cap.");
ABSL_FLAG(int64_t, rate_limiter_refill_period_us, 100 * 1000,
          "How often the rate limiter adds its next rate x period bytes.");
ABSL_FLAG(int32_t, open_files, sift::Options().max_open_files,
          "Maximum number of files to keep open at the same time "
          "(Options::max_open_files, at least 10). -1: every file "
          "(RocksDB's meaning); 0: the default.");
ABSL_FLAG(int64_t, cache_size,
          static_cast<int64_t>(sift::Options().block_cache_capacity),
          "Bytes of uncompressed data blocks to cache.");
ABSL_FLAG(int32_t, cache_numshardbits, -1,
          "Number of shards for the block cache is 2 ** cache_numshardbits. "
          "-1: automatic. siftdb's cache has a fixed 2 ** 4 shards (fewer "
          "for a tiny cache): -1 and 4 are accepted, others refused.");
ABSL_FLAG(int64_t, block_size, static_cast<int64_t>(sift::Options().block_size),
          "Bytes of user data per data block.");
ABSL_FLAG(int32_t, block_restart_interval,
          sift::Options().block_restart_interval,
          "Number of keys between restart points for delta encoding of keys "
          "in data block.");
ABSL_FLAG(std::string, compression_type, "snappy",
          "Algorithm to use to compress the database: none or snappy "
          "(others are refused).");
ABSL_FLAG(double, bloom_bits, -1,
          "Bloom filter bits per key, RocksDB's meaning: the filter is built "
          "for the false-positive chance of a standard Bloom filter with "
          "this many bits per key. Negative means use the default (or "
          "--bloom_filter_fp_chance). Zero disables filters.");
ABSL_FLAG(std::optional<double>, bloom_filter_fp_chance, std::nullopt,
          "siftdb: false-positive chance new filters are built for, in (0, "
          "1]; 1.0 writes no filters. Default: Options' (0.01). Not with "
          "--bloom_bits.");
ABSL_FLAG(std::string, filter_layout, "blocked",
          "siftdb: layout of new filters: blocked (one cache line per probe), "
          "standard or ribbon (about 30% smaller, slower to build and probe; "
          "blocked for flushes, see Options::bloom_before_level).");
ABSL_FLAG(int32_t, bloom_before_level, 1,
          "siftdb: with --filter_layout=ribbon, files written to levels "
          "below this one (and flushes) get blocked Bloom filters; 0: Ribbon "
          "everywhere (Options::bloom_before_level).");
ABSL_FLAG(double, filter_bits_per_key_budget, 0,
          "siftdb: > 0 sizes each new file's filter from a per-level "
          "allocation of this many filter bits per key "
          "(Options::filter_bits_per_key_budget); not with --bloom_bits or "
          "--bloom_filter_fp_chance. 0: off.");

// ---- reporting -------------------------------------------------------------
ABSL_FLAG(bool, statistics, false,
          "Print the database statistics at the end of the run, with the "
          "observed filter false-positive rate.");
ABSL_FLAG(bool, histogram, false,
          "Print histogram of operation timings (with P50 ... P99.99).");
ABSL_FLAG(int64_t, stats_interval_seconds, 0,
          "Report stats every N seconds: each thread prints a line of its "
          "operations and ops/second in the interval and in total to "
          "stderr. 0: progress lines instead.");
ABSL_FLAG(int64_t, report_interval_seconds, 0,
          "If greater than zero, it will write simple stats in CSV format "
          "to --report_file every N seconds.");
ABSL_FLAG(std::string, report_file, "report.csv",
          "Filename where some simple stats are reported to (if "
          "--report_interval_seconds is bigger than 0): the header "
          "secs_elapsed,interval_qps, then one line per interval.");
ABSL_FLAG(bool, report_latency, false,
          "siftdb: --report_file lines also carry the interval's P50 and P99 "
          "latency in microseconds (two more columns).");
ABSL_FLAG(int32_t, perf_level, 1,
          "Level of perf collection (RocksDB's PerfLevel, 0-5). siftdb has "
          "no perf context: accepted, nothing is collected.");

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
  if (!ParseFilterLayout(layout, &c->options.filter_layout)) {
    return Bad("filter_layout", layout, "must be blocked, standard or ribbon");
  }
  c->options.bloom_before_level = absl::GetFlag(FLAGS_bloom_before_level);
  const double budget = absl::GetFlag(FLAGS_filter_bits_per_key_budget);
  if (budget != 0 && (fp.has_value() || c->bloom_bits >= 0)) {
    return absl::InvalidArgumentError(
        "--filter_bits_per_key_budget replaces --bloom_bits and "
        "--bloom_filter_fp_chance: give one");
  }
  // DB::Open checks the value and names it.
  c->options.filter_bits_per_key_budget = budget;
  return absl::OkStatus();
}

// The level shape: siftdb's levels are fixed in number; the size of level 1
// and the growth factor are Options (DB::Open checks their ranges and names
// the field).
absl::Status LevelOptions(BenchConfig* c) {
  const int32_t levels = absl::GetFlag(FLAGS_num_levels);
  if (levels != config::kNumLevels) {
    return Bad("num_levels", levels, "siftdb's number of levels is fixed at 7");
  }
  const int64_t base = absl::GetFlag(FLAGS_max_bytes_for_level_base);
  if (base <= 0) return Bad("max_bytes_for_level_base", base, "must be > 0");
  c->options.max_bytes_for_level_base = static_cast<uint64_t>(base);
  c->options.max_bytes_for_level_multiplier =
      absl::GetFlag(FLAGS_max_bytes_for_level_multiplier);
  return absl::OkStatus();
}

absl::Status EngineOptions(BenchConfig* c) {
  const int32_t open_files = absl::GetFlag(FLAGS_open_files);
  if (open_files == -1) {
    c->options.max_open_files = 1 << 20;  // more files than any run makes
  } else if (open_files != 0) {
    if (open_files < 10) {
      return Bad("open_files", open_files, "must be -1, 0 or at least 10");
    }
    c->options.max_open_files = open_files;
  }
  c->options.block_restart_interval =
      absl::GetFlag(FLAGS_block_restart_interval);
  if (c->options.block_restart_interval < 1) {
    return Bad("block_restart_interval", c->options.block_restart_interval,
               "must be at least 1");
  }
  const int32_t shard_bits = absl::GetFlag(FLAGS_cache_numshardbits);
  if (shard_bits != -1 && shard_bits != LruCache<int>::kShardBits) {
    return Bad("cache_numshardbits", shard_bits,
               "siftdb's block cache has a fixed 2^4 shards: give -1 or 4");
  }
  const int64_t rate = absl::GetFlag(FLAGS_rate_limiter_bytes_per_sec);
  const int64_t refill = absl::GetFlag(FLAGS_rate_limiter_refill_period_us);
  if (rate < 0) return Bad("rate_limiter_bytes_per_sec", rate, "is negative");
  if (refill <= 0) {
    return Bad("rate_limiter_refill_period_us", refill, "must be > 0");
  }
  if (rate > 0) c->options.rate_limiter = NewGenericRateLimiter(rate, refill);
  const int32_t jobs = absl::GetFlag(FLAGS_max_background_jobs);
  if (jobs < 1 || jobs > 64) {
    return Bad("max_background_jobs", jobs, "must be in [1, 64]");
  }
  c->options.max_background_jobs = jobs;
  const int32_t subcompactions = absl::GetFlag(FLAGS_subcompactions);
  if (subcompactions < 1 || subcompactions > 64) {
    return Bad("subcompactions", subcompactions, "must be in [1, 64]");
  }
  c->options.max_subcompactions = subcompactions;
  const int32_t perf = absl::GetFlag(FLAGS_perf_level);
  if (perf < 0 || perf > 5) return Bad("perf_level", perf, "must be in [0, 5]");
  if (absl::GetFlag(FLAGS_disable_wal)) {
    return Bad("disable_wal", "true",
               "siftdb always writes its write-ahead log (there is no "
               "WriteOptions to skip it)");
  }
  c->sync = absl::GetFlag(FLAGS_sync);
  (void)absl::GetFlag(FLAGS_verify_checksum);  // always on, see its help
  c->options.allow_mmap_reads = absl::GetFlag(FLAGS_mmap_read);
  return LevelOptions(c);
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
  c->options.delayed_write_rate = absl::GetFlag(FLAGS_delayed_write_rate);
  const std::string comp = absl::GetFlag(FLAGS_compression_type);
  if (comp == "snappy") {
    c->options.compression = Compression::kSnappy;
  } else if (comp == "none") {
    c->options.compression = Compression::kNone;
  } else {
    return Bad("compression_type", comp,
               "siftdb compresses with snappy or none only");
  }
  absl::Status s = FilterOptions(c);
  if (!s.ok()) return s;
  return EngineOptions(c);
}

absl::Status ReportOptions(BenchConfig* c) {
  c->statistics = absl::GetFlag(FLAGS_statistics);
  c->histogram = absl::GetFlag(FLAGS_histogram);
  const int64_t stats_interval = absl::GetFlag(FLAGS_stats_interval_seconds);
  const int64_t report_interval = absl::GetFlag(FLAGS_report_interval_seconds);
  if (stats_interval < 0 || stats_interval > 86400) {
    return Bad("stats_interval_seconds", stats_interval,
               "must be in [0, 86400]");
  }
  if (report_interval < 0 || report_interval > 86400) {
    return Bad("report_interval_seconds", report_interval,
               "must be in [0, 86400]");
  }
  c->stats_interval_seconds = static_cast<int>(stats_interval);
  c->report_interval_seconds = static_cast<int>(report_interval);
  c->report_file = absl::GetFlag(FLAGS_report_file);
  c->report_latency = absl::GetFlag(FLAGS_report_latency);
  if (c->report_interval_seconds > 0 && c->report_file.empty()) {
    return absl::InvalidArgumentError(
        "--report_interval_seconds needs a --report_file");
  }
  return absl::OkStatus();
}

absl::Status Benchmarks(BenchConfig* c) {
  for (absl::string_view b : absl::StrSplit(absl::GetFlag(FLAGS_benchmarks),
                                            ',', absl::SkipWhitespace())) {
    std::string name(b);
    if (!IsKnownBenchmark(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown benchmark '", name, "' (--help lists them)"));
    }
    c->benchmarks.push_back(std::move(name));
  }
  return absl::OkStatus();
}

absl::Status Counts(BenchConfig* c) {
  c->num = absl::GetFlag(FLAGS_num);
  if (c->num < 1) return Bad("num", c->num, "must be at least 1");
  c->num_column_families = absl::GetFlag(FLAGS_num_column_families);
  if (c->num_column_families < 1) {
    return Bad("num_column_families", c->num_column_families,
               "must be at least 1");
  }
  const int64_t reads = absl::GetFlag(FLAGS_reads);
  c->reads = reads < 0 ? c->num : reads;
  c->writes = absl::GetFlag(FLAGS_writes);
  // readrandomwriterandom and updaterandom run the larger of the two, as
  // RocksDB's (--num when neither is given).
  c->readwrites =
      reads < 0 && c->writes < 0 ? c->num : std::max(reads, c->writes);
  c->readwritepercent = absl::GetFlag(FLAGS_readwritepercent);
  if (c->readwritepercent < 0 || c->readwritepercent > 100) {
    return Bad("readwritepercent", c->readwritepercent, "must be in [0, 100]");
  }
  c->batch_size = absl::GetFlag(FLAGS_batch_size);
  if (c->batch_size < 1)
    return Bad("batch_size", c->batch_size, "must be >= 1");
  c->writes_per_range_tombstone =
      absl::GetFlag(FLAGS_writes_per_range_tombstone);
  if (c->writes_per_range_tombstone < 0) {
    return Bad("writes_per_range_tombstone", c->writes_per_range_tombstone,
               "is negative");
  }
  c->range_tombstone_width = absl::GetFlag(FLAGS_range_tombstone_width);
  if (c->range_tombstone_width < 1) {
    return Bad("range_tombstone_width", c->range_tombstone_width,
               "must be at least 1");
  }
  c->max_num_range_tombstones = absl::GetFlag(FLAGS_max_num_range_tombstones);
  if (c->max_num_range_tombstones < 0) {
    return Bad("max_num_range_tombstones", c->max_num_range_tombstones,
               "is negative");
  }
  const int32_t key_size = absl::GetFlag(FLAGS_key_size);
  if (key_size < 8) {
    return Bad("key_size", key_size,
               "must be at least 8 (the key number is 8 bytes)");
  }
  c->key_size = static_cast<size_t>(key_size);
  const int32_t value_size = absl::GetFlag(FLAGS_value_size);
  if (value_size < 0) return Bad("value_size", value_size, "is negative");
  c->value_size = static_cast<size_t>(value_size);
  c->threads = absl::GetFlag(FLAGS_threads);
  if (c->threads < 1) return Bad("threads", c->threads, "must be at least 1");
  c->compression_ratio = absl::GetFlag(FLAGS_compression_ratio);
  if (!(c->compression_ratio > 0 && c->compression_ratio <= 1)) {
    return Bad("compression_ratio", c->compression_ratio, "must be in (0, 1]");
  }
  c->duration = absl::GetFlag(FLAGS_duration);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BenchConfig> ConfigFromFlags() {
  BenchConfig c;
  for (auto step : {Benchmarks, Counts, SizeOptions, ReportOptions}) {
    absl::Status s = step(&c);
    if (!s.ok()) return s;
  }
  absl::Status s = YcsbConfigFromFlags(&c.ycsb);
  if (!s.ok()) return s;
  c.use_existing_db = absl::GetFlag(FLAGS_use_existing_db);
  c.db = absl::GetFlag(FLAGS_db);
  if (c.db.empty()) {
    if (c.use_existing_db) {
      return absl::InvalidArgumentError("--use_existing_db needs --db");
    }
    std::error_code ec;
    const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
    c.db = ((ec ? std::filesystem::path("/tmp") : tmp) /
            absl::StrCat("siftdb-bench-", getpid()))
               .string();
    c.remove_db_at_exit = true;
  }
  const int64_t seed = absl::GetFlag(FLAGS_seed);
  c.seed = static_cast<uint64_t>(seed);
  if (seed == 0) {
    c.seed = static_cast<uint64_t>(absl::ToUnixMicros(absl::Now()));
    std::printf("Set seed to %llu because --seed was 0\n",
                static_cast<unsigned long long>(c.seed));
  }
  return c;
}

}  // namespace sift::bench
