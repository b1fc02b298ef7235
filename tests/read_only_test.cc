// DB::OpenForReadOnly: it sees tables and unflushed logs, refuses writes,
// takes no lock (so it opens beside a writer, in this process or another)
// and leaves every byte of the directory as it was.

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "tests/testutil/dir_snapshot.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int i) { return absl::StrFormat("value%d", i); }

class ReadOnlyTest : public ::testing::Test {
 protected:
  ReadOnlyTest()
      : dir_(test::TempDir(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        path_(dir_ + "/db") {
    options_.create_if_missing = true;
  }
  ~ReadOnlyTest() override { std::filesystem::remove_all(dir_); }

  // Keys [0, 300): [0, 200) flushed to a table, the rest only in the WAL;
  // key 5 deleted (in the WAL). Closes the DB.
  void Fill() {
    auto db = DB::Open(options_, path_);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE((*db)->Flush().ok());
    for (int i = 200; i < 300; ++i) {
      ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE((*db)->Delete(WriteOptions(), Key(5)).ok());
  }

  // Expects db to hold exactly what Fill wrote.
  static void ExpectFilled(DB* db) {
    std::string value;
    for (int i = 0; i < 300; ++i) {
      absl::Status s = db->Get(ReadOptions(), Key(i), &value);
      if (i == 5) {
        EXPECT_TRUE(absl::IsNotFound(s)) << s;
      } else {
        ASSERT_TRUE(s.ok()) << Key(i) << ": " << s;
        EXPECT_EQ(value, Value(i));
      }
    }
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_TRUE(it->status().ok()) << it->status();
    EXPECT_EQ(n, 299);
  }

  std::string dir_;
  std::string path_;
  Options options_;
};

TEST_F(ReadOnlyTest, MissingDatabaseFailsAndNothingIsCreated) {
  // create_if_missing does not apply to a read-only open.
  auto db = DB::OpenForReadOnly(options_, path_);
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(db.status())) << db.status();
  EXPECT_NE(db.status().message().find(path_), std::string_view::npos);
  EXPECT_FALSE(std::filesystem::exists(path_));

  std::filesystem::create_directories(path_);
  db = DB::OpenForReadOnly(options_, path_);
  EXPECT_TRUE(absl::IsFailedPrecondition(db.status())) << db.status();
  EXPECT_TRUE(std::filesystem::is_empty(path_));
}

TEST_F(ReadOnlyTest, SeesTablesAndUnflushedLogAndWritesNothing) {
  Fill();
  const test::DirSnapshot before = test::SnapshotDir(path_);
  bool has_log_bytes = false;
  for (const auto& [name, bytes] : before) {
    if (name.ends_with(".log") && !bytes.empty()) has_log_bytes = true;
  }
  ASSERT_TRUE(has_log_bytes) << "Fill should leave writes in a WAL";
  {
    auto db = DB::OpenForReadOnly(options_, path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ExpectFilled(db->get());
    const Snapshot* snap = (*db)->GetSnapshot();
    std::string value;
    ReadOptions at_snap;
    at_snap.snapshot = snap;
    EXPECT_TRUE((*db)->Get(at_snap, Key(250), &value).ok());
    (*db)->ReleaseSnapshot(snap);
    EXPECT_TRUE((*db)->GetProperty("sift.levels").has_value());

    WriteBatch batch;
    batch.Put("x", "y");
    for (const absl::Status& s :
         {(*db)->Put(WriteOptions(), "x", "y"),
          (*db)->Delete(WriteOptions(), Key(1)),
          (*db)->Write(WriteOptions(), &batch), (*db)->Flush(),
          (*db)->CompactRange(std::nullopt, std::nullopt)}) {
      EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
      EXPECT_NE(s.message().find("read-only"), std::string_view::npos) << s;
    }
    EXPECT_TRUE((*db)->WaitForCompaction().ok());
    EXPECT_TRUE(absl::IsNotFound((*db)->Get(ReadOptions(), "x", &value)));
    ExpectFilled(db->get());
  }
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(path_)), "");

  // A writable open afterwards recovers the same state.
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(db.ok()) << db.status();
  ExpectFilled(db->get());
}

TEST_F(ReadOnlyTest, OpensBesideAWriterInThisProcess) {
  auto writer = DB::Open(options_, path_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Put(WriteOptions(), "flushed", "1").ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  ASSERT_TRUE((*writer)->Put(WriteOptions(), "in-log", "2").ok());
  // The writer holds LOCK: a second writable open is refused.
  EXPECT_TRUE(absl::IsFailedPrecondition(DB::Open(options_, path_).status()));

  auto reader = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto reader2 = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(reader2.ok()) << reader2.status();
  std::string value;
  ASSERT_TRUE((*reader)->Get(ReadOptions(), "flushed", &value).ok());
  EXPECT_EQ(value, "1");
  ASSERT_TRUE((*reader2)->Get(ReadOptions(), "in-log", &value).ok());
  EXPECT_EQ(value, "2");

  // The writer goes on; the readers keep the state they opened with.
  ASSERT_TRUE((*writer)->Put(WriteOptions(), "later", "3").ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  EXPECT_TRUE(absl::IsNotFound((*reader)->Get(ReadOptions(), "later", &value)));
  auto reader3 = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(reader3.ok()) << reader3.status();
  ASSERT_TRUE((*reader3)->Get(ReadOptions(), "later", &value).ok());
  EXPECT_EQ(value, "3");
}

// A child process that opens the DB for writing and holds it open.
class WriterProcess {
 public:
  // Forks; the child runs body(db, stop_fd), then exits 0 if it returned
  // true. The parent returns once the child wrote its ready byte.
  template <typename Body>
  WriterProcess(const Options& options, const std::string& path, Body body) {
    int ready[2], stop[2];
    EXPECT_EQ(pipe(ready), 0);
    EXPECT_EQ(pipe(stop), 0);
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      close(stop[1]);
      auto db = DB::Open(options, path);
      const bool ok = db.ok() && body(db->get(), ready[1], stop[0]);
      _exit(ok ? 0 : 1);
    }
    close(ready[1]);
    close(stop[0]);
    stop_fd_ = stop[1];
    char c;
    EXPECT_EQ(read(ready[0], &c, 1), 1) << "the writer failed to start";
    close(ready[0]);
  }
  // Tells the child to stop; its exit status (0: all its writes worked).
  int Stop() {
    close(stop_fd_);
    int status = 0;
    EXPECT_EQ(waitpid(pid_, &status, 0), pid_) << std::strerror(errno);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int stop_fd_ = -1;
};

TEST_F(ReadOnlyTest, OpensBesideAWriterProcessHoldingTheLock) {
  WriterProcess writer(options_, path_, [](DB* db, int ready, int stop) {
    for (int i = 0; i < 1000; ++i) {
      if (!db->Put(WriteOptions(), Key(i), Value(i)).ok()) return false;
      if (i == 499 && !db->Flush().ok()) return false;
    }
    if (write(ready, "r", 1) != 1) return false;
    char c;
    return read(stop, &c, 1) == 0;  // EOF: the parent is done
  });
  const test::DirSnapshot before = test::SnapshotDir(path_);
  EXPECT_TRUE(absl::IsFailedPrecondition(DB::Open(options_, path_).status()))
      << "the child should hold LOCK";
  {
    auto db = DB::OpenForReadOnly(options_, path_);
    ASSERT_TRUE(db.ok()) << db.status();
    std::string value;
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE((*db)->Get(ReadOptions(), Key(i), &value).ok()) << Key(i);
      EXPECT_EQ(value, Value(i));
    }
  }
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(path_)), "");
  EXPECT_EQ(writer.Stop(), 0);
}

