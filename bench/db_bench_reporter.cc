#include "bench/db_bench_reporter.h"

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/db_bench_stats.h"

namespace sift::bench {

absl::StatusOr<std::unique_ptr<Reporter>> Reporter::Start(
    const std::string& path, int interval_seconds, bool latency,
    int num_threads) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--report_file=", path, ": cannot create: ", std::strerror(errno)));
  }
  std::fputs(latency ? "secs_elapsed,interval_qps,interval_p50_us,"
                       "interval_p99_us\n"
                     : "secs_elapsed,interval_qps\n",
             f);
  std::fflush(f);
  return std::unique_ptr<Reporter>(
      new Reporter(f, interval_seconds, latency, num_threads));
}

Reporter::Reporter(std::FILE* file, int interval_seconds, bool latency,
                   int num_threads)
    : file_(file), interval_seconds_(interval_seconds), latency_(latency) {
  for (int i = 0; i < num_threads; ++i) {
    slots_.push_back(std::make_unique<Slot>());
  }
  thread_ = std::thread([this] { Loop(); });
}

Reporter::~Reporter() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  thread_.join();
  std::fclose(file_);
}

void Reporter::FinishedOps(int tid, int64_t n, double micros) {
  total_ops_.fetch_add(n, std::memory_order_relaxed);
  if (!latency_) return;
  Slot* slot = slots_[static_cast<size_t>(tid)].get();
  absl::MutexLock l(&slot->mu);
  slot->hist.Add(micros);
}

void Reporter::Loop() {
  const uint64_t started = NowNanos();
  const absl::Duration interval = absl::Seconds(interval_seconds_);
  int64_t last_total = 0;
  while (true) {
    {
      absl::MutexLock l(&mu_);
      // Wait one interval (a spurious or early wake waits out the rest).
      const absl::Time deadline = absl::Now() + interval;
      while (!stop_ && !cv_.WaitWithDeadline(&mu_, deadline)) {
      }
      if (stop_) return;
    }
    const int64_t total = total_ops_.load(std::memory_order_relaxed);
    const uint64_t secs = (NowNanos() - started + 500000000) / 1000000000;
    std::string line = absl::StrCat(secs, ",", total - last_total);
    last_total = total;
    if (latency_) {
      Histogram interval_hist;
      for (const std::unique_ptr<Slot>& slot : slots_) {
        absl::MutexLock l(&slot->mu);
        interval_hist.Merge(slot->hist);
        slot->hist.Clear();
      }
      absl::StrAppend(&line, ",", absl::SixDigits(interval_hist.Percentile(50)),
                      ",", absl::SixDigits(interval_hist.Percentile(99)));
    }
    line += "\n";
    if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0) {
      std::fprintf(stderr,
                   "db_bench: cannot write to --report_file (%s), stopping "
                   "the reporting\n",
                   std::strerror(errno));
      return;
    }
  }
}

}  // namespace sift::bench
