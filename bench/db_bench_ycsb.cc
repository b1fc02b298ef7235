// db_bench's YCSB benchmarks: ycsbload inserts the records into a fresh
// database, ycsba .. ycsbf run YCSB's core workloads on it (bench/ycsb.h),
// each with RocksDB's report line, then YCSB's per-operation latency lines:
//
//   ycsba        :       4.123 micros/op 242000 ops/sec 4.132 seconds
//   1000000 operations; 270.1 MB/s (1000000 of 1000000 found)
//   [OVERALL], RunTime(ms), 4132
//   [READ], Operations, 500123
//   [READ], 99thPercentileLatency(us), 9.1
//   ...
//
// The --ycsb_* flags (bench/ycsb_flags.h) are YCSB's properties and, like
// YCSB's, count over all threads: --ycsb_operation_count operations are
// shared out among --threads, and the load's records too.

#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/db_bench.h"
#include "sift/iterator.h"

namespace sift::bench {
namespace {

// The database as YCSB's key-value bindings use it.
class DbStore final : public ycsb::Store {
 public:
  DbStore(DB* db, const ReadOptions& r, const WriteOptions& w)
      : db_(db), read_options_(r), write_options_(w) {}

  absl::Status Get(std::string_view key, std::string* value) override {
    return db_->Get(read_options_, key, value);
  }
  absl::Status Put(std::string_view key, std::string_view value) override {
    return db_->Put(write_options_, key, value);
  }
  absl::Status Scan(
      std::string_view start, int n,
      const std::function<void(std::string_view, std::string_view)>& visit)
      override {
    std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
    int i = 0;
    for (it->Seek(start); i < n && it->Valid(); it->Next(), ++i) {
      visit(it->key(), it->value());
    }
    return it->status();
  }

 private:
  DB* const db_;
  const ReadOptions read_options_;
  const WriteOptions write_options_;
};

OpKind KindOf(ycsb::Op op) {
  switch (op) {
    case ycsb::Op::kRead:
      return OpKind::kRead;
    case ycsb::Op::kUpdate:
      return OpKind::kUpdate;
    case ycsb::Op::kInsert:
      return OpKind::kWrite;
    case ycsb::Op::kScan:
      return OpKind::kSeek;
    case ycsb::Op::kReadModifyWrite:
      return OpKind::kOther;
  }
  return OpKind::kOther;
}

}  // namespace

absl::Status Benchmark::RunYcsb(std::string_view name) {
  if (name == "ycsbload" || ycsb_session_ == nullptr) {
    ycsb_session_ = std::make_unique<ycsb::Session>(config_.ycsb);
  }
  ycsb_workload_.reset();
  if (name != "ycsbload") {
    ycsb_workload_ = ycsb::CoreWorkload(name.substr(4));
    if (!ycsb_workload_.has_value()) {
      return absl::InternalError(
          absl::StrCat("no YCSB workload ", std::string(name)));
    }
  }
  {
    MutexLock l(&ycsb_mu_);
    ycsb_results_ = ycsb::Results();
  }
  const uint64_t start = NowNanos();
  absl::Status s = RunThreads(name, config_.threads, &Benchmark::YcsbThread, 0);
  if (!s.ok()) return s;
  const double seconds = static_cast<double>(NowNanos() - start) * 1e-9;
  MutexLock l(&ycsb_mu_);
  std::fputs(ycsb_results_.Report(seconds).c_str(), stdout);
  std::fflush(stdout);
  return absl::OkStatus();
}

void Benchmark::YcsbThread(ThreadState* thread, Shared*) {
  DbStore store(db_.get(), read_options_, write_options_);
  ycsb::Runner runner(ycsb_session_.get(),
                      ycsb_workload_.has_value() ? &*ycsb_workload_ : nullptr,
                      thread->rand.Next64());
  const uint64_t share = ycsb::RunShare(config_.ycsb.operation_count,
                                        config_.threads, thread->tid);
  // --duration bounds the run by time instead (the load is never cut).
  const uint64_t ops = config_.duration > 0 && !runner.loading()
                           ? std::numeric_limits<uint64_t>::max()
                           : share;
  Duration duration(runner.loading() ? 0 : config_.duration,
                    std::numeric_limits<int64_t>::max());
  absl::Status s = ycsb::RunThread(&runner, &store, ops, [&](ycsb::Op op) {
    thread->stats.FinishedOps(1, KindOf(op));
    return duration.Done(1);
  });
  if (!s.ok()) Fatal(runner.loading() ? "ycsbload" : "ycsb", s);
  const ycsb::Results& r = runner.results();
  if (r.lookups > 0) thread->stats.AddFound(r.found, r.lookups);
  thread->stats.AddBytes(r.bytes);
  MutexLock l(&ycsb_mu_);
  ycsb_results_.Merge(r);
}

}  // namespace sift::bench
