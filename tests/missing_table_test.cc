// A table the DB's Version names but that cannot be opened (deleted behind
// the DB's back, or by a writer beside a read-only DB) is an error naming
// the file on every read path -- Get, MultiGet, iterators, sift_get and
// leveldb_get -- never NotFound, which the DB keeps for an absent key
// (include/sift/db.h). Before that held, an unopenable table read as a
// missing key, and both C APIs returned NULL with no error for keys that
// exist.
//
// The tables must not be open when their files go: open tables keep
// reading from their descriptors. With max_open_files 10 the cache pins 5
// tables and keeps 5 more in its LRU (db/table_cache.h), so of kTables the
// rest are closed and reopened on demand.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "sift/c.h"
#include "sift/db.h"
#include "sift/leveldb/c.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

constexpr int kTables = 16;
constexpr int kKeysPerTable = 20;
constexpr int kMaxOpenFiles = 10;

// Table t holds keys [t * kKeysPerTable, (t + 1) * kKeysPerTable): disjoint
// ranges, so each flush is its own table and no compaction merges them.
std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int i) { return absl::StrFormat("value%d", i); }
constexpr int kKeys = kTables * kKeysPerTable;

class MissingTableTest : public ::testing::Test {
 protected:
  MissingTableTest()
      : dir_(test::TempDir(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        path_(dir_ + "/db") {
    options_.create_if_missing = true;
    options_.max_open_files = kMaxOpenFiles;
  }
  ~MissingTableTest() override { std::filesystem::remove_all(dir_); }

  // Writes `tables` tables into db.
  static void Fill(DB* db, int tables = kTables) {
    for (int t = 0; t < tables; ++t) {
      for (int i = t * kKeysPerTable; i < (t + 1) * kKeysPerTable; ++i) {
        ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
      }
      ASSERT_TRUE(db->Flush().ok());
    }
  }

  // Makes the DB, closes it.
  void Create(int tables = kTables) {
    auto db = DB::Open(options_, path_);
    ASSERT_TRUE(db.ok()) << db.status();
    Fill(db->get(), tables);
  }

  // Deletes every table file; returns how many there were.
  int RemoveTables() {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      if (e.path().extension() == ".sst") {
        std::filesystem::remove(e.path());
        ++n;
      }
    }
    return n;
  }

  std::string dir_;
  std::string path_;
  Options options_;
};

// Checks one read of key i: its value, or an error of `code` naming a
// table file. Returns whether it was an error.
bool ExpectValueOrTableError(int i, const absl::Status& s,
                             std::string_view value, absl::StatusCode code) {
  if (s.ok()) {
    EXPECT_EQ(value, Value(i)) << Key(i);
    return false;
  }
  EXPECT_EQ(s.code(), code) << Key(i) << ": " << s;
  EXPECT_NE(s.message().find(".sst"), std::string_view::npos)
      << Key(i) << ": the error should name the table: " << s;
  return true;
}

TEST_F(MissingTableTest, GetIsDataLossNamingTheTable) {
  Create();
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_EQ(RemoveTables(), kTables);
  int errors = 0;
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    const absl::Status s = (*db)->Get(ReadOptions(), Key(i), &value);
    errors += ExpectValueOrTableError(i, s, value, absl::StatusCode::kDataLoss);
  }
  // The tables that were closed: all but the pinned and the LRU's.
  EXPECT_GE(errors, (kTables - kMaxOpenFiles) * kKeysPerTable);
  // A key outside every table is absent, as before.
  EXPECT_TRUE(absl::IsNotFound((*db)->Get(ReadOptions(), "zzz", &value)));
}

TEST_F(MissingTableTest, MultiGetFailsOnlyTheKeysOfTheMissingTables) {
  Create();
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_EQ(RemoveTables(), kTables);
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(Key(i));
  keys.push_back("zzz");
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::string> values;
  const std::vector<absl::Status> statuses =
      (*db)->MultiGet(ReadOptions(), views, &values);
  ASSERT_EQ(statuses.size(), keys.size());
  int errors = 0;
  for (int i = 0; i < kKeys; ++i) {
    errors += ExpectValueOrTableError(i, statuses[i], values[i],
                                      absl::StatusCode::kDataLoss);
  }
  EXPECT_GE(errors, (kTables - kMaxOpenFiles) * kKeysPerTable);
  EXPECT_LT(errors, kKeys) << "the open tables still read";
  EXPECT_TRUE(absl::IsNotFound(statuses.back())) << statuses.back();
}

