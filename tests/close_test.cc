// DB::Close: background work running at the close is finished and
// installed (nothing left in the directory that the MANIFEST does not
// name), snapshots still held refuse the close, and a closed DB refuses
// writes while it still answers reads. A GateEnv holds the background
// thread inside a flush or compaction while Close starts, so the close
// meets the running work for certain.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/gate_env.h"

namespace sift {
namespace {

using test::GateEnv;

class CloseTest : public ::testing::Test {
 protected:
  CloseTest()
      : base_(NewMemEnv()), gate_(std::make_unique<GateEnv>(base_.get())) {
    options_.env = gate_.get();
    options_.create_if_missing = true;
    // Level-0 files stay until CompactRange merges them.
    options_.level0_compaction_trigger = 100;
    options_.level0_slowdown_writes_trigger = 100;
    options_.level0_stop_writes_trigger = 100;
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  // Four overlapping flushes, each of keys 1000..1099 (the first may land
  // below level 0).
  void FourLevel0Files() {
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(db_->Put(WriteOptions(), absl::StrCat("key", 1000 + i),
                             absl::StrCat("round", round))
                        .ok());
      }
      ASSERT_TRUE(db_->Flush().ok());
    }
    ASSERT_EQ(test::TotalFilesInLevels(db_.get()), 4);
    ASSERT_GE(test::FilesAtLevel(db_.get(), 0), 2);
  }

  // Runs op on its own thread and holds the first table file it makes
  // the background thread write at the gate; while it is held, starts
  // Close and waits until it has begun (a write is then refused with "DB
  // closed"; writes before that just succeed), then lets the table write
  // go on. Returns Close's status; *op_status gets op's.
  absl::Status CloseWhileATableWriteIsHeld(std::function<absl::Status()> op,
                                           absl::Status* op_status) {
    gate_->Arm(GateEnv::Op::kNewWritableFile, ".sst");
    std::thread worker([&] { *op_status = op(); });
    absl::Status close_status =
        absl::DeadlineExceededError("no table write reached the gate");
    if (gate_->WaitUntilHeld()) {
      std::thread closer([&] { close_status = db_->Close(); });
      for (int i = 0;; ++i) {
        const absl::Status s = db_->Put(WriteOptions(), "late", "write");
        if (absl::IsFailedPrecondition(s)) break;
        EXPECT_TRUE(s.ok()) << s;
        EXPECT_LT(i, 60000) << "Close never began";
        if (i >= 60000) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      gate_->Open();
      closer.join();
    } else {
      gate_->Open();
    }
    worker.join();
    return close_status;
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<GateEnv> gate_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// The bug: a compaction running at close was cancelled after writing its
// outputs, which stayed in the directory unnamed (the next Open deleted
// them and compacted again), and level 0 kept all its files.
TEST_F(CloseTest, ACompactionRunningAtCloseIsInstalledNotLeftBehind) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(FourLevel0Files());
  // Held: the compaction's first output.
  absl::Status compact_status;
  const absl::Status close_status = CloseWhileATableWriteIsHeld(
      [&] { return db_->CompactRange(std::nullopt, std::nullopt); },
      &compact_status);
  ASSERT_TRUE(close_status.ok()) << close_status;
  // The step that was running is installed; CompactRange, cut short or
  // not, reports no error of its own.
  EXPECT_TRUE(compact_status.ok() || absl::IsFailedPrecondition(compact_status))
      << compact_status;
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  // Every table in the directory is one the closed DB names, and the next
  // Open keeps them all.
  const std::vector<std::string> tables =
      test::ListTableFiles(base_.get(), "/db");
  EXPECT_EQ(tables.size(),
            static_cast<size_t>(test::TotalFilesInLevels(db_.get())));
  ASSERT_NO_FATAL_FAILURE(Open());
  for (const std::string& t : tables) EXPECT_TRUE(base_->FileExists(t)) << t;
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "key1050", &v).ok());
  EXPECT_EQ(v, "round3");
}

// The same for a flush: its table was written, then the install was
// cancelled and the table left for the next Open to delete (the memtable
// was replayed from the log and flushed again).
TEST_F(CloseTest, AFlushRunningAtCloseIsInstalled) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "1").ok());
  absl::Status flush_status;
  const absl::Status close_status =
      CloseWhileATableWriteIsHeld([&] { return db_->Flush(); }, &flush_status);
  ASSERT_TRUE(close_status.ok()) << close_status;
  EXPECT_TRUE(flush_status.ok()) << flush_status;  // it waited for it
  EXPECT_EQ(test::TotalFilesInLevels(db_.get()), 1);
  const std::vector<std::string> tables =
      test::ListTableFiles(base_.get(), "/db");
  ASSERT_EQ(tables.size(), 1u);
  // The next Open keeps that table (it would delete an unnamed one and
  // flush "a" again from the log).
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_TRUE(base_->FileExists(tables[0])) << tables[0];
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "a", &v).ok());
  EXPECT_EQ(v, "1");
}

