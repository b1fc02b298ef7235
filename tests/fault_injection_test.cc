// Injected write errors through FaultInjectionEnv (docs/DESIGN.md, "Error
// model"): ENOSPC and EIO on WAL appends, on SSTable writes during flush and
// compaction, on MANIFEST and CURRENT writes, and failing syncs. In every case
// the failing call returns the error, the DB refuses every later write with
// that same error (no retry that could lose data), reads keep working, and
// after a reopen with the fault gone every acknowledged write is there and the
// failed write is all or nothing.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/testutil.h"
#include "util/mutex.h"
#include "util/random.h"

namespace sift {
namespace {

using test::ExpectedState;
using test::WriteOps;

constexpr int kKeySpace = 1500;

std::string Key(uint32_t i) { return absl::StrFormat("key%06u", i); }

struct Fault {
  FaultOp op;
  const char* file;  // substring of the paths it hits
  bool enospc;       // else EIO
  int skip;          // matching calls that succeed first
  std::string Name() const {
    return absl::StrCat(FaultOpName(op), " '", file, "' ",
                        enospc ? "ENOSPC" : "EIO", " after ", skip);
  }
  absl::Status Error() const {
    return enospc ? FaultInjectionEnv::NoSpaceError()
                  : FaultInjectionEnv::IOError();
  }
};

class FaultInjectionTest : public ::testing::Test {
 protected:
  FaultInjectionTest()
      : base_(NewMemEnv()),
        env_(std::make_unique<FaultInjectionEnv>(base_.get())) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    // Small buffers: flushes every few hundred writes, compactions soon.
    options_.write_buffer_size = 32 << 10;
    options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
    options_.max_file_size = 32 << 10;
    options_.level0_compaction_trigger = 2;
  }

  // Open, failing the test with the status it returned.
  void MustOpen() {
    const absl::Status s = Open();
    ASSERT_TRUE(s.ok()) << s;
  }

  // After a fault: reads see every acknowledged write (the failed one may
  // or may not be visible, but never half of it); then, reopened without
  // the fault, the DB still holds every acknowledged write.
  void VerifyThenReopen() {
    ExpectedState live = model_;
    absl::Status v = live.Verify(db_.get());
    ASSERT_TRUE(v.ok()) << "before reopening: " << v;
    db_.reset();
    env_->ClearErrors();
    ASSERT_NO_FATAL_FAILURE(MustOpen());
    v = model_.Verify(db_.get());
    ASSERT_TRUE(v.ok()) << "after reopening: " << v;
  }

  absl::Status Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    return absl::OkStatus();
  }

  // A random write: mostly single puts, some deletes, some batches.
  // Keys as Key() spells them.
  WriteOps RandomWrite(Random* rnd) {
    return test::RandomWrite(rnd, kKeySpace, /*max_batch=*/7, &write_id_);
  }

  // Writes `count` random writes that must all succeed.
  void WriteAcked(Random* rnd, int count) {
    for (int i = 0; i < count; ++i) {
      WriteOps ops = RandomWrite(rnd);
      WriteBatch batch = test::ToBatch(ops);
      ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok());
      model_.Add(std::move(ops), /*durable=*/true);
    }
  }

  // Injects f into the open DB and writes (and flushes now and then)
  // until something fails; *first_error gets the first failure.
  void RunLiveFault(const Fault& f, Random* rnd, absl::Status* first_error) {
    env_->InjectError(f.op, f.file, f.Error(), f.skip);
    WriteOptions sync_write;
    sync_write.sync = true;
    for (int i = 0; i < 4000 && first_error->ok(); ++i) {
      WriteOps ops = RandomWrite(rnd);
      WriteBatch batch = test::ToBatch(ops);
      const bool sync = rnd->OneIn(4);
      absl::Status s = db_->Write(sync ? sync_write : WriteOptions(), &batch);
      model_.Add(std::move(ops), /*durable=*/s.ok());
      if (!s.ok()) *first_error = s;
      if (s.ok() && i % 500 == 499) *first_error = db_->Flush();
    }
    // A background failure may not have met a write yet.
    if (first_error->ok()) *first_error = db_->WaitForCompaction();
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<FaultInjectionEnv> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  ExpectedState model_;
  uint64_t write_id_ = 0;
};

