// db_bench's per-thread measurements and its report line, in RocksDB's
// db_bench format so that scripts written for one parse the other:
//
//   readrandom   :       3.100 micros/op 322580 ops/sec 0.930 seconds
//   300000 operations;   35.7 MB/s (300000 of 300000 found)
//
// (one line). micros/op is the summed busy time of the threads over the
// operations (the latency one thread sees); ops/sec and seconds use the wall
// time from the first thread's start to the last one's finish.

#ifndef SIFT_BENCH_DB_BENCH_STATS_H_
#define SIFT_BENCH_DB_BENCH_STATS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/histogram.h"

namespace sift::bench {

// Nanoseconds on a monotonic clock.
uint64_t NowNanos();

enum class OpKind : int { kWrite = 0, kRead, kSeek, kDelete };
constexpr int kNumOpKinds = 4;

class BenchStats {
 public:
  // histogram: time every operation (one clock read each) for --histogram.
  // report_progress: print "... finished N ops" to stderr as ops complete.
  BenchStats(bool histogram, bool report_progress);

  void Start();
  void Stop();
  void FinishedOps(int64_t n, OpKind kind);
  void AddBytes(int64_t n) { bytes_ += n; }
  // For reads that may miss: prints "(found of total found)".
  void AddFound(int64_t found, int64_t total);
  // This thread's work is not part of the benchmark (the writer of
  // readwhilewriting): Merge ignores it.
  void ExcludeFromMerge() { exclude_from_merge_ = true; }
  void Merge(const BenchStats& other);

  // The report line, then with --histogram one block per operation kind:
  // "Microseconds per read:" and the histogram.
  std::string Report(std::string_view name) const;

  int64_t done() const { return done_; }

 private:
  bool histogram_;
  bool report_progress_;
  bool exclude_from_merge_ = false;
  bool has_found_ = false;
  uint64_t start_ = 0;
  uint64_t finish_ = 0;
  uint64_t last_op_finish_ = 0;
  double seconds_ = 0;  // busy time, summed over merged threads
  int64_t done_ = 0;
  int64_t next_report_ = 100;
  int64_t bytes_ = 0;
  int64_t found_ = 0;
  int64_t found_of_ = 0;
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