// While a writer process writes keys 0, 1, 2, ... one at a time, flushing
// and compacting as it goes, every read-only open sees a prefix of them:
// each write acknowledged before one it sees, and nothing torn.
TEST_F(ReadOnlyTest, EveryOpenBesideABusyWriterSeesAPrefix) {
  Options writer_options = options_;
  writer_options.write_buffer_size = 32 << 10;  // flush every few hundred
  writer_options.level0_compaction_trigger = 2;
  WriterProcess writer(writer_options, path_, [](DB* db, int ready, int stop) {
    for (int i = 0;; ++i) {
      if (!db->Put(WriteOptions(), Key(i), Value(i)).ok()) return false;
      if (i == 100 && write(ready, "r", 1) != 1) return false;
      if (i % 64 == 0) {
        pollfd p{stop, POLLIN, 0};
        if (poll(&p, 1, 0) != 0) return true;  // EOF: the parent is done
        // A sanitizer build slows the reading open far more than these
        // writes: without a pause every attempt races with a flush and the
        // open is Unavailable (see DB::OpenForReadOnly).
        if (test::kSanitizerBuild) usleep(500);
      }
    }
  });
  // Until the reads have crossed several flushes and compactions (a
  // bound on rounds, not time, in case the writer stalls).
  int last_seen = 0;
  int round = 0;
  for (; round < 5000 && (round < 20 || last_seen < 20000); ++round) {
    auto db = DB::OpenForReadOnly(options_, path_);
    ASSERT_TRUE(db.ok()) << "round " << round << ": " << db.status();
    std::unique_ptr<Iterator> it = (*db)->NewIterator(ReadOptions());
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      ASSERT_EQ(it->key(), Key(n)) << "round " << round;
      ASSERT_EQ(it->value(), Value(n));
    }
    ASSERT_TRUE(it->status().ok()) << it->status();
    EXPECT_GE(n, std::max(last_seen, 101)) << "round " << round;
    last_seen = n;
  }
  EXPECT_GE(last_seen, 20000) << "after " << round << " rounds";
  EXPECT_EQ(writer.Stop(), 0);
}

TEST_F(ReadOnlyTest, TornLogTailIsDroppedInMemoryAndLeftOnDisk) {
  Fill();
  std::string log;
  for (const auto& [name, bytes] : test::SnapshotDir(path_)) {
    if (name.ends_with(".log") && !bytes.empty()) log = path_ + "/" + name;
  }
  ASSERT_FALSE(log.empty());
  // Cut into the last record: Fill's Delete of key 5.
  std::filesystem::resize_file(log, std::filesystem::file_size(log) - 3);
  const test::DirSnapshot before = test::SnapshotDir(path_);
  {
    auto db = DB::OpenForReadOnly(options_, path_);
    ASSERT_TRUE(db.ok()) << db.status();
    std::string value;
    ASSERT_TRUE((*db)->Get(ReadOptions(), Key(5), &value).ok());
    EXPECT_EQ(value, Value(5));
    ASSERT_TRUE((*db)->Get(ReadOptions(), Key(299), &value).ok());
  }
  // A writable open would rewrite the log's contents into a table; a
  // read-only one leaves the torn bytes for that open to see.
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(path_)), "");
}

TEST_F(ReadOnlyTest, MissingTableIsDataLossAndNothingIsTouched) {
  Fill();
  for (const auto& [name, bytes] : test::SnapshotDir(path_)) {
    if (name.ends_with(".sst")) std::filesystem::remove(path_ + "/" + name);
  }
  const test::DirSnapshot before = test::SnapshotDir(path_);
  auto db = DB::OpenForReadOnly(options_, path_);
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(absl::IsDataLoss(db.status())) << db.status();
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(path_)), "");
}

}  // namespace
}  // namespace sift
