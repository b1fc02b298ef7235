// DB::IngestExternalFiles: files from SstFileWriter become part of the DB
// atomically, newer than what they overlap, invisible to older snapshots,
// at the deepest level they fit; bad input is refused with nothing
// changed; the result survives reopen, compaction and checkpoints.

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("k%05d", i); }

class IngestTest : public test::MemDBTest {
 protected:
  IngestTest() { EXPECT_TRUE(env_->CreateDir("/ext").ok()); }

  // Writes Key(i) -> "<tag><i>" for i in [from, to) with the given step;
  // keys in `deletes` become tombstones.
  std::string Write(const std::string& name, int from, int to,
                    const std::string& tag, int step = 1,
                    const std::vector<int>& deletes = {}) {
    const std::string path = "/ext/" + name;
    SstFileWriter w(options_);
    EXPECT_TRUE(w.Open(path).ok());
    for (int i = from; i < to; i += step) {
      bool del = false;
      for (int d : deletes) del = del || d == i;
      const absl::Status s =
          del ? w.Delete(Key(i)) : w.Put(Key(i), absl::StrCat(tag, i));
      EXPECT_TRUE(s.ok()) << s;
    }
    EXPECT_TRUE(w.Finish().ok());
    return path;
  }

  void PutRange(int from, int to, const std::string& tag) {
    for (int i = from; i < to; ++i) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), absl::StrCat(tag, i)).ok());
    }
  }

  std::string FilesAtLevel(int level) {
    return *db_->GetProperty(absl::StrCat("sift.num-files-at-level", level));
  }

  std::vector<std::string> DbFiles() {
    auto c = env_->GetChildren(path_);
    EXPECT_TRUE(c.ok());
    std::sort(c->begin(), c->end());
    return *c;
  }

  absl::Status Ingest(const std::vector<std::string>& paths,
                      IngestOptions o = IngestOptions()) {
    return db_->IngestExternalFiles(paths, o);
  }
};

TEST_F(IngestTest, NewKeysGoToTheBottomInAnyOrder) {
  Open();
  const std::string a = Write("a.sst", 0, 100, "a");
  const std::string b = Write("b.sst", 100, 200, "b");
  ASSERT_TRUE(Ingest({b, a}).ok());
  EXPECT_EQ(FilesAtLevel(6), "2");
  EXPECT_EQ(Get(Key(5)), "a5");
  EXPECT_EQ(Get(Key(150)), "b150");
  EXPECT_EQ(Get(Key(200)), "NOT_FOUND");
  EXPECT_EQ(test::DbContents(db_.get()).size(), 200u);
  // The source files stay (a copy, not a move).
  EXPECT_TRUE(env_->FileExists(a));
  EXPECT_TRUE(env_->FileExists(b));
}