TEST_F(FaultInjectionTest, CheckerCatchesHolesAndTornBatches) {
  // The model must reject what these tests exist to catch, or they prove
  // nothing: a lost durable write, a hole, and half a batch.
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "1").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "c", "3").ok());
  ExpectedState hole;
  hole.Add({{"a", "1"}}, false);
  hole.Add({{"b", "2"}}, false);
  hole.Add({{"c", "3"}}, false);
  EXPECT_FALSE(hole.Verify(db_.get()).ok());  // c survived, b did not

  ExpectedState lost;
  lost.Add({{"a", "1"}}, false);
  lost.Add({{"c", "3"}}, false);
  lost.Add({{"d", "4"}}, true);
  EXPECT_FALSE(lost.Verify(db_.get()).ok());  // d was durable

  ExpectedState torn;
  torn.Add({{"a", "1"}}, true);
  torn.Add({{"c", "3"}, {"e", "5"}}, false);
  EXPECT_FALSE(torn.Verify(db_.get()).ok());  // c without e

  ExpectedState phantom;
  phantom.Add({{"a", "1"}}, true);
  EXPECT_FALSE(phantom.Verify(db_.get()).ok());  // c was never written

  ExpectedState good;
  good.Add({{"a", "1"}}, true);
  good.Add({{"c", "3"}}, false);
  good.Add({{"d", "4"}}, false);  // lost, but was not durable: fine
  size_t found = 0;
  EXPECT_TRUE(good.Verify(db_.get(), &found).ok());
  EXPECT_EQ(found, 2u);
  EXPECT_EQ(good.base().size(), 2u);
}

// The live faults: each hits a running DB after a few successful calls.
std::vector<Fault> LiveFaults() {
  std::vector<Fault> faults;
  for (bool enospc : {true, false}) {
    for (int skip : {0, 3, 12}) {
      faults.push_back({FaultOp::kAppend, ".log", enospc, skip});
      faults.push_back({FaultOp::kSync, ".log", enospc, skip});
      faults.push_back({FaultOp::kNewFile, ".log", enospc, skip});
      faults.push_back({FaultOp::kNewFile, ".sst", enospc, skip});
      faults.push_back({FaultOp::kAppend, ".sst", enospc, skip});
      faults.push_back({FaultOp::kSync, ".sst", enospc, skip});
      faults.push_back({FaultOp::kAppend, "MANIFEST", enospc, skip});
      faults.push_back({FaultOp::kSync, "MANIFEST", enospc, skip});
      faults.push_back({FaultOp::kSyncDir, "/db", enospc, skip});
    }
    faults.push_back({FaultOp::kAppend, ".sst", enospc, 200});  // compaction
  }
  return faults;
}

TEST_F(FaultInjectionTest, LiveWriteFaultsStopWritesAndLoseNothing) {
  const uint64_t seed = test::TestSeed(401);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  int injected_cases = 0;
  for (const Fault& f : LiveFaults()) {
    SCOPED_TRACE(f.Name());
    env_->ClearErrors();
    ASSERT_NO_FATAL_FAILURE(MustOpen());
    ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 300));
    absl::Status error;
    RunLiveFault(f, &rnd, &error);
    ASSERT_FALSE(error.ok()) << "the fault never fired";
    ++injected_cases;
    EXPECT_EQ(error.code(), f.Error().code()) << error;
    EXPECT_NE(error.message().find("(injected)"), absl::string_view::npos)
        << error;
    // Sticky: later writes fail with the same error, without retrying.
    const uint64_t injected = env_->injected_error_count();
    for (int i = 0; i < 3; ++i) {
      absl::Status again = db_->Put(WriteOptions(), Key(i), "after");
      EXPECT_EQ(again.code(), error.code()) << again;
      EXPECT_EQ(again.message(), error.message());
    }
    EXPECT_EQ(db_->Flush().code(), error.code());
    EXPECT_EQ(env_->injected_error_count(), injected) << "a write retried";
    ASSERT_NO_FATAL_FAILURE(VerifyThenReopen());
    // And the DB takes writes again.
    ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 50));
    ASSERT_NO_FATAL_FAILURE(MustOpen());
    const absl::Status v = model_.Verify(db_.get());
    ASSERT_TRUE(v.ok()) << v;
  }
  std::printf("live faults injected: %d cases, %llu failed calls\n",
              injected_cases,
              static_cast<unsigned long long>(env_->injected_error_count()));
}

