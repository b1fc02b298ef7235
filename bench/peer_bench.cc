// peer_bench: one workload driver for siftdb, RocksDB and LevelDB, so the
// three are measured with identical keys, values and settings.
//
//   peer_bench --engine=sift|rocksdb|leveldb --num=1000000 --reads=300000
//
// Workloads, in order: fillrandom (num random keys), waitforcompaction,
// readrandom and readmissing (reads each), then the "misses across many
// files" case: a fresh DB filled in --manyfiles rounds, each flushed to its
// own overlapping level-0 file and kept there (LevelDB compacts them
// anyway: its level-0 trigger is fixed), read with readmissing. Each line:
//   <engine> <workload> : <us/op> micros/op; (<found> of <n> found)

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "bench/db_bench_keys.h"
#include "bench/peer_engines.h"
#include "util/random.h"

ABSL_FLAG(std::string, engine, "sift", "sift, rocksdb or leveldb");
ABSL_FLAG(int64_t, num, 1000000, "keys written by fillrandom");
ABSL_FLAG(int64_t, reads, 300000, "reads per read workload");
ABSL_FLAG(int, key_size, 16, "key bytes");
ABSL_FLAG(int, value_size, 100, "value bytes");
ABSL_FLAG(double, compression_ratio, 0.5, "value compressibility");
ABSL_FLAG(int, manyfiles, 12, "level-0 files of the many-files case (0: skip)");
ABSL_FLAG(std::string, db, "", "directory (default: a fresh one in /tmp)");
ABSL_FLAG(uint64_t, seed, 1, "random seed");
ABSL_FLAG(bool, stats, false,
          "print the engine's own statistics after waitforcompaction");

namespace sift::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point start, int64_t ops) {
  const double us =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  return ops > 0 ? us / static_cast<double>(ops) : 0;
}

void Report(const Engine& e, const char* workload, double us_per_op,
            int64_t found, int64_t n) {
  std::printf("%-8s %-16s : %9.3f micros/op; (%lld of %lld found)\n", e.name(),
              workload, us_per_op, static_cast<long long>(found),
              static_cast<long long>(n));
  std::fflush(stdout);
}

void Fill(Engine* e, int64_t n, uint64_t key_space, uint64_t seed,
          const char* label) {
  Random rnd(seed);
  ValueGenerator values(absl::GetFlag(FLAGS_compression_ratio),
                        absl::GetFlag(FLAGS_value_size));
  std::string key;
  const auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    MakeKey(RandomKeyNum(&rnd, key_space), absl::GetFlag(FLAGS_key_size), &key);
    e->Put(key, values.Generate(absl::GetFlag(FLAGS_value_size)));
  }
  if (label != nullptr) Report(*e, label, Micros(start, n), 0, 0);
}

void Read(Engine* e, uint64_t key_space, bool missing, uint64_t seed,
          const char* label) {
  Random rnd(seed);
  const int64_t n = absl::GetFlag(FLAGS_reads);
  const size_t key_size = absl::GetFlag(FLAGS_key_size) + (missing ? 1 : 0);
  std::string key, value;
  int64_t found = 0;
  const auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    MakeKey(RandomKeyNum(&rnd, key_space), key_size, &key);
    if (e->Get(key, &value)) ++found;
  }
  Report(*e, label, Micros(start, n), found, n);
}

std::unique_ptr<Engine> OpenFresh(const std::string& engine,
                                  const std::string& dir,
                                  const EngineConfig& config) {
  std::filesystem::remove_all(dir);
  std::unique_ptr<Engine> e = NewEngine(engine);
  if (e == nullptr) {
    std::fprintf(stderr, "peer_bench: unknown --engine=%s\n", engine.c_str());
    std::exit(1);
  }
  const std::string error = e->Open(dir, config);
  if (!error.empty()) {
    std::fprintf(stderr, "peer_bench: %s: open %s: %s\n", e->name(),
                 dir.c_str(), error.c_str());
    std::exit(1);
  }
  return e;
}

int Main() {
  const std::string engine = absl::GetFlag(FLAGS_engine);
  std::string dir = absl::GetFlag(FLAGS_db);
  if (dir.empty()) {
    dir = absl::StrFormat("/tmp/peer_bench-%s-%d", engine, getpid());
  }
  const int64_t num = absl::GetFlag(FLAGS_num);
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  EngineConfig config;
  {
    std::unique_ptr<Engine> e = OpenFresh(engine, dir, config);
    Fill(e.get(), num, num, seed, "fillrandom");
    const auto start = Clock::now();
    e->WaitForCompaction();
    std::printf("%-8s %-16s : %9.3f seconds; %s\n", e->name(),
                "waitforcompaction",
                std::chrono::duration<double>(Clock::now() - start).count(),
                e->Describe().c_str());
    if (absl::GetFlag(FLAGS_stats)) std::printf("%s\n", e->Stats().c_str());
    Read(e.get(), num, false, seed + 1, "readrandom");
    Read(e.get(), num, true, seed + 2, "readmissing");
    std::printf("%-8s %-16s : %s\n", e->name(), "after", e->Describe().c_str());
  }
  const int rounds = absl::GetFlag(FLAGS_manyfiles);
  if (rounds > 0) {
    config.hold_level0 = true;
    std::unique_ptr<Engine> e = OpenFresh(engine, dir, config);
    const int64_t per_round = num / 10 / rounds;
    for (int r = 0; r < rounds; ++r) {
      // Every round spans the whole key space: the files overlap.
      Fill(e.get(), per_round, num, seed + 100 + r, nullptr);
      e->Flush();
    }
    Read(e.get(), num, true, seed + 3, "manyfiles-miss");
    std::printf("%-8s %-16s : %s\n", e->name(), "manyfiles",
                e->Describe().c_str());
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace sift::bench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "peer_bench --engine=sift|rocksdb|leveldb [--num=N --reads=N ...]");
  absl::ParseCommandLine(argc, argv);
  return sift::bench::Main();
}