TEST_F(MissingTableTest, IteratorStopsWithDataLossNamingTheTable) {
  Create();
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_EQ(RemoveTables(), kTables);
  std::unique_ptr<Iterator> it = (*db)->NewIterator(ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_EQ(it->key(), Key(n));
  }
  EXPECT_LT(n, kKeys);
  EXPECT_TRUE(absl::IsDataLoss(it->status())) << it->status();
  EXPECT_NE(it->status().message().find(".sst"), std::string_view::npos)
      << it->status();
  // A Seek into every table: each lands on its first key or fails so.
  int failed = 0;
  for (int t = 0; t < kTables; ++t) {
    it->Seek(Key(t * kKeysPerTable));
    if (it->Valid()) {
      EXPECT_EQ(it->key(), Key(t * kKeysPerTable));
      continue;
    }
    ++failed;
    EXPECT_TRUE(absl::IsDataLoss(it->status())) << t << ": " << it->status();
  }
  EXPECT_GE(failed, kTables - kMaxOpenFiles);
}

// The case: a read-only DB beside a writer that compacts the tables
// the reader's view names away. The reader reports the table gone
// (Unavailable: the DB is not damaged, the view is stale; reopening reads
// the current state) instead of calling existing keys absent.
TEST_F(MissingTableTest, ReadOnlyBesideACompactingWriterIsUnavailable) {
  auto writer = DB::Open(options_, path_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Fill(writer->get());
  auto reader = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  // Rewritten (not just moved down): a table overlapping all of them.
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE((*writer)->Put(WriteOptions(), Key(i), Value(i)).ok());
  }
  ASSERT_TRUE((*writer)->CompactRange(std::nullopt, std::nullopt).ok());
  int errors = 0;
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    const absl::Status s = (*reader)->Get(ReadOptions(), Key(i), &value);
    errors +=
        ExpectValueOrTableError(i, s, value, absl::StatusCode::kUnavailable);
  }
  EXPECT_GE(errors, (kTables - kMaxOpenFiles) * kKeysPerTable);
  // Reopened, the reader sees the writer's current tables.
  reader->reset();
  reader = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE((*reader)->Get(ReadOptions(), Key(i), &value).ok()) << Key(i);
    EXPECT_EQ(value, Value(i));
  }
}

TEST_F(MissingTableTest, SiftGetSetsErrptr) {
  Create();
  sift_options_t* options = sift_options_create();
  sift_options_set_max_open_files(options, kMaxOpenFiles);
  char* err = nullptr;
  sift_db_t* db = sift_open(options, path_.c_str(), &err);
  ASSERT_EQ(err, nullptr) << err;
  ASSERT_EQ(RemoveTables(), kTables);
  sift_readoptions_t* ro = sift_readoptions_create();
  int errors = 0;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = Key(i);
    size_t len = 99;
    char* v = sift_get(db, ro, key.data(), key.size(), &len, &err);
    if (v != nullptr) {
      EXPECT_EQ(std::string_view(v, len), Value(i));
      sift_free(v);
      continue;
    }
    ASSERT_NE(err, nullptr) << key << ": NULL with no error";
    EXPECT_NE(std::string_view(err).find(".sst"), std::string_view::npos)
        << err;
    EXPECT_TRUE(std::string_view(err).starts_with("DATA_LOSS")) << err;
    sift_free(err);
    err = nullptr;
    ++errors;
  }
  EXPECT_GE(errors, (kTables - kMaxOpenFiles) * kKeysPerTable);
  size_t len = 99;
  EXPECT_EQ(sift_get(db, ro, "zzz", 3, &len, &err), nullptr);
  EXPECT_EQ(err, nullptr) << "an absent key is not an error";
  EXPECT_EQ(len, 0u);
  sift_readoptions_destroy(ro);
  sift_close(db);
  sift_options_destroy(options);
}

