// Failures that cross threads: a write or flush failing while CompactRange
// runs, a flush landing in the middle of a running compaction, and file
// deletion holding up the DB. A GateEnv stops the background thread at a
// chosen file operation, so each interleaving happens for certain.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/gate_env.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::FilesAtLevel;
using test::GateEnv;

class ReliabilityTest : public ::testing::Test {
 protected:
  ReliabilityTest()
      : base_(NewMemEnv()),
        fault_(std::make_unique<FaultInjectionEnv>(base_.get())),
        gate_(std::make_unique<GateEnv>(fault_.get())) {
    options_.env = gate_.get();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    // Level-0 files stay until CompactRange moves them.
    options_.level0_compaction_trigger = 4;
    // The gates hold "the compaction's output": one merge, not key ranges
    // on several threads, any of which could reach the gate first (the
    // level-0 -> level-1 CompactRange here has two level-1 inputs, which
    // two subcompactions would split; CI once saw the flush-failure test
    // hold the second range's output, and its RemoveFile gate never
    // came).
    options_.max_subcompactions = 1;
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  void Put(std::string_view k, std::string_view v) {
    const absl::Status s = db_->Put(WriteOptions(), k, v);
    ASSERT_TRUE(s.ok()) << s;
  }
  void PutAndFlush(std::string_view k1, std::string_view k2) {
    ASSERT_NO_FATAL_FAILURE(Put(k1, "v"));
    ASSERT_NO_FATAL_FAILURE(Put(k2, "v"));
    const absl::Status s = db_->Flush();
    ASSERT_TRUE(s.ok()) << s;
  }
  std::string Get(std::string_view k) {
    std::string v;
    const absl::Status s = db_->Get(ReadOptions(), k, &v);
    return s.ok() ? v : std::string(s.message().empty() ? "NOT_FOUND" : "ERR");
  }

  // Level 0: [a..c] [x..z]; level 1: [a..c] [x..z]; level 2: [a..z].
  // A flush of keys between c and x overlaps neither level 0 nor level 1
  // but does level 2, so it is placed at level 1.
  void BuildLevelsWithAGap() {
    PutAndFlush("a", "z");  // nothing to overlap: pushed to level 2
    PutAndFlush("a", "c");  // overlaps level 2: level 1
    PutAndFlush("x", "z");
    PutAndFlush("a", "c");  // overlaps level 1: level 0
    PutAndFlush("x", "z");
    const std::string files = *db_->GetProperty("sift.sstables");
    ASSERT_EQ(FilesAtLevel(db_.get(), 0), 2) << files;
    ASSERT_EQ(FilesAtLevel(db_.get(), 1), 2) << files;
    ASSERT_EQ(FilesAtLevel(db_.get(), 2), 1) << files;
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<FaultInjectionEnv> fault_;
  std::unique_ptr<GateEnv> gate_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// CompactRange keeps the state of its request on its own stack. When a
// writer's WAL append fails while the background thread is inside the
// request's compaction, CompactRange must still wait for that compaction
// to end before it returns: the compaction reports into the request.
TEST_F(ReliabilityTest, CompactRangeOutlivesItsCompactionWhenAWriteFails) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(BuildLevelsWithAGap());
  // The compaction's output file waits at the gate, then fails.
  gate_->Arm(GateEnv::Op::kNewWritableFile, ".sst",
             FaultInjectionEnv::IOError());
  std::atomic<bool> returned{false};
  absl::Status compact_status;
  std::thread compact([&] {
    compact_status = db_->CompactRange(std::nullopt, std::nullopt);
    returned.store(true);
  });
  ASSERT_TRUE(gate_->WaitUntilHeld());

  fault_->InjectError(FaultOp::kAppend, ".log",
                      FaultInjectionEnv::NoSpaceError());
  const absl::Status put = db_->Put(WriteOptions(), "b", "v");
  EXPECT_EQ(put.code(), absl::StatusCode::kResourceExhausted) << put;
  // A correct CompactRange never returns while its compaction is held, so
  // this wait only gives a broken one the time to show itself.
  for (int i = 0; i < 200 && !returned.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_FALSE(returned.load())
      << "CompactRange returned while its compaction was still running";
  gate_->Open();
  compact.join();
  EXPECT_FALSE(compact_status.ok());

  // Nothing acknowledged is lost.
  fault_->ClearErrors();
  ASSERT_NO_FATAL_FAILURE(Open());
  for (const char* k : {"a", "c", "x", "z"}) EXPECT_EQ(Get(k), "v") << k;
}

// The same when the flush that runs in the middle of the compaction fails:
// the compaction then removes its partial output, held at the gate, while
// the flush's error is already the background error.
TEST_F(ReliabilityTest, CompactRangeOutlivesItsCompactionWhenAFlushFails) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(BuildLevelsWithAGap());
  gate_->Arm(GateEnv::Op::kNewWritableFile, ".sst");
  std::atomic<bool> returned{false};
  absl::Status compact_status;
  std::thread compact([&] {
    compact_status = db_->CompactRange(std::nullopt, std::nullopt);
    returned.store(true);
  });
  ASSERT_TRUE(gate_->WaitUntilHeld());
  const std::string output = gate_->held_path();
  // Fill the memtable and switch it: the compaction flushes it as soon as
  // it goes on, and that flush cannot create its table.
  ASSERT_NO_FATAL_FAILURE(Put("m", std::string(70000, 'v')));
  ASSERT_NO_FATAL_FAILURE(Put("n", "v"));
  fault_->InjectError(FaultOp::kNewFile, ".sst", FaultInjectionEnv::IOError(),
                      /*skip=*/1);  // the held output itself goes through
  gate_->Arm(GateEnv::Op::kRemoveFile, output);
  gate_->Open();
  ASSERT_TRUE(gate_->WaitUntilHeld());
  for (int i = 0; i < 200 && !returned.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_FALSE(returned.load())
      << "CompactRange returned while its compaction was still running";
  gate_->Open();
  compact.join();
  EXPECT_FALSE(compact_status.ok());

  fault_->ClearErrors();
  ASSERT_NO_FATAL_FAILURE(Open());
  for (const char* k : {"a", "c", "x", "z", "n"}) EXPECT_EQ(Get(k), "v") << k;
  EXPECT_EQ(Get("m"), std::string(70000, 'v'));
}

// A memtable flushed while a compaction runs must not be placed at the
// compaction's output level inside the key range the compaction is about
// to cover: installing the compaction would then find two overlapping
// files at one level, and that error would stop every later write.
TEST_F(ReliabilityTest, FlushDuringCompactRangeAvoidsItsOutputRange) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(BuildLevelsWithAGap());
  gate_->Arm(GateEnv::Op::kNewWritableFile, ".sst");
  absl::Status compact_status;
  std::thread compact(
      [&] { compact_status = db_->CompactRange(std::nullopt, std::nullopt); });
  ASSERT_TRUE(gate_->WaitUntilHeld());  // level 0+1 -> 1 covers [a..z]
  // "m" fills the memtable; "n" switches it, so the compaction flushes
  // [m] as soon as it goes on.
  ASSERT_NO_FATAL_FAILURE(Put("m", std::string(70000, 'v')));
  ASSERT_NO_FATAL_FAILURE(Put("n", "v"));
  gate_->Open();
  compact.join();
  EXPECT_TRUE(compact_status.ok()) << compact_status;
  ASSERT_NO_FATAL_FAILURE(Put("o", "v"));
  for (const char* k : {"a", "c", "x", "z", "n", "o"}) {
    EXPECT_EQ(Get(k), "v") << k;
  }
  EXPECT_EQ(Get("m"), std::string(70000, 'v'));
  ASSERT_NO_FATAL_FAILURE(Open());
  for (const char* k : {"a", "c", "x", "z", "n", "o"}) {
    EXPECT_EQ(Get(k), "v") << k;
  }
}

// Runs probe on another thread while a file operation is held at the
// gate; true if it completed before the gate opened. The limit only turns
// a hang (the probe waiting for the held operation) into a failure.
bool CompletesWhileHeld(GateEnv* gate, const std::function<void()>& probe) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread t([&] {
    probe();
    done.set_value();
  });
  const bool completed =
      finished.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  gate->Open();
  t.join();
  return completed;
}

// Deleting obsolete files (here the WAL a flush retired) runs without the
// DB mutex: writes, snapshots and properties go on while an unlink hangs.
TEST_F(ReliabilityTest, FileDeletionDoesNotHoldUpTheDB) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Put("a", "v"));
  gate_->Arm(GateEnv::Op::kRemoveFile, ".log");
  std::thread flush([&] { EXPECT_TRUE(db_->Flush().ok()); });
  ASSERT_TRUE(gate_->WaitUntilHeld());
  const bool completed = CompletesWhileHeld(gate_.get(), [&] {
    EXPECT_TRUE(db_->Put(WriteOptions(), "b", "v").ok());
    db_->ReleaseSnapshot(db_->GetSnapshot());
    EXPECT_TRUE(db_->GetProperty("sift.stats").has_value());
  });
  flush.join();
  EXPECT_TRUE(completed) << "blocked behind the deletion of "
                         << gate_->held_path();
  EXPECT_EQ(Get("a"), "v");
  EXPECT_EQ(Get("b"), "v");
}

