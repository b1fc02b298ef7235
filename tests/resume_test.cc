// DB::Resume: after a background error whose cause is gone, writes resume
// without a reopen and nothing acknowledged is lost. Each fault below (a
// failing WAL, table, MANIFEST or directory write, as a full disk or a
// failing device gives) stops writes; Resume fails while the fault is
// there, succeeds once it is cleared; then writes succeed, and after a
// machine crash every synced acknowledged write is still there.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using test::ExpectedState;
using test::WriteOps;

struct Fault {
  FaultOp op;
  const char* file;  // substring of the paths it hits
  int skip;          // matching calls that succeed first
};

class ResumeTest : public ::testing::Test {
 protected:
  ResumeTest()
      : base_(NewMemEnv()),
        env_(std::make_unique<FaultInjectionEnv>(base_.get())) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    // Small buffers: flushes every few hundred writes, compactions soon.
    options_.write_buffer_size = 32 << 10;
    options_.max_file_size = 32 << 10;
    options_.level0_compaction_trigger = 2;
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  WriteOps RandomWrite(Random* rnd) {
    WriteOps ops;
    const int n = rnd->OneIn(5) ? 2 + static_cast<int>(rnd->Uniform(4)) : 1;
    for (int i = 0; i < n; ++i) {
      std::string key = absl::StrFormat("key%05u", rnd->Uniform(2000));
      if (rnd->OneIn(8)) {
        ops.emplace_back(std::move(key), std::nullopt);
      } else {
        std::string v = absl::StrCat("w", ++write_id_, "-");
        v.resize(v.size() + 20 + rnd->Uniform(180), 'v');
        ops.emplace_back(std::move(key), std::move(v));
      }
    }
    return ops;
  }

  // `count` writes that must succeed; the last one is synced.
  void WriteAcked(Random* rnd, int count) {
    for (int i = 0; i < count; ++i) {
      WriteOps ops = RandomWrite(rnd);
      WriteBatch batch = test::ToBatch(ops);
      WriteOptions wo;
      wo.sync = i + 1 == count;
      const absl::Status s = db_->Write(wo, &batch);
      ASSERT_TRUE(s.ok()) << "write " << i << ": " << s;
      model_.Add(std::move(ops), /*durable=*/true);
    }
  }

  // Writes (flushing now and then) until one fails; returns the failure.
  absl::Status WriteUntilFailure(Random* rnd) {
    for (int i = 0; i < 4000; ++i) {
      WriteOps ops = RandomWrite(rnd);
      WriteBatch batch = test::ToBatch(ops);
      absl::Status s = db_->Write(WriteOptions(), &batch);
      model_.Add(std::move(ops), /*durable=*/s.ok());
      if (s.ok() && i % 300 == 299) s = db_->Flush();
      if (!s.ok()) return s;
    }
    return db_->WaitForCompaction();  // a background failure, if any
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<FaultInjectionEnv> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  ExpectedState model_;
  uint64_t write_id_ = 0;
};

TEST_F(ResumeTest, WithoutAnErrorIsOk) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "1").ok());
  EXPECT_TRUE(db_->Resume().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "b", "2").ok());
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "a", &v).ok());
  EXPECT_EQ(v, "1");
}

TEST_F(ResumeTest, AfterEachFaultWritesResumeAndNothingAckedIsLost) {
  const uint64_t seed = test::TestSeed(1301);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  const std::vector<Fault> faults = {
      {FaultOp::kAppend, ".log", 5},   {FaultOp::kSync, ".log", 0},
      {FaultOp::kNewFile, ".log", 1},  {FaultOp::kNewFile, ".sst", 0},
      {FaultOp::kAppend, ".sst", 3},   {FaultOp::kSync, ".sst", 0},
      {FaultOp::kAppend, ".sst", 200}, {FaultOp::kAppend, "MANIFEST", 1},
      {FaultOp::kSync, "MANIFEST", 1}, {FaultOp::kSyncDir, "/db", 1},
      {FaultOp::kAppend, "", 50},  // disk full: every file
  };
  for (const Fault& f : faults) {
    SCOPED_TRACE(
        absl::StrCat(FaultOpName(f.op), " '", f.file, "' after ", f.skip));
    db_.reset();
    ASSERT_TRUE(DestroyDB("/db", options_).ok());
    model_ = ExpectedState();
    ASSERT_NO_FATAL_FAILURE(Open());
    ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 100));

    env_->InjectError(f.op, f.file, FaultInjectionEnv::NoSpaceError(), f.skip);
    // A sync write, so a fault on syncing the log is met too.
    absl::Status failed = db_->Put(
        [] {
          WriteOptions wo;
          wo.sync = true;
          return wo;
        }(),
        "synced", "x");
    model_.Add({{"synced", "x"}}, failed.ok());
    if (failed.ok()) failed = WriteUntilFailure(&rnd);
    ASSERT_FALSE(failed.ok()) << "the fault was never met";
    // Writes stay stopped.
    EXPECT_FALSE(db_->Put(WriteOptions(), "stopped", "x").ok());

    // Every fault but a failing WAL append also hits what Resume writes
    // (a log, a table, the MANIFEST, the directory): it fails.
    const absl::Status early = db_->Resume();
    if (!(f.op == FaultOp::kAppend && std::string(f.file) == ".log")) {
      EXPECT_FALSE(early.ok());
    }
    if (!early.ok()) {
      EXPECT_FALSE(db_->Put(WriteOptions(), "stopped", "x").ok());
    }

    env_->ClearErrors();
    const absl::Status resumed = db_->Resume();
    ASSERT_TRUE(resumed.ok()) << resumed;
    // The failed writes may or may not be there; decide which before
    // writing on.
    absl::Status v = model_.Verify(db_.get());
    ASSERT_TRUE(v.ok()) << "after Resume: " << v;
    // A few writes, then at once a machine crash (no flush retires the
    // log first): the last write was synced, so every write is kept.
    ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 20));
    env_->SetFilesystemActive(false);
    db_.reset();
    ASSERT_TRUE(env_->SimulateCrash().ok());
    env_->SetFilesystemActive(true);
    // No log a failed write touched is left to replay: the logs are clean.
    options_.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
    ASSERT_NO_FATAL_FAILURE(Open());
    options_.wal_recovery_mode = WALRecoveryMode::kTolerateCorruptedTailRecords;
    v = model_.Verify(db_.get());
    ASSERT_TRUE(v.ok()) << "after the crash: " << v;
    ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 300));
    ASSERT_TRUE(db_->Flush().ok());
  }
}

}  // namespace
}  // namespace sift