TEST_F(IngestTest, NewerThanWhatItOverlapsAndHiddenFromOlderSnapshots) {
  Open();
  PutRange(0, 100, "old");
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  PutRange(100, 120, "mem");  // in the memtable: the ingest flushes it
  const Snapshot* before = db_->GetSnapshot();
  std::unique_ptr<Iterator> old_it = db_->NewIterator(ReadOptions());
  const std::string f = Write("f.sst", 50, 150, "new", 1, {60, 110});
  ASSERT_TRUE(Ingest({f}).ok());

  EXPECT_EQ(Get(Key(10)), "old10");
  EXPECT_EQ(Get(Key(50)), "new50");
  EXPECT_EQ(Get(Key(60)), "NOT_FOUND");  // an ingested tombstone
  EXPECT_EQ(Get(Key(105)), "new105");
  EXPECT_EQ(Get(Key(110)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(140)), "new140");
  // The snapshot and the iterator from before see none of it.
  EXPECT_EQ(Get(Key(50), before), "old50");
  EXPECT_EQ(Get(Key(60), before), "old60");
  EXPECT_EQ(Get(Key(110), before), "mem110");
  EXPECT_EQ(Get(Key(140), before), "NOT_FOUND");
  std::map<std::string, std::string> seen;
  for (old_it->SeekToFirst(); old_it->Valid(); old_it->Next()) {
    seen.emplace(std::string(old_it->key()), std::string(old_it->value()));
  }
  EXPECT_EQ(seen, test::DbContents(db_.get(), before));
  EXPECT_EQ(seen.size(), 120u);
  old_it.reset();

  // Through reopen (the global sequence is in the MANIFEST) and through a
  // compaction that rewrites the files with real sequences.
  const std::map<std::string, std::string> now = test::DbContents(db_.get());
  EXPECT_EQ(now.size(), 148u);
  db_->ReleaseSnapshot(before);
  Open();
  EXPECT_EQ(test::DbContents(db_.get()), now);
  const Snapshot* snap = db_->GetSnapshot();
  ASSERT_TRUE(db_->Put(WriteOptions(), Key(70), "later").ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(test::DbContents(db_.get(), snap), now);
  EXPECT_EQ(Get(Key(70)), "later");
  db_->ReleaseSnapshot(snap);
}

TEST_F(IngestTest, LevelIsAboveTheFirstOverlap) {
  Open();
  PutRange(0, 50, "old");
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  int deep = -1;  // the level of the one file
  for (int level = 0; level < 7; ++level) {
    if (FilesAtLevel(level) != "0") deep = level;
  }
  ASSERT_GE(deep, 1);
  PutRange(200, 210, "l0");
  ASSERT_TRUE(db_->Flush().ok());
  const int above = std::stoi(FilesAtLevel(deep - 1));
  // Overlaps the compacted file only: it goes right above it.
  ASSERT_TRUE(Ingest({Write("a.sst", 40, 60, "a")}).ok());
  EXPECT_EQ(FilesAtLevel(deep - 1), std::to_string(above + 1));
  // Overlaps nothing: the bottom.
  ASSERT_TRUE(Ingest({Write("b.sst", 300, 310, "b")}).ok());
  EXPECT_EQ(FilesAtLevel(6), deep == 6 ? "2" : "1");
  EXPECT_EQ(Get(Key(45)), "a45");
  EXPECT_EQ(Get(Key(30)), "old30");
  EXPECT_EQ(Get(Key(305)), "b305");
}

// Level 0 is searched newest first by file number. The flush an ingest
// forces writes older data than the ingest's, so the ingested file must
// still get the higher number.
TEST_F(IngestTest, AfterAForcedFlushTheIngestIsNewestAtLevelZero) {
  Open();
  for (int i = 0; i < 5 && FilesAtLevel(0) == "0"; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(5), "flushed").ok());
    ASSERT_TRUE(db_->Flush().ok());
  }
  ASSERT_EQ(FilesAtLevel(0), "1");  // so the next flush stays at level 0
  ASSERT_TRUE(db_->Put(WriteOptions(), Key(5), "mem").ok());
  ASSERT_TRUE(Ingest({Write("a.sst", 5, 6, "a")}).ok());
  EXPECT_EQ(FilesAtLevel(0), "3");
  EXPECT_EQ(Get(Key(5)), "a5");
  Open();
  EXPECT_EQ(Get(Key(5)), "a5");
}

TEST_F(IngestTest, MemTableOverlapWithoutBlockingFlushIsRefused) {
  Open();
  PutRange(0, 10, "mem");
  IngestOptions o;
  o.allow_blocking_flush = false;
  const absl::Status s = Ingest({Write("a.sst", 5, 15, "a")}, o);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_EQ(Get(Key(5)), "mem5");
  EXPECT_EQ(Get(Key(12)), "NOT_FOUND");
  // No overlap: no flush needed, so it goes in.
  ASSERT_TRUE(Ingest({Write("b.sst", 20, 30, "b")}, o).ok());
  EXPECT_EQ(Get(Key(25)), "b25");
}