// A memtable switch syncs the directory and the old WAL without the DB
// mutex: snapshots and properties go on while the sync hangs.
TEST_F(ReliabilityTest, MemtableSwitchSyncsDoNotHoldUpTheDB) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Put("a", "v"));
  gate_->Arm(GateEnv::Op::kSyncDir, "/db");
  std::thread flush([&] { EXPECT_TRUE(db_->Flush().ok()); });
  ASSERT_TRUE(gate_->WaitUntilHeld());
  const bool completed = CompletesWhileHeld(gate_.get(), [&] {
    db_->ReleaseSnapshot(db_->GetSnapshot());
    EXPECT_TRUE(db_->GetProperty("sift.stats").has_value());
    EXPECT_EQ(Get("a"), "v");
  });
  flush.join();
  EXPECT_TRUE(completed) << "blocked behind a directory sync";
  ASSERT_NO_FATAL_FAILURE(Put("b", "v"));
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("a"), "v");
  EXPECT_EQ(Get("b"), "v");
}

// Damage under a table an open DB is reading (here the file cut short, as
// a truncation or an unreadable disk area leaves it) reads as an error
// with pread (allow_mmap_reads = false); through a memory map the same
// read raises SIGBUS and kills the process.
TEST(TableReadTest, TableCutShortUnderAnOpenDBReadsAsAnError) {
  const std::string path = test::TempDir("cut-short");
  Options options;
  options.create_if_missing = true;
  options.allow_mmap_reads = false;
  options.block_cache_capacity = 0;  // every Get reads its block
  options.compression = Compression::kNone;
  auto db = DB::Open(options, path);
  ASSERT_TRUE(db.ok()) << db.status();
  constexpr int kKeys = 2000;
  auto key = [](int i) { return absl::StrFormat("key%06d", i); };
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(
        (*db)->Put(WriteOptions(), key(i), std::string(1000, 'v')).ok());
  }
  ASSERT_TRUE((*db)->Flush().ok());
  std::string v;
  ASSERT_TRUE((*db)->Get(ReadOptions(), key(0), &v).ok());  // tables open
  for (const std::string& sst : test::ListTableFiles(Env::Default(), path)) {
    std::filesystem::resize_file(sst, std::filesystem::file_size(sst) / 2);
  }
  int errors = 0;
  for (int i = 0; i < kKeys; ++i) {
    const absl::Status s = (*db)->Get(ReadOptions(), key(i), &v);
    if (!s.ok()) {
      ++errors;
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    }
  }
  EXPECT_GT(errors, 0);
  db->reset();
  std::filesystem::remove_all(path);
}

}  // namespace
}  // namespace sift