TEST_F(FaultInjectionTest, OpenFaultsFailOpenAndLoseNothing) {
  // Open writes a new MANIFEST, CURRENT (through a .dbtmp file and a
  // rename), a new WAL, and level-0 tables for what the old WAL held.
  const uint64_t seed = test::TestSeed(402);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  std::vector<Fault> faults;
  for (bool enospc : {true, false}) {
    for (const char* file : {"MANIFEST", "dbtmp", ".log", ".sst"}) {
      for (FaultOp op : {FaultOp::kNewFile, FaultOp::kAppend, FaultOp::kSync}) {
        faults.push_back({op, file, enospc, 0});
      }
    }
    faults.push_back({FaultOp::kRename, "CURRENT", enospc, 0});
    faults.push_back({FaultOp::kSyncDir, "/db", enospc, 0});
    faults.push_back({FaultOp::kSyncDir, "/db", enospc, 1});
    // Reads at Open: an unreadable WAL or MANIFEST fails Open; it is never
    // mistaken for a torn tail and dropped.
    faults.push_back({FaultOp::kRead, ".log", enospc, 0});
    faults.push_back({FaultOp::kRead, "MANIFEST", enospc, 0});
    faults.push_back({FaultOp::kOpen, ".log", enospc, 0});
    faults.push_back({FaultOp::kOpen, "CURRENT", enospc, 0});
    faults.push_back({FaultOp::kOpen, ".sst", enospc, 0});
  }
  int fired = 0;
  for (const Fault& f : faults) {
    SCOPED_TRACE(f.Name());
    env_->ClearErrors();
    ASSERT_NO_FATAL_FAILURE(MustOpen());
    // In tables and in the WAL.
    ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 400));
    db_.reset();
    env_->InjectError(f.op, f.file, f.Error(), f.skip);
    absl::Status s = Open();
    env_->ClearErrors();
    if (s.ok()) {
      // The fault met no call at this Open (e.g. nothing to flush).
      continue;
    }
    ++fired;
    EXPECT_EQ(s.code(), f.Error().code()) << s;
    s = Open();
    ASSERT_TRUE(s.ok()) << "cannot reopen after a failed Open: " << s;
    absl::Status v = model_.Verify(db_.get());
    ASSERT_TRUE(v.ok()) << v;
  }
  std::printf("open faults fired: %d of %zu\n", fired, faults.size());
  EXPECT_GT(fired, static_cast<int>(faults.size()) * 4 / 5);
}

TEST_F(FaultInjectionTest, CompactionWriteFaultsStopWritesAndLoseNothing) {
  // The same contract for a table written by compaction (flushes are
  // covered above): tables are in place, then a full compaction rewrites
  // them while its outputs fail.
  Random rnd(test::TestSeed(405));
  int fired = 0;
  for (FaultOp op : {FaultOp::kNewFile, FaultOp::kAppend, FaultOp::kSync}) {
    for (bool enospc : {true, false}) {
      const Fault f{op, ".sst", enospc, op == FaultOp::kAppend ? 5 : 0};
      SCOPED_TRACE(f.Name());
      env_->ClearErrors();
      ASSERT_NO_FATAL_FAILURE(MustOpen());
      ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 1500));
      ASSERT_TRUE(db_->Flush().ok());
      ASSERT_TRUE(db_->WaitForCompaction().ok());
      const Statistics before = db_->GetStatistics();
      env_->InjectError(f.op, f.file, f.Error(), f.skip);
      absl::Status s = db_->CompactRange(std::nullopt, std::nullopt);
      ASSERT_EQ(s.code(), f.Error().code()) << s;
      EXPECT_EQ(db_->GetStatistics().Get(kFlushes), before.Get(kFlushes))
          << "the fault hit a flush, not a compaction";
      ++fired;
      EXPECT_EQ(db_->Put(WriteOptions(), "x", "y").code(), s.code());
      ASSERT_NO_FATAL_FAILURE(VerifyThenReopen());
    }
  }
  EXPECT_EQ(fired, 6);
}

TEST_F(FaultInjectionTest, FailedRemovalsAreHarmless) {
  // Deleting obsolete files is best effort: a failure there must neither
  // stop writes nor lose data.
  Random rnd(test::TestSeed(403));
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  env_->InjectError(FaultOp::kRemove, "", FaultInjectionEnv::IOError());
  ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 3000));
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_GT(env_->injected_error_count(), 0u);
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  env_->ClearErrors();
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  absl::Status v = model_.Verify(db_.get());
  ASSERT_TRUE(v.ok()) << v;
}