TEST_F(CloseTest, UnreleasedSnapshotsAbortTheCloseAndLeaveTheDBOpen) {
  ASSERT_NO_FATAL_FAILURE(Open());
  const Snapshot* snapshot = db_->GetSnapshot();
  const absl::Status s = db_->Close();
  ASSERT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_NE(s.message().find("1 snapshot(s) not released"),
            std::string_view::npos)
      << s;
  ASSERT_TRUE(db_->Put(WriteOptions(), "k", "v").ok());  // still open
  db_->ReleaseSnapshot(snapshot);
  ASSERT_TRUE(db_->Close().ok());
  EXPECT_TRUE(db_->Close().ok());  // the first close's answer again
}

TEST_F(CloseTest, AClosedDBRefusesWritesAndStillAnswersReads) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_TRUE(db_->Put(WriteOptions(), "k", "v").ok());
  ASSERT_TRUE(db_->Close().ok());

  auto closed = [](const absl::Status& s) {
    return absl::IsFailedPrecondition(s) &&
           s.message().find("DB closed") != std::string_view::npos;
  };
  EXPECT_PRED1(closed, db_->Put(WriteOptions(), "k", "w"));
  EXPECT_PRED1(closed, db_->Delete(WriteOptions(), "k"));
  EXPECT_PRED1(closed, db_->DeleteRange(WriteOptions(), "a", "z"));
  WriteBatch batch;
  batch.Put("x", "y");
  EXPECT_PRED1(closed, db_->Write(WriteOptions(), &batch));
  EXPECT_PRED1(closed, db_->Flush());
  EXPECT_PRED1(closed, db_->CompactRange(std::nullopt, std::nullopt));
  EXPECT_PRED1(closed, db_->WaitForCompaction());
  EXPECT_PRED1(closed, db_->Resume());
  EXPECT_PRED1(closed, db_->RebuildFilters());
  EXPECT_PRED1(closed, db_->CreateCheckpoint("/ckpt", nullptr));
  EXPECT_FALSE(base_->FileExists("/ckpt"));
  {
    SstFileWriter w(options_);
    ASSERT_TRUE(w.Open("/ext.sst").ok());
    ASSERT_TRUE(w.Put("e", "1").ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  EXPECT_PRED1(closed, db_->IngestExternalFiles({"/ext.sst"}, {}));
  EXPECT_TRUE(base_->FileExists("/ext.sst"));

  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "k", &v).ok());
  EXPECT_EQ(v, "v");
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "k");
  it.reset();

  // Nothing refused was written: the next Open sees only "k".
  ASSERT_NO_FATAL_FAILURE(Open());
  it = db_->NewIterator(ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  EXPECT_EQ(n, 1);
}

TEST_F(CloseTest, AReadOnlyDBCloses) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_TRUE(db_->Put(WriteOptions(), "k", "v").ok());
  db_.reset();
  auto ro = DB::OpenForReadOnly(options_, "/db");
  ASSERT_TRUE(ro.ok()) << ro.status();
  ASSERT_TRUE((*ro)->Close().ok());
  std::string v;
  ASSERT_TRUE((*ro)->Get(ReadOptions(), "k", &v).ok());
  EXPECT_EQ(v, "v");
}

}  // namespace
}  // namespace sift