TEST_F(IngestTest, BadInputIsRefusedWithNothingChanged) {
  Open();
  PutRange(0, 30, "old");
  ASSERT_TRUE(db_->Flush().ok());
  const std::vector<std::string> files = DbFiles();
  const std::map<std::string, std::string> before = test::DbContents(db_.get());
  const std::string good = Write("good.sst", 100, 200, "g");

  // Inputs overlapping each other.
  absl::Status s = Ingest({good, Write("over.sst", 150, 250, "o")});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("over.sst"), std::string::npos) << s;

  // A damaged data block: DataLoss naming the file and an offset.
  const std::string bad = Write("bad.sst", 300, 400, "b");
  std::string bytes;
  ASSERT_TRUE(ReadFileToString(env_.get(), bad, &bytes).ok());
  bytes[20] ^= 0x40;
  ASSERT_TRUE(WriteStringToFile(env_.get(), bytes, bad, false).ok());
  s = Ingest({good, bad});
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("bad.sst"), std::string::npos) << s;
  EXPECT_NE(s.message().find("offset"), std::string::npos) << s;

  // Truncated, missing, and a table the DB wrote (sequences not 0).
  const std::string cut = Write("cut.sst", 500, 600, "c");
  ASSERT_TRUE(ReadFileToString(env_.get(), cut, &bytes).ok());
  ASSERT_TRUE(WriteStringToFile(env_.get(), bytes.substr(0, bytes.size() / 2),
                                cut, false)
                  .ok());
  EXPECT_FALSE(Ingest({good, cut}).ok());
  EXPECT_TRUE(absl::IsNotFound(Ingest({good, "/ext/missing.sst"})));
  std::string own;
  for (const std::string& name : files) {
    if (name.find(".sst") != std::string::npos) own = path_ + "/" + name;
  }
  ASSERT_FALSE(own.empty());
  ASSERT_TRUE(ReadFileToString(env_.get(), own, &bytes).ok());
  ASSERT_TRUE(WriteStringToFile(env_.get(), bytes, "/ext/own.sst", false).ok());
  s = Ingest({"/ext/own.sst"});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::IsInvalidArgument(Ingest({})));

  EXPECT_EQ(DbFiles(), files);
  EXPECT_EQ(test::DbContents(db_.get()), before);
  Open();
  EXPECT_EQ(test::DbContents(db_.get()), before);
  ASSERT_TRUE(Ingest({good}).ok());  // the good file alone goes in
  EXPECT_EQ(test::DbContents(db_.get()).size(), 130u);
}

// On the real file system, a directory where a file is expected cannot be
// read: DataLoss naming it, as the header says, with nothing changed.
TEST(IngestPosixTest, ADirectoryIsDataLossNamingIt) {
  const std::string dir = test::TempDir("ingest_directory");
  Options options;
  options.create_if_missing = true;
  auto db = DB::Open(options, dir + "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Put(WriteOptions(), "k", "v").ok());
  const std::string not_a_file = dir + "/a-directory.sst";
  ASSERT_TRUE(Env::Default()->CreateDir(not_a_file).ok());
  const absl::Status s =
      (*db)->IngestExternalFiles({not_a_file}, IngestOptions());
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(not_a_file), std::string::npos) << s;
  EXPECT_EQ(test::DbContents(db->get()).size(), 1u);
  db->reset();
  std::filesystem::remove_all(dir);
}

TEST_F(IngestTest, MoveFilesLinksAndRemovesTheSourceOnlyOnSuccess) {
  Open();
  IngestOptions o;
  o.move_files = true;
  const std::string a = Write("a.sst", 0, 50, "a");
  const std::string over = Write("over.sst", 40, 60, "o");
  EXPECT_FALSE(Ingest({a, over}, o).ok());
  EXPECT_TRUE(env_->FileExists(a));
  EXPECT_TRUE(env_->FileExists(over));
  ASSERT_TRUE(Ingest({a}, o).ok());
  EXPECT_FALSE(env_->FileExists(a));
  EXPECT_EQ(Get(Key(7)), "a7");
  Open();
  EXPECT_EQ(Get(Key(49)), "a49");
}

TEST_F(IngestTest, CheckpointKeepsIngestedFiles) {
  Open();
  PutRange(0, 20, "old");
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(Ingest({Write("a.sst", 10, 30, "a")}).ok());
  ASSERT_TRUE(db_->CreateCheckpoint("/ckpt").ok());
  const std::map<std::string, std::string> want = test::DbContents(db_.get());
  path_ = "/ckpt";
  Open();
  EXPECT_EQ(test::DbContents(db_.get()), want);
  EXPECT_EQ(Get(Key(15)), "a15");
}

}  // namespace
}  // namespace sift
