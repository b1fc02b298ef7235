// db_bench's per-thread measurements and its report line, in RocksDB's
// db_bench format so that scripts written for one parse the other:
//
//   readrandom   :       3.100 micros/op 322580 ops/sec 0.930 seconds
//   300000 operations;   35.7 MB/s (300000 of 300000 found)
//
// (one line). As in RocksDB, with --threads=N every thread does the whole
// count and the threads' stats are merged: operations and bytes are summed,
// micros/op is the threads' summed busy time over the summed operations
// (the latency one thread sees), and ops/sec, MB/s and seconds use the wall
// time from the first thread's start to the last one's finish.

#ifndef SIFT_BENCH_DB_BENCH_STATS_H_
#define SIFT_BENCH_DB_BENCH_STATS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/histogram.h"

namespace sift::bench {

class Reporter;

// Nanoseconds on a monotonic clock.
uint64_t NowNanos();

// RocksDB's operation types, named as its histograms are ("Microseconds per
// read:"); kOther is anything else (an iterator created, a compaction).
enum class OpKind : int { kWrite = 0, kRead, kSeek, kDelete, kUpdate, kOther };
constexpr int kNumOpKinds = 6;

// What the report line says after the rates, summed over threads.
enum class Message {
  kNone,
  kFound,      // "(F of N found)"
  kReadWrite,  // "( reads:R writes:W total:T found:F)"
  kUpdate,     // "( updates:U found:F)"
};

struct StatsOptions {
  bool histogram = false;  // time every operation for --histogram
  bool progress = false;   // this thread prints progress to stderr
  // > 0: progress is RocksDB's interval line every this many seconds
  // (--stats_interval_seconds) instead of "... finished N ops".
  int stats_interval_seconds = 0;
  Reporter* reporter = nullptr;  // --report_file, shared by the threads
};

class BenchStats {
 public:
  BenchStats(int tid, const StatsOptions& options);

  void Start();
  void Stop();
  void FinishedOps(int64_t n, OpKind kind);
  void AddBytes(int64_t n) { bytes_ += n; }
  // Reads that may miss: "(found of total found)".
  void AddFound(int64_t found, int64_t total);
  // readrandomwriterandom: "( reads:R writes:W total:T found:F)".
  void AddReadWrite(int64_t reads, int64_t writes, int64_t total,
                    int64_t found);
  // updaterandom: "( updates:U found:F)".
  void AddUpdates(int64_t updates, int64_t found);
  // This thread's work is not part of the benchmark (the writer of
  // readwhilewriting): Merge ignores it.
  void ExcludeFromMerge() { exclude_from_merge_ = true; }
  void Merge(const BenchStats& other);

  // The report line, then with --histogram one block per operation kind:
  // "Microseconds per read:" and the histogram.
  std::string Report(std::string_view name) const;

  int64_t done() const { return done_; }

 private:
  void ReportProgress();

  const int tid_;
  const StatsOptions options_;
  bool exclude_from_merge_ = false;
  Message message_ = Message::kNone;
  uint64_t start_ = 0;
  uint64_t finish_ = 0;
  uint64_t last_op_finish_ = 0;
  double seconds_ = 0;  // busy time, summed over merged threads
  int64_t done_ = 0;
  int64_t next_report_ = 100;
  int64_t bytes_ = 0;
  // Message counters.
  int64_t found_ = 0;
  int64_t found_of_ = 0;
  int64_t reads_ = 0;
  int64_t writes_ = 0;
  int64_t updates_ = 0;
  // --stats_interval_seconds: the last interval line.
  uint64_t last_report_finish_ = 0;
  int64_t last_report_done_ = 0;
  std::array<Histogram, kNumOpKinds> hist_;
};

// Bounds a loop by operations, or by seconds when max_seconds > 0 (then the
// clock is read every 100 operations).
class Duration {
 public:
  Duration(int max_seconds, int64_t max_ops)
      : max_ops_(max_ops),
        deadline_(max_seconds > 0
                      ? NowNanos() + static_cast<uint64_t>(max_seconds) * 1e9
                      : 0) {}

  // Counts `increment` more operations; true when the loop should stop
  // before doing them.
  bool Done(int64_t increment) {
    ops_ += increment;
    if (deadline_ == 0) return ops_ > max_ops_;
    constexpr int64_t kCheckEvery = 100;
    if (ops_ / kCheckEvery == (ops_ - increment) / kCheckEvery) return false;
    return NowNanos() >= deadline_;
  }

 private:
  const int64_t max_ops_;
  const uint64_t deadline_;
  int64_t ops_ = 0;
};

}  // namespace sift::bench

#endif  // SIFT_BENCH_DB_BENCH_STATS_H_
