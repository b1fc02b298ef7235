// Options::max_background_jobs: flushes and compactions on several
// threads. A GateEnv holds one compaction inside its first output file, so
// what runs beside it is certain rather than likely: a flush is never
// queued behind it (two or more threads), a second compaction of disjoint
// files runs and installs meanwhile (three or more), and with one thread
// both wait. The model, crash and threaded stress tests run the same code
// with several threads under load (and ThreadSanitizer in CI).

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/statistics.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/gate_env.h"

namespace sift {
namespace {

using test::GateEnv;

constexpr auto kPatience = std::chrono::seconds(30);

class BackgroundJobsTest : public ::testing::Test {
 protected:
  BackgroundJobsTest()
      : base_(NewMemEnv()), gate_(std::make_unique<GateEnv>(base_.get())) {
    options_.env = gate_.get();
    options_.create_if_missing = true;
    // While the tree is built, nothing compacts.
    options_.level0_compaction_trigger = 100;
    options_.level0_slowdown_writes_trigger = 1000;
    options_.level0_stop_writes_trigger = 1000;
  }

  ~BackgroundJobsTest() override {
    gate_->Open();
    db_.reset();  // before the Envs it uses
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  // One flushed table of keys <prefix>100..<prefix><99 + n>, each value
  // "round<round>" padded to value_size bytes.
  void FlushedTable(const std::string& prefix, int round, int n = 100,
                    size_t value_size = 10) {
    for (int i = 0; i < n; ++i) {
      std::string value = absl::StrCat("round", round);
      value.resize(std::max(value.size(), value_size), '.');
      ASSERT_TRUE(
          db_->Put(WriteOptions(), absl::StrCat(prefix, 100 + i), value).ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
  }

  // The tree the tests start from. Each flush goes as deep as it can
  // without overlapping (at most level 2), so:
  //   level 0: "k"   level 1: "a" (~100 KiB), "k"   level 2: "a", "k"
  void BuildTree() {
    options_.compression = Compression::kNone;  // sizes as written
    ASSERT_NO_FATAL_FAILURE(Open());
    for (int round = 0; round < 2; ++round) {
      ASSERT_NO_FATAL_FAILURE(FlushedTable("a", round, 1000, 100));
    }
    for (int round = 0; round < 3; ++round) {
      ASSERT_NO_FATAL_FAILURE(FlushedTable("k", round));
    }
    ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 1);
    ASSERT_EQ(test::FilesAtLevel(db_.get(), 1), 2);
    ASSERT_EQ(test::FilesAtLevel(db_.get(), 2), 2);
  }

  // Reopens the tree with `jobs` threads and one compaction due: level 1
  // over its 64 KiB target, and its first file, "a", goes to level 2 (the
  // "k" file alone would not be due: a level's score leaves out the files
  // compactions take). Its first output is held at the gate. Level 0 has
  // one file of its trigger's two.
  void ReopenWithACompactionHeld(int jobs) {
    db_.reset();
    options_.max_background_jobs = jobs;
    options_.level0_compaction_trigger = 2;
    options_.max_bytes_for_level_base = 64 << 10;
    gate_->Arm(GateEnv::Op::kNewWritableFile, ".sst");
    ASSERT_NO_FATAL_FAILURE(Open());
    ASSERT_TRUE(gate_->WaitUntilHeld());
    EXPECT_EQ(db_->GetProperty("sift.num-running-compactions"), "1");
  }

  // Every key holds its last round's value ("k": k_round).
  void ExpectAllKeys(int k_round = 2) {
    std::string value;
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(
          db_->Get(ReadOptions(), absl::StrCat("a", 100 + i), &value).ok());
      EXPECT_EQ(value.substr(0, 7), "round1.");
    }
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(
          db_->Get(ReadOptions(), absl::StrCat("k", 100 + i), &value).ok());
      EXPECT_EQ(value.substr(0, 6), absl::StrCat("round", k_round));
    }
  }

  // Puts "fresh" and flushes it on a thread of its own.
  std::future<absl::Status> PutAndFlushInTheBackground() {
    EXPECT_TRUE(db_->Put(WriteOptions(), "fresh", "value").ok());
    return std::async(std::launch::async, [this] { return db_->Flush(); });
  }

