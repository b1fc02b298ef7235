#include "bench/db_bench_stats.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/strings/str_format.h"

namespace sift::bench {

uint64_t NowNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

BenchStats::BenchStats(bool histogram, bool report_progress)
    : histogram_(histogram), report_progress_(report_progress) {
  Start();
}

void BenchStats::Start() {
  start_ = NowNanos();
  last_op_finish_ = start_;
  finish_ = start_;
}

void BenchStats::Stop() {
  finish_ = NowNanos();
  seconds_ = static_cast<double>(finish_ - start_) * 1e-9;
}

void BenchStats::FinishedOps(int64_t n, OpKind kind) {
  if (histogram_) {
    const uint64_t now = NowNanos();
    hist_[static_cast<int>(kind)].Add(
        static_cast<double>(now - last_op_finish_) * 1e-3);
    last_op_finish_ = now;
  }
  done_ += n;
  if (!report_progress_ || done_ < next_report_) return;
  // The same widening steps as RocksDB's db_bench: frequent at first, then
  // about every tenth of the way for long runs.
  if (next_report_ < 1000) {
    next_report_ += 100;
  } else if (next_report_ < 5000) {
    next_report_ += 500;
  } else if (next_report_ < 10000) {
    next_report_ += 1000;
  } else if (next_report_ < 50000) {
    next_report_ += 5000;
  } else if (next_report_ < 100000) {
    next_report_ += 10000;
  } else if (next_report_ < 500000) {
    next_report_ += 50000;
  } else {
    next_report_ += 100000;
  }
  // On a terminal the line is rewritten in place, as RocksDB's. Anywhere
  // else each report gets its own line: RocksDB's '\r' would glue the
  // progress onto the next report line when stdout and stderr share a
  // file (2>&1), and line-based parsers would miss that report.
  static const bool tty = isatty(STDERR_FILENO) != 0;
  std::fprintf(stderr, "... finished %lld ops%s", static_cast<long long>(done_),
               tty ? "                              \r" : "\n");
  std::fflush(stderr);
}

void BenchStats::AddFound(int64_t found, int64_t total) {
  has_found_ = true;
  found_ += found;
  found_of_ += total;
}

void BenchStats::Merge(const BenchStats& other) {
  if (other.exclude_from_merge_) return;
  for (int i = 0; i < kNumOpKinds; ++i) hist_[i].Merge(other.hist_[i]);
  done_ += other.done_;
  bytes_ += other.bytes_;
  seconds_ += other.seconds_;
  found_ += other.found_;
  found_of_ += other.found_of_;
  has_found_ = has_found_ || other.has_found_;
  start_ = std::min(start_, other.start_);
  finish_ = std::max(finish_, other.finish_);
}

std::string BenchStats::Report(std::string_view name) const {
  static constexpr const char* kKindNames[kNumOpKinds] = {"write", "read",
                                                          "seek", "delete"};
  // A step with no counted operations (compact) reports one, as RocksDB.
  const int64_t done = std::max<int64_t>(done_, 1);
  const double elapsed =
      std::max(static_cast<double>(finish_ - start_) * 1e-9, 1e-9);
  std::string extra;
  if (bytes_ > 0) {
    extra = absl::StrFormat("%6.1f MB/s",
                            static_cast<double>(bytes_) / 1048576.0 / elapsed);
  }
  if (has_found_) {
    if (!extra.empty()) extra += " ";
    absl::StrAppendFormat(&extra, "(%d of %d found)", found_, found_of_);
  }
  std::string r = absl::StrFormat(
      "%-12s : %11.3f micros/op %d ops/sec %.3f seconds %d operations;%s%s\n",
      name, seconds_ * 1e6 / static_cast<double>(done),
      static_cast<int64_t>(static_cast<double>(done) / elapsed), elapsed, done,
      extra.empty() ? "" : " ", extra);
  if (histogram_) {
    for (int i = 0; i < kNumOpKinds; ++i) {
      if (hist_[i].count() == 0) continue;
      absl::StrAppendFormat(&r, "Microseconds per %s:\n%s\n", kKindNames[i],
                            hist_[i].ToString());
    }
  }
  return r;
}

}  // namespace sift::bench
