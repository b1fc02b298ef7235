// db_bench: siftdb's workload driver, flag- and output-compatible with
// RocksDB's db_bench, so that scripts move between the two without edits.
//
//   build/bin/db_bench --num=1000000 --reads=300000 --statistics=1
//     --benchmarks=fillrandom,waitforcompaction,readrandom,readmissing,stats
//
// --help lists the benchmarks and the flags (db_bench_flags.cc). An unknown
// or refused flag or benchmark is an error (exit 1) before anything runs.
// Without --db the database is a fresh directory under the system temp
// directory, removed at exit.

#include "bench/db_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "sift/rate_limiter.h"
#include "util/filter.h"

namespace sift::bench {
namespace {

bool IsHelpFlag(std::string_view arg) {
  for (std::string_view h : {"--help", "-help", "--helpfull", "-helpfull",
                             "--helpshort", "-helpshort", "-h"}) {
    if (arg == h) return true;
  }
  return false;
}

// RocksDB's db_bench answers --help with its flags and exit 0; so does this
// one, adding the benchmark list. (Abseil's own --help exits 1 and names
// each flag's source file by its absolute path at build time.)
void PrintHelp() {
  std::printf(
      "db_bench: siftdb's workload driver, with RocksDB's db_bench flags, "
      "benchmarks and report lines.\n\n"
      "Usage: db_bench --benchmarks=fillrandom,readrandom,... [--flag=value "
      "...]\n\nBenchmarks (run in the order given; --num, --reads and "
      "--writes count per thread):\n%s\nFlags:\n",
      BenchmarkHelp().c_str());
  std::vector<absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    // Only db_bench's own flags, not the libraries' (--flagfile etc.).
    const std::string file = flag->Filename();
    if (file.find("db_bench") != std::string::npos ||
        file.find("ycsb_flags") != std::string::npos) {
      flags.push_back(flag);
    }
  }
  std::sort(flags.begin(), flags.end(),
            [](auto* a, auto* b) { return a->Name() < b->Name(); });
  for (const absl::CommandLineFlag* f : flags) {
    std::string def = f->DefaultValue();
    if (def.empty()) def = "\"\"";
    std::printf("  --%s (default: %s)\n      %s\n",
                std::string(f->Name()).c_str(), def.c_str(), f->Help().c_str());
  }
}

// The default --db: removed at exit, however the process exits.
std::string* default_db = nullptr;

void RemoveDefaultDb() {
  if (default_db == nullptr) return;
  std::error_code ec;
  std::filesystem::remove_all(*default_db, ec);
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
    std::printf("Filter:     %s, fp chance %g",
                FilterLayoutName(c.options.filter_layout), p);
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
  if (c.options.rate_limiter != nullptr) {
    std::printf(
        "Rate limiter: %lld bytes/second for flushes and "
        "compactions\n",
        static_cast<long long>(c.options.rate_limiter->GetBytesPerSecond()));
  }
  if (std::any_of(
          c.benchmarks.begin(), c.benchmarks.end(),
          [](const std::string& b) { return b.rfind("ycsb", 0) == 0; })) {
    const ycsb::Config& y = c.ycsb;
    std::printf(
        "YCSB:       %llu records of %d fields x %d bytes, %llu operations "
        "per workload over all threads, request distribution %s\n",
        static_cast<unsigned long long>(y.record_count), y.field_count,
        y.field_length, static_cast<unsigned long long>(y.operation_count),
        y.distribution.has_value() ? ycsb::DistributionName(*y.distribution)
                                   : "of each workload");
  }
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
  for (int i = 1; i < argc; ++i) {
    if (sift::bench::IsHelpFlag(argv[i])) {
      sift::bench::PrintHelp();
      return 0;
    }
  }
  absl::SetProgramUsageMessage(
      "siftdb's db_bench: --benchmarks=fillrandom,readrandom,... (--help "
      "lists the benchmarks and flags)");
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
  if (config->remove_db_at_exit) {
    sift::bench::default_db = new std::string(config->db);
    std::atexit(sift::bench::RemoveDefaultDb);
  }
  sift::bench::PrintHeader(*config);
  absl::Status s;
  {
    sift::bench::Benchmark bench(*std::move(config));
    s = bench.Run();
  }  // the database is closed before the exit handler removes it
  if (!s.ok()) {
    std::fprintf(stderr, "db_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