  // Polls cond until it holds or kPatience has passed.
  template <typename Cond>
  static bool Eventually(Cond cond) {
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (!cond()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<GateEnv> gate_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(BackgroundJobsTest, AFlushIsNotQueuedBehindARunningCompaction) {
  ASSERT_NO_FATAL_FAILURE(BuildTree());
  ASSERT_NO_FATAL_FAILURE(ReopenWithACompactionHeld(2));
  // The compaction cannot finish while it is held; the flush must.
  std::future<absl::Status> flush = PutAndFlushInTheBackground();
  EXPECT_EQ(flush.wait_for(kPatience), std::future_status::ready)
      << "the flush waited for the held compaction";
  EXPECT_EQ(db_->GetProperty("sift.num-running-compactions"), "1");
  gate_->Open();
  ASSERT_TRUE(flush.get().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  std::string value;
  ASSERT_TRUE(db_->Get(ReadOptions(), "fresh", &value).ok());
  EXPECT_EQ(value, "value");
  ASSERT_NO_FATAL_FAILURE(ExpectAllKeys());
  EXPECT_TRUE(db_->Close().ok());
}

// The contrast that shows the gate holds what it should: one thread does
// the compaction and then the flush.
TEST_F(BackgroundJobsTest, WithOneThreadTheFlushWaitsForTheCompaction) {
  ASSERT_NO_FATAL_FAILURE(BuildTree());
  ASSERT_NO_FATAL_FAILURE(ReopenWithACompactionHeld(1));
  std::future<absl::Status> flush = PutAndFlushInTheBackground();
  EXPECT_EQ(flush.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  gate_->Open();
  ASSERT_TRUE(flush.get().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  ASSERT_NO_FATAL_FAILURE(ExpectAllKeys());
}

TEST_F(BackgroundJobsTest, DisjointCompactionsRunAtOnce) {
  ASSERT_NO_FATAL_FAILURE(BuildTree());
  // Three threads: two may compact, one is kept for flushes.
  ASSERT_NO_FATAL_FAILURE(ReopenWithACompactionHeld(3));
  // A second "k" table in level 0 makes it due: its compaction into level
  // 1 ("k" there too) is disjoint from the held one's files and output,
  // so it runs and installs while that one is held, and level 0 empties.
  ASSERT_NO_FATAL_FAILURE(FlushedTable("k", 3));
  EXPECT_TRUE(Eventually([this] {
    return test::FilesAtLevel(db_.get(), 0) == 0;
  })) << "the level-0 compaction did not run beside the held one";
  EXPECT_EQ(db_->GetProperty("sift.num-running-compactions"), "1");
  ASSERT_NO_FATAL_FAILURE(ExpectAllKeys(3));
  gate_->Open();
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  ASSERT_NO_FATAL_FAILURE(ExpectAllKeys(3));
  // Every table in the directory is one the DB names.
  EXPECT_EQ(static_cast<int>(test::ListTableFiles(base_.get(), "/db").size()),
            test::TotalFilesInLevels(db_.get()));
  ASSERT_TRUE(db_->Close().ok());
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(ExpectAllKeys(3));
}

// With two threads, one compacts: the level-0 compaction waits for the
// held one (level 0 keeps its files while it is held).
TEST_F(BackgroundJobsTest, TwoThreadsRunOneCompactionAtATime) {
  ASSERT_NO_FATAL_FAILURE(BuildTree());
  ASSERT_NO_FATAL_FAILURE(ReopenWithACompactionHeld(2));
  ASSERT_NO_FATAL_FAILURE(FlushedTable("k", 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 2);
  gate_->Open();
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  ASSERT_NO_FATAL_FAILURE(ExpectAllKeys(3));
}

// Options::max_subcompactions: a level-0 -> level-1 compaction over many
// level-1 files is merged in key ranges on their own threads, and the
// result is the same as one merge: every key's newest value, a range
// tombstone across the cuts still deleting, the tree valid (the invariant
// checks run at every install in the test build) and nothing left behind.
class SubcompactionTest : public BackgroundJobsTest {
 protected:
  static constexpr int kKeys = 4000;

  static std::string Key(int i) { return absl::StrFormat("k%05d", i); }

  void PutRound(int round) {
    const std::string pad(100, 'v');
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(
          db_->Put(WriteOptions(), Key(i), absl::StrCat(round, pad)).ok());
    }
  }

  // Level 1 holds many small files; level 0 is empty.
  void BuildWideLevel1(int subcompactions) {
    options_.compression = Compression::kNone;  // files cut by raw size
    options_.max_subcompactions = subcompactions;
    options_.max_file_size = 4 << 10;
    options_.level0_compaction_trigger = 2;
    options_.max_bytes_for_level_base = uint64_t{1} << 30;  // level 1 stays
    ASSERT_NO_FATAL_FAILURE(Open());
    // Flushed to level 2, then twice to level 0 (the level-2 file is too
    // big an overlap for a table to go deeper), which merges into level 1
    // (nothing there: no split yet), cut into small files.
    for (int round = 0; round < 3; ++round) {
      ASSERT_NO_FATAL_FAILURE(PutRound(round));
      ASSERT_TRUE(db_->Flush().ok());
      ASSERT_TRUE(db_->WaitForCompaction().ok());
    }
    ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
    ASSERT_GE(test::FilesAtLevel(db_.get(), 1), 8);
    ASSERT_EQ(db_->GetStatistics().Get(kSubcompactions), 0u);
  }

  // Two more rounds over every key (the second deleting [k00500, k01500)
  // too) flush to level 0 and merge into the wide level 1.
  void CompactTwoRoundsIntoLevel1() {
    ASSERT_NO_FATAL_FAILURE(PutRound(4));
    ASSERT_TRUE(db_->Flush().ok());
    ASSERT_NO_FATAL_FAILURE(PutRound(5));
    ASSERT_TRUE(db_->DeleteRange(WriteOptions(), Key(500), Key(1500)).ok());
    ASSERT_TRUE(db_->Flush().ok());
    ASSERT_TRUE(db_->WaitForCompaction().ok());
    ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  }

  void ExpectRound5OutsideTheDeletedRange() {
    const std::string pad(100, 'v');
    std::string value;
    for (int i = 0; i < kKeys; ++i) {
      const absl::Status s = db_->Get(ReadOptions(), Key(i), &value);
      if (i >= 500 && i < 1500) {
        ASSERT_TRUE(absl::IsNotFound(s)) << Key(i) << ": " << s;
      } else {
        ASSERT_TRUE(s.ok()) << Key(i) << ": " << s;
        ASSERT_EQ(value, absl::StrCat(5, pad)) << Key(i);
      }
    }
    int n = 0;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    ASSERT_TRUE(it->status().ok());
    EXPECT_EQ(n, kKeys - 1000);
  }
};

TEST_F(SubcompactionTest, ALevel0CompactionIsSplitAndGivesTheSameResult) {
  ASSERT_NO_FATAL_FAILURE(BuildWideLevel1(4));
  ASSERT_NO_FATAL_FAILURE(CompactTwoRoundsIntoLevel1());
  // Four ranges merged at once.
  EXPECT_EQ(db_->GetStatistics().Get(kSubcompactions), 4u);
  ASSERT_NO_FATAL_FAILURE(ExpectRound5OutsideTheDeletedRange());
  EXPECT_EQ(static_cast<int>(test::ListTableFiles(base_.get(), "/db").size()),
            test::TotalFilesInLevels(db_.get()));
  ASSERT_TRUE(db_->Close().ok());
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(ExpectRound5OutsideTheDeletedRange());
}

TEST_F(SubcompactionTest, OneSubcompactionMergesWhole) {
  ASSERT_NO_FATAL_FAILURE(BuildWideLevel1(1));
  ASSERT_NO_FATAL_FAILURE(CompactTwoRoundsIntoLevel1());
  EXPECT_EQ(db_->GetStatistics().Get(kSubcompactions), 0u);
  ASSERT_NO_FATAL_FAILURE(ExpectRound5OutsideTheDeletedRange());
}

TEST_F(BackgroundJobsTest, OutOfRangeJobCountsAreRefusedByName) {
  for (int jobs : {0, -1, 65}) {
    options_.max_background_jobs = jobs;
    auto db = DB::Open(options_, "/db");
    ASSERT_FALSE(db.ok()) << jobs;
    EXPECT_TRUE(absl::IsInvalidArgument(db.status()));
    EXPECT_NE(db.status().message().find("max_background_jobs"),
              std::string::npos)
        << db.status();
  }
  options_.max_background_jobs = 2;
  options_.max_subcompactions = 0;
  auto db = DB::Open(options_, "/db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("max_subcompactions"), std::string::npos)
      << db.status();
}

}  // namespace
}  // namespace sift