// LevelDB's own C API would drop this error (its Get says NotFound for a
// missing table file, which leveldb_get reports as an absent key); siftdb's
// reports it (include/sift/leveldb/c.h). LevelDB's smallest max_open_files
// is 74 (leveldb_options_set_max_open_files raises smaller values), so
// this DB has more tables.
// The LevelDB layer raises max_open_files to LevelDB's minimum, 74.
constexpr int kLeveldbMaxOpenFiles = 74;
constexpr int kLeveldbTables = 90;

// kLeveldbTables tables, opened through the LevelDB layer, then every
// table file deleted behind it.
class MissingTableLeveldbTest : public MissingTableTest {
 protected:
  ~MissingTableLeveldbTest() override {
    leveldb_options_destroy(leveldb_options_);
  }

  void OpenLeveldbThenRemoveTables(leveldb_t** db) {
    Create(kLeveldbTables);
    leveldb_options_set_max_open_files(leveldb_options_, kLeveldbMaxOpenFiles);
    char* err = nullptr;
    *db = leveldb_open(leveldb_options_, path_.c_str(), &err);
    ASSERT_EQ(err, nullptr) << err;
    ASSERT_EQ(RemoveTables(), kLeveldbTables);
  }

  leveldb_options_t* const leveldb_options_ = leveldb_options_create();
};

TEST_F(MissingTableLeveldbTest, LeveldbGetSetsErrptr) {
  leveldb_t* db = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenLeveldbThenRemoveTables(&db));
  char* err = nullptr;
  leveldb_readoptions_t* ro = leveldb_readoptions_create();
  int errors = 0;
  for (int i = 0; i < kLeveldbTables * kKeysPerTable; ++i) {
    const std::string key = Key(i);
    size_t len = 99;
    char* v = leveldb_get(db, ro, key.data(), key.size(), &len, &err);
    if (v != nullptr) {
      EXPECT_EQ(std::string_view(v, len), Value(i));
      leveldb_free(v);
      continue;
    }
    ASSERT_NE(err, nullptr) << key << ": NULL with no error";
    EXPECT_NE(std::string_view(err).find(".sst"), std::string_view::npos)
        << err;
    leveldb_free(err);
    err = nullptr;
    ++errors;
  }
  EXPECT_GE(errors, (kLeveldbTables - kLeveldbMaxOpenFiles) * kKeysPerTable);
  leveldb_readoptions_destroy(ro);
  leveldb_close(db);
}

// LevelDB's signature has no error to report: a range whose size needs a
// table that cannot be opened counts 0, and every other range its bytes.
TEST_F(MissingTableLeveldbTest,
       LeveldbApproximateSizesZeroOnlyTheAffectedRanges) {
  leveldb_t* db = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenLeveldbThenRemoveTables(&db));
  // From the middle of each table to the next one's first key: the start
  // falls inside the table, so its offset (an open table) must answer.
  std::vector<std::string> starts, limits;
  for (int t = 0; t < kLeveldbTables; ++t) {
    starts.push_back(Key(t * kKeysPerTable + kKeysPerTable / 2));
    limits.push_back(Key((t + 1) * kKeysPerTable));
  }
  std::vector<const char*> start_ptrs, limit_ptrs;
  std::vector<size_t> start_lens, limit_lens;
  for (int t = 0; t < kLeveldbTables; ++t) {
    start_ptrs.push_back(starts[t].data());
    start_lens.push_back(starts[t].size());
    limit_ptrs.push_back(limits[t].data());
    limit_lens.push_back(limits[t].size());
  }
  std::vector<uint64_t> sizes(kLeveldbTables, 99);
  leveldb_approximate_sizes(db, kLeveldbTables, start_ptrs.data(),
                            start_lens.data(), limit_ptrs.data(),
                            limit_lens.data(), sizes.data());
  int zero = 0;
  for (int t = 0; t < kLeveldbTables; ++t) {
    uint64_t alone = 99;
    leveldb_approximate_sizes(db, 1, &start_ptrs[t], &start_lens[t],
                              &limit_ptrs[t], &limit_lens[t], &alone);
    EXPECT_EQ(sizes[t], alone) << "range " << t;
    zero += sizes[t] == 0;
  }
  EXPECT_GE(zero, kLeveldbTables - kLeveldbMaxOpenFiles);
  EXPECT_LT(zero, kLeveldbTables) << "the open tables still count";
  leveldb_close(db);
}

}  // namespace
}  // namespace sift
