// db_bench: the RocksDB-style workload driver. db_bench_flags.cc parses the
// flags into a BenchConfig; Benchmark runs the listed benchmarks in order
// against one database and prints RocksDB's report lines: the steps and
// threads in db_bench_run.cc, the workloads in db_bench_writes.cc and
// db_bench_reads.cc. db_bench.cc has main and --help.

#ifndef SIFT_BENCH_DB_BENCH_H_
#define SIFT_BENCH_DB_BENCH_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/db_bench_stats.h"
#include "bench/ycsb.h"
#include "sift/db.h"
#include "sift/options.h"
#include "sift/statistics.h"
#include "util/mutex.h"
#include "util/random.h"

namespace sift::bench {

struct BenchConfig {
  std::vector<std::string> benchmarks;
  int64_t num = 1000000;
  int num_column_families = 1;   // key k lives in family k % N
  int64_t reads = 1000000;       // resolved: --reads < 0 means num
  int64_t writes = -1;           // as given: < 0 means the benchmark's num
  int64_t readwrites = 1000000;  // max(reads, writes), or num
  int readwritepercent = 90;
  int64_t batch_size = 1;
  // Range deletions mixed into the fills (0: none), each over this many
  // key numbers, at most this many per thread (0: no limit).
  int64_t writes_per_range_tombstone = 0;
  int64_t range_tombstone_width = 100;
  int64_t max_num_range_tombstones = 0;
  size_t key_size = 16;
  size_t value_size = 100;
  std::string db;
  bool remove_db_at_exit = false;  // db is our default, not the user's
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
  bool sync = false;
  int stats_interval_seconds = 0;
  int report_interval_seconds = 0;
  std::string report_file;
  bool report_latency = false;
  ycsb::Config ycsb;  // the --ycsb_* flags (db_bench_ycsb.cc)
  Options options;
};

// The command line, checked: an error names the flag and its value.
absl::StatusOr<BenchConfig> ConfigFromFlags();

// True if name is a benchmark or meta step db_bench knows.
bool IsKnownBenchmark(std::string_view name);

// Prints "<what> error: <status>" and ends the process with status 1: a
// workload cannot go on timing a failing database.
[[noreturn]] void Fatal(std::string_view what, const absl::Status& s);

// "  name  what it does" lines of every benchmark and meta step, for --help.
std::string BenchmarkHelp();

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
    ThreadState(int tid, uint64_t seed, const StatsOptions& options)
        : tid(tid), rand(seed), stats(tid, options) {}
    int tid;
    Random rand;
    BenchStats stats;
  };
  // Shared by the threads of one benchmark: a start gate, so every
  // thread's clock starts together, and the count of readers done (the
  // *whilewriting writer stops at the last).
  struct Shared {
    Mutex mu;
    CondVar cv;
    int ready ABSL_GUARDED_BY(mu) = 0;
    bool go ABSL_GUARDED_BY(mu) = false;
    std::atomic<int> readers_done{0};
    int num_readers = 0;
  };
  using Method = void (Benchmark::*)(ThreadState*, Shared*);

  absl::Status Open();
  absl::Status Fresh();  // destroy and reopen
  void Close();
  absl::Status RunOne(std::string_view name);
  absl::Status RunMeta(std::string_view name);
  // Runs method on n threads at once and prints the line of the merged
  // stats of every thread but those excluded from the merge. report_tid is
  // the thread that prints progress. An error: --report_file cannot be
  // created.
  absl::Status RunThreads(std::string_view name, int n, Method method,
                          int report_tid);
  void PrintProperty(std::string_view property);
  void PrintStatistics();

  // Workloads; each records into thread->stats. Errors end the process
  // (there is no sensible way to go on timing a failing database).
  // db_bench_writes.cc:
  void WriteSeq(ThreadState* thread, Shared* shared);
  void WriteRandom(ThreadState* thread, Shared* shared);
  void DoWrite(ThreadState* thread, bool seq);
  void DeleteSeq(ThreadState* thread, Shared* shared);
  void DeleteRandom(ThreadState* thread, Shared* shared);
  void DoDelete(ThreadState* thread, bool seq);
  void UpdateRandom(ThreadState* thread, Shared* shared);
  void ReadRandomWriteRandom(ThreadState* thread, Shared* shared);
  // The writer of the *whilewriting benchmarks, thread 0: random
  // overwrites until every reader is done.
  void BackgroundWriter(ThreadState* thread, Shared* shared);
  void Compact(ThreadState* thread, Shared* shared);
  void RebuildFilters(ThreadState* thread, Shared* shared);
  // db_bench_reads.cc:
  void ReadSequential(ThreadState* thread, Shared* shared);
  void ReadReverse(ThreadState* thread, Shared* shared);
  void ReadRandom(ThreadState* thread, Shared* shared);
  void ReadMissing(ThreadState* thread, Shared* shared);
  void ReadHot(ThreadState* thread, Shared* shared);
  void DoRead(ThreadState* thread, uint64_t key_range, size_t key_size);
  void MultiReadRandom(ThreadState* thread, Shared* shared);
  void MultiReadMissing(ThreadState* thread, Shared* shared);
  void DoMultiRead(ThreadState* thread, size_t key_size);
  void SeekRandom(ThreadState* thread, Shared* shared);
  void NewIterators(ThreadState* thread, Shared* shared);
  void ReadWhileWriting(ThreadState* thread, Shared* shared);
  void SeekRandomWhileWriting(ThreadState* thread, Shared* shared);
  // db_bench_ycsb.cc: ycsbload and ycsba .. ycsbf on --threads threads,
  // then YCSB's latency lines of the merged threads.
  absl::Status RunYcsb(std::string_view name);
  void YcsbThread(ThreadState* thread, Shared* shared);

  // The family key number k is written to and read from
  // (--num_column_families).
  // One family needs no division (a miss costs ~170 ns: a division is
  // measurable there).
  ColumnFamilyHandle* FamilyOf(uint64_t k) const {
    return families_.size() == 1 ? families_[0]
                                 : families_[k % families_.size()];
  }

  const BenchConfig config_;
  std::unique_ptr<DB> db_;
  // The families beyond default, closed before db_; families_ lists every
  // family, default first.
  std::vector<std::unique_ptr<ColumnFamilyHandle>> handles_;
  std::vector<ColumnFamilyHandle*> families_;
  // Counters of database instances closed earlier in this run (a fill
  // benchmark recreates the database), so --statistics covers the run;
  // resetstats moves the zero to the counters it saw.
  Statistics closed_stats_;
  Statistics reset_baseline_;
  // Per benchmark: the entries to write (fillsync writes num / 1000) and the
  // reads to do; reset from the config before each.
  int64_t num_ = 0;
  int64_t reads_ = 0;
  int64_t writes_ = 0;
  size_t value_size_ = 0;
  WriteOptions write_options_;
  ReadOptions read_options_;
  uint64_t next_seed_ = 0;  // thread seeds differ across benchmarks
  // The YCSB session (insert numbers continue from run to run), the
  // workload of the running ycsb benchmark (none: the load) and its
  // threads' merged results.
  std::unique_ptr<ycsb::Session> ycsb_session_;
  std::optional<ycsb::Workload> ycsb_workload_;
  Mutex ycsb_mu_;
  ycsb::Results ycsb_results_ ABSL_GUARDED_BY(ycsb_mu_);
};

}  // namespace sift::bench

#endif  // SIFT_BENCH_DB_BENCH_H_
