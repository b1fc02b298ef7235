// File lifetime under concurrency (docs/DESIGN.md, "Versions and file
// lifetime"): a file being written is never deleted, by whichever thread
// runs DeleteObsoleteFiles, until the edit naming it is installed or its
// writer gives it up. The windows that matter are the ones where
// VersionSet::LogAndApply has released the DB mutex for the directory sync
// and the MANIFEST write: a slow SyncDir (tests/testutil/slow_env.h) makes
// them long, so every flush and compaction meets the other threads in one.
// CI also runs this under ThreadSanitizer ("concurrency" label).

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/statistics.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/slow_env.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::NumberedKey;
using test::NumberedValue;

constexpr int kWriters = 2;
// Each writer's keys are w * kKeySpace + i.
constexpr int kKeySpace = 1000000;
constexpr int kPrefill = 6000;
constexpr auto kSyncDirDelay = std::chrono::milliseconds(2);

class FileLifetimeTest : public ::testing::Test {
 protected:
  FileLifetimeTest()
      : base_(NewMemEnv()),
        env_(std::make_unique<test::SlowSyncDirEnv>(base_.get(),
                                                    kSyncDirDelay)) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.write_buffer_size = 32 << 10;
    options_.max_file_size = 32 << 10;
    options_.max_bytes_for_level_base = 128 << 10;
    options_.level0_compaction_trigger = 2;
  }

  absl::Status Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    return absl::OkStatus();
  }

  // Records the first error some thread met.
  void Fail(absl::Status s) {
    absl::MutexLock l(&mu_);
    if (error_.ok()) error_ = std::move(s);
    stop_.store(true);
  }
  absl::Status error() {
    absl::MutexLock l(&mu_);
    return error_;
  }

  // Every key writer w had acknowledged reads back with its value.
  void CheckAcknowledged(const std::atomic<int>* acked) {
    std::string v;
    for (int w = 0; w < kWriters; ++w) {
      const int n = acked[w].load();
      for (int i = 0; i < n; ++i) {
        const int k = w * kKeySpace + i;
        const absl::Status s = db_->Get(ReadOptions(), NumberedKey(k), &v);
        ASSERT_TRUE(s.ok()) << NumberedKey(k) << " (writer " << w << ", " << i
                            << " of " << n << " acknowledged): " << s;
        ASSERT_EQ(v, NumberedValue(k));
      }
    }
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<test::SlowSyncDirEnv> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

// Writers keep flushes and compactions going while RebuildFilters re-tunes
// the filters a budget's moving allocation leaves stale, each call ending
// with DeleteObsoleteFiles on the caller's thread. No new table may vanish
// from under the Version about to name it: every acknowledged key reads
// back, during the run and after, and the DB reopens.
TEST_F(FileLifetimeTest, RebuildFiltersBesideFlushesAndCompactionsKeepsTables) {
  // Files at 1%, then a budget: every old file's filter is stale.
  ASSERT_TRUE(Open().ok());
  std::atomic<int> acked[kWriters] = {};
  for (int i = 0; i < kPrefill; ++i) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), NumberedKey(i), NumberedValue(i)).ok());
  }
  acked[0].store(kPrefill);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  options_.filter_bits_per_key_budget = 12;
  ASSERT_TRUE(Open().ok());

  const auto run_for =
      std::chrono::milliseconds(test::EnvInt("SIFT_FILE_LIFETIME_MS", 3000));
  const auto deadline = std::chrono::steady_clock::now() + run_for;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = w == 0 ? kPrefill : 0; !stop_.load(); ++i) {
        const int k = w * kKeySpace + i;
        const absl::Status s =
            db_->Put(WriteOptions(), NumberedKey(k), NumberedValue(k));
        if (!s.ok()) return Fail(s);
        acked[w].store(i + 1);
      }
    });
  }
  std::atomic<int> rebuild_calls{0};
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!stop_.load()) {
        const absl::Status s = db_->RebuildFilters();
        if (!s.ok()) return Fail(s);
        rebuild_calls.fetch_add(1);
      }
    });
  }
  threads.emplace_back([&] {  // reads what was acknowledged, as it goes
    std::string v;
    for (uint64_t n = 0; !stop_.load(); ++n) {
      const int w = static_cast<int>(n % kWriters);
      const int count = acked[w].load();
      if (count == 0) continue;
      const int k = w * kKeySpace + static_cast<int>((n * 7919) % count);
      const absl::Status s = db_->Get(ReadOptions(), NumberedKey(k), &v);
      if (!s.ok()) {
        return Fail(absl::DataLossError(
            absl::StrCat("acknowledged ", NumberedKey(k), ": ", s.ToString())));
      }
    }
  });
  while (!stop_.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop_.store(true);
  for (std::thread& t : threads) t.join();

  const Statistics stats = db_->GetStatistics();
  std::printf(
      "%d + %d keys acknowledged, %llu flushes, %llu compactions, %d "
      "RebuildFilters calls, %llu filters rebuilt, %llu directory syncs\n",
      acked[0].load(), acked[1].load(),
      static_cast<unsigned long long>(stats.Get(kFlushes)),
      static_cast<unsigned long long>(stats.Get(kCompactions)),
      rebuild_calls.load(),
      static_cast<unsigned long long>(stats.Get(kFilterRebuilds)),
      static_cast<unsigned long long>(env_->sync_dirs()));
  ASSERT_TRUE(error().ok()) << error();
  // The run did what it is for: filters installed beside flushes and
  // compactions.
  EXPECT_GT(stats.Get(kFilterRebuilds), 0u);
  EXPECT_GT(stats.Get(kFlushes), 2u);
  EXPECT_GT(stats.Get(kCompactions), 0u);
  CheckAcknowledged(acked);
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  const absl::Status reopened = Open();
  ASSERT_TRUE(reopened.ok()) << reopened;
  CheckAcknowledged(acked);
}

}  // namespace
}  // namespace sift