TEST_F(FaultInjectionTest, ReadErrorsAreReportedNotFatal) {
  Random rnd(test::TestSeed(404));
  options_.block_cache_capacity = 0;  // every read goes to the file
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  ASSERT_NO_FATAL_FAILURE(WriteAcked(&rnd, 2000));
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  env_->InjectError(FaultOp::kRead, ".sst", FaultInjectionEnv::IOError());
  int errors = 0;
  for (int i = 0; i < kKeySpace; ++i) {
    std::string v;
    absl::Status s = db_->Get(ReadOptions(), Key(i), &v);
    if (!s.ok() && !absl::IsNotFound(s)) {
      EXPECT_EQ(s.code(), FaultInjectionEnv::IOError().code()) << s;
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
  auto it = db_->NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
  }
  EXPECT_EQ(it->status().code(), FaultInjectionEnv::IOError().code());
  it.reset();
  // A read error is not a write error: writes go on.
  EXPECT_TRUE(db_->Put(WriteOptions(), "x", "y").ok());
  model_.Add({{"x", "y"}}, true);
  env_->ClearErrors();
  absl::Status v = model_.Verify(db_.get());
  ASSERT_TRUE(v.ok()) << v;
}

// ---- machine crashes at chosen moments (the crash loop in crash_test.cc
// covers random ones) ----

class PowerLossTest : public FaultInjectionTest {
 protected:
  // Cuts the power, drops what was never synced, and reopens.
  absl::Status CrashAndReopen() {
    env_->SetFilesystemActive(false);
    db_.reset();
    absl::Status s = env_->SimulateCrash();
    env_->SetFilesystemActive(true);
    if (!s.ok()) return s;
    return Open();
  }
};

TEST_F(PowerLossTest, FlushedTablesSurvive) {
  // Regression: the MANIFEST named tables whose directory entries were
  // never synced, so a crash left it naming missing files (DataLoss).
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "v").ok());
  }
  ASSERT_TRUE(db_->Flush().ok());
  absl::Status s = CrashAndReopen();
  ASSERT_TRUE(s.ok()) << s;
  std::string v;
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << i;
  }
}

// Holds back the creation of table files until opened, so a test can keep
// a flush from finishing while it writes to the new WAL.
class GateEnv final : public EnvWrapper {
 public:
  explicit GateEnv(Env* target) : EnvWrapper(target) {}

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    if (path.find(".sst") != std::string::npos) {
      MutexLock l(&mu_);
      ++waiting_;
      while (closed_) cv_.Wait(&mu_);
      --waiting_;
    }
    return target()->NewWritableFile(path);
  }
  void Close() {
    MutexLock l(&mu_);
    closed_ = true;
  }
  void Open() {
    MutexLock l(&mu_);
    closed_ = false;
    cv_.SignalAll();
  }
  bool HasWaiter() {
    MutexLock l(&mu_);
    return waiting_ > 0;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST_F(PowerLossTest, SyncedWriteInANewLogSurvivesWithNoHoleBeforeIt) {
  // Regressions: (1) a WAL created by a memtable switch was never made
  // durable in its directory, so a crash took it, synced writes and all;
  // (2) the old WAL was closed unsynced, so a crash kept a synced write in
  // the new WAL and lost earlier writes in the old one. The gate keeps the
  // flush of the old memtable (which would make both moot) from finishing.
  GateEnv gate(env_.get());
  options_.env = &gate;
  // The DB closes (and finishes its background work) before that Env goes.
  absl::Cleanup close_db_first = [this] { db_.reset(); };
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  gate.Close();
  int n = 0;
  while (!gate.HasWaiter()) {
    ASSERT_LT(n, 100000) << "the memtable never switched";
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(n++), "unsynced").ok());
    if (n % 64 == 0) env_->SleepForMicroseconds(1000);
  }
  WriteOptions sync;
  sync.sync = true;
  ASSERT_TRUE(db_->Put(sync, "synced", "in the new WAL").ok());
  env_->SetFilesystemActive(false);
  gate.Open();  // the flush now fails: the power is out
  db_.reset();
  ASSERT_TRUE(env_->SimulateCrash().ok());
  env_->SetFilesystemActive(true);
  ASSERT_NO_FATAL_FAILURE(MustOpen());
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "synced", &v).ok());
  EXPECT_EQ(v, "in the new WAL");
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << "hole at " << i;
  }
}

}  // namespace
}  // namespace sift
