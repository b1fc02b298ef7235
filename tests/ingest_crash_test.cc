// IngestExternalFiles across a machine crash: an I/O error is injected at
// each step of an ingest (the flush it forces, the copies or links, their
// syncs, the directory sync, the MANIFEST write), then the machine
// "crashes" (FaultInjectionEnv drops everything not durable) and the DB
// reopens. The ingest must be there whole or not at all, and every synced
// write from before it must be there; an ingest that returned OK must be
// there whole.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/filename.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("k%05d", i); }

using Model = std::map<std::string, std::string>;

struct Step {
  FaultOp op;
  const char* path;  // substring of the paths it hits
};

class IngestCrashTest : public ::testing::TestWithParam<bool> {
 protected:
  void WriteExternal(Env* env, const std::string& path, int from, int to) {
    Options o;
    o.env = env;
    SstFileWriter w(o);
    ASSERT_TRUE(w.Open(path).ok());
    for (int i = from; i < to; ++i) {
      ASSERT_TRUE(w.Put(Key(i), absl::StrCat("new", i)).ok());
    }
    ASSERT_TRUE(w.Finish().ok());
  }

  // One ingest with `step` failing after `skip` matching calls, a crash,
  // and a reopen. Returns whether the ingest is there.
  bool RunOnce(const Step& step, int skip) {
    std::unique_ptr<Env> base = NewMemEnv();
    FaultInjectionEnv env(base.get());
    Options options;
    options.env = &env;
    options.create_if_missing = true;
    Model none, all;
    std::unique_ptr<DB> db = *DB::Open(options, "/db");
    WriteOptions sync;
    sync.sync = true;
    for (int i = 0; i < 120; ++i) {
      const std::string v = absl::StrCat(i < 100 ? "old" : "mem", i);
      EXPECT_TRUE(db->Put(sync, Key(i), v).ok());
      none[Key(i)] = v;
      if (i == 99) {
        EXPECT_TRUE(db->Flush().ok());
      }
    }
    EXPECT_TRUE(base->CreateDir("/ext").ok());
    WriteExternal(base.get(), "/ext/a.sst", 50, 150);
    WriteExternal(base.get(), "/ext/b.sst", 200, 250);
    all = none;
    for (int i = 50; i < 250; ++i) {
      if (i < 150 || i >= 200) all[Key(i)] = absl::StrCat("new", i);
    }
    IngestOptions io;
    io.move_files = GetParam();
    env.InjectError(step.op, step.path, FaultInjectionEnv::IOError(), skip);
    const absl::Status s =
        db->IngestExternalFiles({"/ext/b.sst", "/ext/a.sst"}, io);
    env.SetFilesystemActive(false);
    db.reset();
    EXPECT_TRUE(env.SimulateCrash().ok());
    env.SetFilesystemActive(true);
    env.ClearErrors();
    options.create_if_missing = false;
    auto reopened = DB::Open(options, "/db");
    EXPECT_TRUE(reopened.ok()) << reopened.status();
    if (!reopened.ok()) return false;
    const Model got = test::DbContents(reopened->get());
    const bool present = got == all;
    EXPECT_TRUE(present || got == none)
        << FaultOpName(step.op) << " " << step.path << " skip " << skip << ": "
        << got.size() << " keys, neither all nor none of the ingest";
    if (s.ok()) {
      EXPECT_TRUE(present) << "acknowledged ingest lost: " << s;
    } else {
      // A move leaves the sources unless the ingest reported success.
      EXPECT_TRUE(base->FileExists("/ext/a.sst"));
    }
    return present;
  }
};

TEST_P(IngestCrashTest, WhollyPresentOrAbsentAfterACrashAtEachStep) {
  const Step steps[] = {
      {FaultOp::kNewFile, ".sst"},  {FaultOp::kAppend, ".sst"},
      {FaultOp::kSync, ".sst"},     {FaultOp::kLink, ".sst"},
      {FaultOp::kSyncDir, "/db"},   {FaultOp::kAppend, "MANIFEST"},
      {FaultOp::kSync, "MANIFEST"}, {FaultOp::kRename, "CURRENT"},
  };
  int present = 0, absent = 0;
  for (const Step& step : steps) {
    for (int skip = 0; skip < 3; ++skip) {
      SCOPED_TRACE(
          absl::StrCat(FaultOpName(step.op), " ", step.path, " skip ", skip));
      (RunOnce(step, skip) ? present : absent) += 1;
    }
  }
  // Both outcomes happen: the faults hit the ingest, and some steps come
  // after its commit point.
  EXPECT_GT(absent, 0);
  EXPECT_GT(present, 0);
}

// A moved ingest links its file in before its MANIFEST record is durable;
// a crash between the two leaves a table no Version names, numbered at or
// above the recovered next file number. Recovery must count such numbers
// as used (and the sweep after Open remove the file), or the number is
// handed out again and the next link to it fails with "File exists".
TEST(IngestOrphanTest, TablesAboveTheRecoveredFileNumberAreRemovedNotReused) {
  std::unique_ptr<Env> env = NewMemEnv();
  Options options;
  options.env = env.get();
  options.create_if_missing = true;
  uint64_t highest = 0;
  {
    std::unique_ptr<DB> db = *DB::Open(options, "/db");
    ASSERT_TRUE(db->Put(WriteOptions(), Key(0), "v0").ok());
    ASSERT_TRUE(db->Flush().ok());
  }
  std::string table;
  const std::vector<std::string> children = *env->GetChildren("/db");
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kTable) {
      highest = std::max(highest, number);
      ASSERT_TRUE(ReadFileToString(env.get(), "/db/" + name, &table).ok());
    }
  }
  ASSERT_GT(highest, 0u);
  // The orphans: what lost ingests would have left, at the numbers the
  // next files would take.
  std::vector<std::string> orphans;
  for (uint64_t n = highest + 1; n <= highest + 30; ++n) {
    orphans.push_back(TableFileName("/db", n));
    ASSERT_TRUE(WriteStringToFile(env.get(), table, orphans.back(), true).ok());
  }
  options.create_if_missing = false;
  std::unique_ptr<DB> db = *DB::Open(options, "/db");
  for (const std::string& path : orphans) {
    EXPECT_FALSE(env->FileExists(path)) << path << " survived the reopen";
  }
  ASSERT_TRUE(env->CreateDir("/ext").ok());
  IngestOptions move;
  move.move_files = true;
  for (int i = 1; i <= 6; ++i) {
    const std::string ext = absl::StrCat("/ext/", i, ".sst");
    SstFileWriter w(options);
    ASSERT_TRUE(w.Open(ext).ok());
    ASSERT_TRUE(w.Put(Key(i * 10), absl::StrCat("ingested", i)).ok());
    ASSERT_TRUE(w.Finish().ok());
    const absl::Status s = db->IngestExternalFiles({ext}, move);
    ASSERT_TRUE(s.ok()) << "ingest " << i << ": " << s;
    ASSERT_TRUE(db->Put(WriteOptions(), Key(i * 10 + 1), "put").ok());
    ASSERT_TRUE(db->Flush().ok());
  }
  const Model got = test::DbContents(db.get());
  EXPECT_EQ(got.size(), 13u);
  EXPECT_EQ(got.at(Key(60)), "ingested6");
}

INSTANTIATE_TEST_SUITE_P(CopyOrMove, IngestCrashTest, ::testing::Bool());

}  // namespace
}  // namespace sift
