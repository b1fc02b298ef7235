#include "bench/db_bench_stats.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "absl/strings/str_format.h"
#include "bench/db_bench_reporter.h"

namespace sift::bench {

uint64_t NowNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

BenchStats::BenchStats(int tid, const StatsOptions& options)
    : tid_(tid), options_(options) {
  Start();
}

void BenchStats::Start() {
  start_ = NowNanos();
  last_op_finish_ = start_;
  last_report_finish_ = start_;
  finish_ = start_;
}

void BenchStats::Stop() {
  finish_ = NowNanos();
  seconds_ = static_cast<double>(finish_ - start_) * 1e-9;
}

void BenchStats::FinishedOps(int64_t n, OpKind kind) {
  Reporter* reporter = options_.reporter;
  const bool latency = reporter != nullptr && reporter->latency();
  double micros = 0;
  if (options_.histogram || latency) {
    const uint64_t now = NowNanos();
    micros = static_cast<double>(now - last_op_finish_) * 1e-3;
    if (options_.histogram) hist_[static_cast<int>(kind)].Add(micros);
    last_op_finish_ = now;
  }
  if (reporter != nullptr) reporter->FinishedOps(tid_, n, micros);
  done_ += n;
  if (options_.progress && done_ >= next_report_) ReportProgress();
}

void BenchStats::ReportProgress() {
  if (options_.stats_interval_seconds > 0) {
    // RocksDB's interval line, checked every 1000 operations: this thread's
    // operations and rate in the last interval and since its start.
    next_report_ += 1000;
    const uint64_t now = NowNanos();
    const uint64_t interval_ns =
        static_cast<uint64_t>(options_.stats_interval_seconds) * 1000000000;
    if (now - last_report_finish_ < interval_ns) return;
    const double interval =
        static_cast<double>(now - last_report_finish_) * 1e-9;
    const double total = static_cast<double>(now - start_) * 1e-9;
    const std::time_t t = std::time(nullptr);
    std::tm tm;
    localtime_r(&t, &tm);
    char when[32];
    std::strftime(when, sizeof(when), "%Y/%m/%d-%H:%M:%S", &tm);
    std::fprintf(stderr,
                 "%s ... thread %d: (%lld,%lld) ops and (%.1f,%.1f) "
                 "ops/second in (%.6f,%.6f) seconds\n",
                 when, tid_, static_cast<long long>(done_ - last_report_done_),
                 static_cast<long long>(done_),
                 static_cast<double>(done_ - last_report_done_) / interval,
                 static_cast<double>(done_) / total, interval, total);
    std::fflush(stderr);
    last_report_finish_ = now;
    last_report_done_ = done_;
    return;
  }
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
  message_ = Message::kFound;
  found_ += found;
  found_of_ += total;
}

void BenchStats::AddReadWrite(int64_t reads, int64_t writes, int64_t total,
                              int64_t found) {
  message_ = Message::kReadWrite;
  reads_ += reads;
  writes_ += writes;
  found_of_ += total;
  found_ += found;
}

void BenchStats::AddUpdates(int64_t updates, int64_t found) {
  message_ = Message::kUpdate;
  updates_ += updates;
  found_ += found;
}

void BenchStats::Merge(const BenchStats& other) {
  if (other.exclude_from_merge_) return;
  for (int i = 0; i < kNumOpKinds; ++i) hist_[i].Merge(other.hist_[i]);
  done_ += other.done_;
  bytes_ += other.bytes_;
  seconds_ += other.seconds_;
  found_ += other.found_;
  found_of_ += other.found_of_;
  reads_ += other.reads_;
  writes_ += other.writes_;
  updates_ += other.updates_;
  if (message_ == Message::kNone) message_ = other.message_;
  start_ = std::min(start_, other.start_);
  finish_ = std::max(finish_, other.finish_);
}

std::string BenchStats::Report(std::string_view name) const {
  static constexpr const char* kKindNames[kNumOpKinds] = {
      "write", "read", "seek", "delete", "update", "op"};
  // A step with no counted operations (compact) reports one, as RocksDB.
  const int64_t done = std::max<int64_t>(done_, 1);
  const double elapsed =
      std::max(static_cast<double>(finish_ - start_) * 1e-9, 1e-9);
  std::string extra;
  if (bytes_ > 0) {
    extra = absl::StrFormat("%6.1f MB/s",
                            static_cast<double>(bytes_) / 1048576.0 / elapsed);
  }
  std::string message;
  switch (message_) {
    case Message::kNone:
      break;
    case Message::kFound:
      message = absl::StrFormat("(%d of %d found)", found_, found_of_);
      break;
    case Message::kReadWrite:
      message = absl::StrFormat("( reads:%d writes:%d total:%d found:%d)",
                                reads_, writes_, found_of_, found_);
      break;
    case Message::kUpdate:
      message = absl::StrFormat("( updates:%d found:%d)", updates_, found_);
      break;
  }
  if (!message.empty()) {
    if (!extra.empty()) extra += " ";
    extra += message;
  }
  std::string r = absl::StrFormat(
      "%-12s : %11.3f micros/op %d ops/sec %.3f seconds %d operations;%s%s\n",
      name, seconds_ * 1e6 / static_cast<double>(done),
      static_cast<int64_t>(static_cast<double>(done) / elapsed), elapsed, done,
      extra.empty() ? "" : " ", extra);
  if (options_.histogram) {
    for (int i = 0; i < kNumOpKinds; ++i) {
      if (hist_[i].count() == 0) continue;
      absl::StrAppendFormat(&r, "Microseconds per %s:\n%s\n", kKindNames[i],
                            hist_[i].ToString());
    }
  }
  return r;
}

}  // namespace sift::bench
