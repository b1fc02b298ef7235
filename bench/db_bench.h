// db_bench: the RocksDB-style workload driver. db_bench.cc parses the flags
// into a BenchConfig; Benchmark (db_bench_run.cc) runs the listed
// benchmarks in order against one database and prints RocksDB's report
// lines. See db_bench.cc for the flags.

#ifndef SIFT_BENCH_DB_BENCH_H_
#define SIFT_BENCH_DB_BENCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "bench/db_bench_stats.h"
#include "sift/db.h"
#include "sift/options.h"
#include "sift/statistics.h"
#include "util/random.h"

namespace sift::bench {

struct BenchConfig {
  std::vector<std::string> benchmarks;
  int64_t num = 1000000;
  int64_t reads = 1000000;  // resolved: --reads < 0 means num
  size_t key_size = 16;
  size_t value_size = 100;
  std::string db;
  bool use_existing_db = false;
  int threads = 1;
  uint64_t seed = 0;
  double compression_ratio = 0.5;
  // --bloom_bits as given (< 0: not given); the fp chance it implied is in
  // options.bloom_filter_fp_chance.
  double bloom_bits = -1;
  bool statistics = false;
  bool histogram = false;
  int duration = 0;  // seconds; 0: num and reads bound the loops
  Options options;
};

// True if name is a benchmark or meta step db_bench knows.
bool IsKnownBenchmark(std::string_view name);

class Benchmark {
 public:
  explicit Benchmark(BenchConfig config);
  ~Benchmark();

  // Opens (after destroying it, unless --use_existing_db) the database, runs
  // every benchmark, prints the statistics. An error is printed to stderr
  // and ends the run with a non-zero status.
  absl::Status Run();

 private:
  struct ThreadState {
    ThreadState(int tid, uint64_t seed, bool histogram, bool progress)
        : tid(tid), rand(seed), stats(histogram, progress) {}
    int tid;
    Random rand;
    BenchStats stats;
  };
  // Shared by the threads of one benchmark.
  struct Shared;
  using Method = void (Benchmark::*)(ThreadState*, Shared*);

  absl::Status Open();
  absl::Status Fresh();  // destroy and reopen
  void Close();
  absl::Status RunOne(std::string_view name);
  absl::Status RunMeta(std::string_view name);
  // Runs method on n threads at once and prints the merged report line.
  // progress_tid is the thread that prints progress.
  void RunThreads(std::string_view name, int n, Method method,
                  int progress_tid = 0);
  void PrintProperty(std::string_view property);
  void PrintStatistics();

  // Workloads; each records into thread->stats. Errors end the process
  // (there is no sensible way to go on timing a failing database).
  void WriteSeq(ThreadState* thread, Shared* shared);
  void WriteRandom(ThreadState* thread, Shared* shared);
  void DoWrite(ThreadState* thread, bool seq);
  void ReadSequential(ThreadState* thread, Shared* shared);
  void ReadReverse(ThreadState* thread, Shared* shared);
  void ReadRandom(ThreadState* thread, Shared* shared);
  void ReadMissing(ThreadState* thread, Shared* shared);
  void ReadHot(ThreadState* thread, Shared* shared);
  void DoRead(ThreadState* thread, uint64_t key_range, size_t key_size);
  void SeekRandom(ThreadState* thread, Shared* shared);
  void DeleteRandom(ThreadState* thread, Shared* shared);
  void ReadWhileWriting(ThreadState* thread, Shared* shared);
  void Compact(ThreadState* thread, Shared* shared);

  const BenchConfig config_;
  std::unique_ptr<DB> db_;
  // Counters of database instances closed earlier in this run (a fill
  // benchmark recreates the database), so --statistics covers the run.
  Statistics closed_stats_;
  // Per benchmark: the entries to write (fillsync writes num / 1000) and the
  // reads to do; reset from the config before each.
  int64_t num_ = 0;
  int64_t reads_ = 0;
  WriteOptions write_options_;
  uint64_t next_seed_ = 0;  // thread seeds differ across benchmarks
};

}  // namespace sift::bench

#endif  // SIFT_BENCH_DB_BENCH_H_
