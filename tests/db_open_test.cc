// What makes a database exist: a first Open that fails at any step leaves
// a path a later Open can use; Open without create_if_missing makes
// nothing; DestroyDB removes only a database, and only its own files.

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/log_writer.h"
#include "gtest/gtest.h"
#include "sift/comparator.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/gate_env.h"
#include "util/coding.h"

namespace sift {
namespace {

constexpr char kPath[] = "/db";

std::vector<std::string> Children(Env* env, const std::string& dir) {
  auto c = env->GetChildren(dir);
  if (!c.ok()) return {};
  std::sort(c->begin(), c->end());
  return *c;
}

// Opens kPath, writes a key, reopens and reads it back.
void ExpectUsable(const Options& options) {
  {
    auto db = DB::Open(options, kPath);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(WriteOptions(), "k", "v").ok());
  }
  auto db = DB::Open(options, kPath);
  ASSERT_TRUE(db.ok()) << db.status();
  std::string v;
  ASSERT_TRUE((*db)->Get(ReadOptions(), "k", &v).ok());
  EXPECT_EQ(v, "v");
}

struct FirstOpenFault {
  FaultOp op;
  const char* file;
};

// Each file operation of the first Open fails in turn (the n-th matching
// call), with and without a machine crash right after; a clean Open of the
// same path must then create the database.
TEST(DBOpenTest, FailedFirstOpenLeavesAUsablePath) {
  const FirstOpenFault faults[] = {
      {FaultOp::kNewFile, ""},  {FaultOp::kAppend, ""},
      {FaultOp::kSync, ""},     {FaultOp::kRename, ""},
      {FaultOp::kSyncDir, ""},  {FaultOp::kNewFile, ".log"},
      {FaultOp::kSync, ".log"},
  };
  for (const FirstOpenFault& f : faults) {
    bool failed = true;
    for (int skip = 0; failed; ++skip) {
      failed = false;
      for (bool crash : {false, true}) {
        SCOPED_TRACE(absl::StrCat(FaultOpName(f.op), " '", f.file, "' after ",
                                  skip, crash ? ", then a crash" : ""));
        auto mem = NewMemEnv();
        FaultInjectionEnv env(mem.get());
        Options options;
        options.env = &env;
        options.create_if_missing = true;
        env.InjectError(f.op, f.file, FaultInjectionEnv::IOError(), skip);
        // Until the fault comes after the first Open, it fails it.
        if (!DB::Open(options, kPath).ok()) failed = true;
        env.ClearErrors();
        if (crash) {
          ASSERT_TRUE(env.SimulateCrash().ok());
        }
        ASSERT_NO_FATAL_FAILURE(ExpectUsable(options));
      }
      ASSERT_LT(skip, 20) << "every Open failed";
    }
  }
}

// A path that an older build's failed first Open left with an empty log
// and no CURRENT holds nothing acknowledged: Open creates the DB there.
TEST(DBOpenTest, EmptyLeftoversWithoutCurrentAreCleared) {
  auto env = NewMemEnv();
  ASSERT_TRUE(env->CreateDir(kPath).ok());
  for (const char* name : {"000002.log", "MANIFEST-000001", "000001.dbtmp"}) {
    ASSERT_TRUE(
        WriteStringToFile(env.get(), "", absl::StrCat(kPath, "/", name), false)
            .ok());
  }
  Options options;
  options.env = env.get();
  options.create_if_missing = true;
  ASSERT_NO_FATAL_FAILURE(ExpectUsable(options));
}

// With data (a table or a non-empty log) and no CURRENT, the path is a
// damaged database: Open refuses to start over on top of it.
TEST(DBOpenTest, DataWithoutCurrentIsRefused) {
  for (const char* name : {"000005.log", "000007.sst"}) {
    SCOPED_TRACE(name);
    auto env = NewMemEnv();
    ASSERT_TRUE(env->CreateDir(kPath).ok());
    const std::string path = absl::StrCat(kPath, "/", name);
    ASSERT_TRUE(WriteStringToFile(env.get(), "data", path, false).ok());
    Options options;
    options.env = env.get();
    options.create_if_missing = true;
    auto db = DB::Open(options, kPath);
    EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
    EXPECT_TRUE(env->FileExists(path));
    // Every entry point says the same: without create_if_missing, and
    // read-only.
    const std::string message(db.status().message());
    EXPECT_NE(message.find(name), std::string::npos) << message;
    options.create_if_missing = false;
    db = DB::Open(options, kPath);
    EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
    EXPECT_EQ(db.status().message(), message);
    db = DB::OpenForReadOnly(options, kPath);
    EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
    EXPECT_EQ(db.status().message(), message);
    EXPECT_TRUE(env->FileExists(path));
  }
}

// A LevelDB (or RocksDB) directory: one line saying it is another engine's,
// whatever the comparator it is opened with; not a comparator mismatch,
// not damage. Its MANIFEST is written here as LevelDB writes a new DB's
// (tags 1-4, then an edit with tag 9, LevelDB's previous log number).
TEST(DBOpenTest, AnotherEnginesDatabaseIsNamedAsSuch) {
  auto env = NewMemEnv();
  ASSERT_TRUE(env->CreateDir(kPath).ok());
  std::string snapshot;
  PutVarint32(&snapshot, 1);
  PutLengthPrefixed(&snapshot, "leveldb.BytewiseComparator");
  for (uint32_t tag : {2u, 3u, 4u}) {
    PutVarint32(&snapshot, tag);
    PutVarint64(&snapshot, tag == 3 ? 2 : 0);
  }
  std::string edit;
  PutVarint32(&edit, 2);
  PutVarint64(&edit, 3);
  PutVarint32(&edit, 9);
  PutVarint64(&edit, 0);
  {
    auto file = env->NewWritableFile(absl::StrCat(kPath, "/MANIFEST-000001"));
    ASSERT_TRUE(file.ok());
    log::Writer writer(file->get());
    ASSERT_TRUE(writer.AddRecord(snapshot).ok());
    ASSERT_TRUE(writer.AddRecord(edit).ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  ASSERT_TRUE(WriteStringToFile(env.get(), "MANIFEST-000001\n",
                                absl::StrCat(kPath, "/CURRENT"), false)
                  .ok());
  // Under siftdb's comparator, and under one named as LevelDB's.
  class Named : public Comparator {
   public:
    int Compare(std::string_view a, std::string_view b) const override {
      return BytewiseComparator()->Compare(a, b);
    }
    const char* Name() const override { return "leveldb.BytewiseComparator"; }
    void FindShortestSeparator(std::string* start,
                               std::string_view limit) const override {
      BytewiseComparator()->FindShortestSeparator(start, limit);
    }
    void FindShortSuccessor(std::string* key) const override {
      BytewiseComparator()->FindShortSuccessor(key);
    }
  } named;
  for (const Comparator* cmp :
       {BytewiseComparator(), static_cast<const Comparator*>(&named)}) {
    Options options;
    options.env = env.get();
    options.comparator = cmp;
    auto db = DB::Open(options, kPath);
    EXPECT_TRUE(absl::IsInvalidArgument(db.status())) << db.status();
    const std::string message(db.status().message());
    EXPECT_NE(message.find("not a siftdb database"), std::string::npos)
        << message;
    EXPECT_NE(message.find("LevelDB"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(DBOpenTest, OpenWithoutCreateIfMissingMakesNothing) {
  auto env = NewMemEnv();
  Options options;
  options.env = env.get();
  options.create_if_missing = false;
  auto db = DB::Open(options, kPath);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::IsNotFound(env->GetChildren(kPath).status()))
      << "Open created the directory";
  // An existing empty directory gets no LOCK file either.
  ASSERT_TRUE(env->CreateDir(kPath).ok());
  db = DB::Open(options, kPath);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Children(env.get(), kPath).empty());
}

// A directory without CURRENT is not a database: DestroyDB leaves every
// file in it, even those named like a database's.
TEST(DBOpenTest, DestroyDBLeavesADirectoryThatIsNotADatabase) {
  auto env = NewMemEnv();
  ASSERT_TRUE(env->CreateDir(kPath).ok());
  const std::vector<std::string> names = {
      "000007.log", "000042.sst",      "1.log",     "42.sst",
      "LOCK",       "MANIFEST-000001", "MANIFEST-3"};
  for (const std::string& name : names) {
    ASSERT_TRUE(WriteStringToFile(env.get(), "user data",
                                  absl::StrCat(kPath, "/", name), false)
                    .ok());
  }
  Options options;
  options.env = env.get();
  EXPECT_TRUE(DestroyDB(kPath, options).ok());
  EXPECT_EQ(Children(env.get(), kPath), names);
}

// In a database, DestroyDB removes the database's files and nothing whose
// name only looks like one.
TEST(DBOpenTest, DestroyDBRemovesOnlyExactDatabaseNames) {
  auto env = NewMemEnv();
  Options options;
  options.env = env.get();
  options.create_if_missing = true;
  {
    auto db = DB::Open(options, kPath);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(WriteOptions(), "k", "v").ok());
    ASSERT_TRUE((*db)->Flush().ok());
  }
  const std::vector<std::string> foreign = {"0000007.log", "1.log", "42.sst",
                                            "MANIFEST-3", "notes.txt"};
  for (const std::string& name : foreign) {
    ASSERT_TRUE(WriteStringToFile(env.get(), "user data",
                                  absl::StrCat(kPath, "/", name), false)
                    .ok());
  }
  // Open must not take them for its own either (replay "1.log", delete
  // "42.sst" as obsolete).
  {
    auto db = DB::Open(options, kPath);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->CompactRange(std::nullopt, std::nullopt).ok());
  }
  EXPECT_TRUE(DestroyDB(kPath, options).ok());
  EXPECT_EQ(Children(env.get(), kPath), foreign);
}

// DestroyDB removes LOCK while it still holds it: otherwise another opener
// could take the lock in between and lose its LOCK file to the removal.
TEST(DBOpenTest, DestroyDBRemovesLockWhileHoldingIt) {
  auto mem = NewMemEnv();
  test::GateEnv env(mem.get());
  Options options;
  options.env = &env;
  options.create_if_missing = true;
  ASSERT_TRUE(DB::Open(options, kPath).ok());
  env.Arm(test::GateEnv::Op::kRemoveFile, "/LOCK");
  absl::Status destroyed;
  std::thread destroy([&] { destroyed = DestroyDB(kPath, options); });
  ASSERT_TRUE(env.WaitUntilHeld());
  auto lock = mem->LockFile(absl::StrCat(kPath, "/LOCK"));
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kFailedPrecondition)
      << "the lock was free while DestroyDB removed LOCK";
  lock = absl::UnknownError("unused");  // releases a lock taken wrongly
  env.Open();
  destroy.join();
  EXPECT_TRUE(destroyed.ok()) << destroyed;
}

// The MANIFEST rolls over to a new one, starting with a snapshot, once it
// passes max_manifest_file_size, within a session and not only at Open.
TEST(DBOpenTest, ManifestRollsOverWithinASession) {
  auto env = NewMemEnv();
  Options options;
  options.env = env.get();
  options.create_if_missing = true;
  options.max_manifest_file_size = 1 << 10;
  auto db = DB::Open(options, kPath);
  ASSERT_TRUE(db.ok()) << db.status();
  auto manifests = [&] {
    std::vector<std::string> m;
    for (const std::string& name : Children(env.get(), kPath)) {
      if (name.rfind("MANIFEST-", 0) == 0) m.push_back(name);
    }
    return m;
  };
  const std::vector<std::string> first = manifests();
  ASSERT_EQ(first.size(), 1u);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE((*db)->Put(WriteOptions(), absl::StrCat("k", i), "v").ok());
    ASSERT_TRUE((*db)->Flush().ok());
  }
  // Obsolete files go after the flush is done: wait for the deletion too.
  ASSERT_TRUE((*db)->WaitForCompaction().ok());
  const std::vector<std::string> now = manifests();
  ASSERT_EQ(now.size(), 1u) << "the old MANIFEST was not deleted";
  EXPECT_NE(now[0], first[0]);
  auto size = env->GetFileSize(absl::StrCat(kPath, "/", now[0]));
  ASSERT_TRUE(size.ok());
  // A snapshot of about 40 small files plus at most 1 KiB of edits.
  EXPECT_LT(*size, 8u << 10);
  db->reset();
  db = DB::Open(options, kPath);
  ASSERT_TRUE(db.ok()) << db.status();
  for (int i = 0; i < 40; ++i) {
    std::string v;
    EXPECT_TRUE((*db)->Get(ReadOptions(), absl::StrCat("k", i), &v).ok()) << i;
  }
}

}  // namespace
}  // namespace sift
