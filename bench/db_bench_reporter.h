// Reporter: db_bench's --report_file, RocksDB's CSV of throughput over time.
// A background thread wakes every --report_interval_seconds and appends one
// line: the seconds since the benchmark started (rounded) and the operations
// all threads finished in that interval, under RocksDB's header
//
//   secs_elapsed,interval_qps
//   1,182913
//   2,190244
//
// (interval_qps is the interval's operation count, RocksDB's meaning: ops/sec
// when the interval is one second.) As in RocksDB the file is rewritten by
// every benchmark, so it holds the last one's. With siftdb's
// --report_latency each line also carries that interval's median and 99th
// percentile latency in microseconds (header
// secs_elapsed,interval_qps,interval_p50_us,interval_p99_us); RocksDB's two
// columns stay first.

#ifndef SIFT_BENCH_DB_BENCH_REPORTER_H_
#define SIFT_BENCH_DB_BENCH_REPORTER_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "util/histogram.h"

namespace sift::bench {

class Reporter {
 public:
  // Creates (truncates) path, writes the header and starts the clock and
  // the reporting thread. num_threads: the benchmark threads that record
  // latencies (one slot each, so they never share a lock).
  static absl::StatusOr<std::unique_ptr<Reporter>> Start(
      const std::string& path, int interval_seconds, bool latency,
      int num_threads);
  // Stops the thread (the last partial interval is not written, as in
  // RocksDB) and closes the file.
  ~Reporter();

  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  bool latency() const { return latency_; }
  // n operations finished on thread tid, the last taking micros (used only
  // with latency()).
  void FinishedOps(int tid, int64_t n, double micros);

 private:
  struct Slot {
    absl::Mutex mu;
    Histogram hist ABSL_GUARDED_BY(mu);
  };

  Reporter(std::FILE* file, int interval_seconds, bool latency,
           int num_threads);
  void Loop();

  std::FILE* const file_;
  const int interval_seconds_;
  const bool latency_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::atomic<int64_t> total_ops_{0};
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace sift::bench

#endif  // SIFT_BENCH_DB_BENCH_REPORTER_H_
