// Bad and extreme input at the API: empty keys, 1 MiB keys, 64 MiB values,
// embedded NUL bytes, out-of-range options, a path that is a regular file, an
// unwritable directory, DestroyDB on odd paths. Each gets a clear error or
// correct behaviour; nothing crashes and nothing acknowledged is lost.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

class BadInputTest : public ::testing::Test {
 protected:
  BadInputTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
  }

  absl::Status Open() {
    db_.reset();
    auto db = DB::Open(options_, path_);
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    return absl::OkStatus();
  }

  std::string Get(std::string_view key) {
    std::string v;
    absl::Status s = db_->Get(ReadOptions(), key, &v);
    if (absl::IsNotFound(s)) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return v;
  }

  // Checks the DB holds exactly `model`, by Get and by iteration, now,
  // after a flush, after a full compaction and after a reopen.
  void CheckEverywhere(const std::map<std::string, std::string>& model) {
    for (int stage = 0; stage < 4; ++stage) {
      SCOPED_TRACE(absl::StrCat("stage ", stage));
      if (stage == 1) {
        ASSERT_TRUE(db_->Flush().ok());
      }
      if (stage == 2) {
        ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
      }
      if (stage == 3) {
        ASSERT_TRUE(Open().ok());
      }
      for (const auto& [k, v] : model) ASSERT_EQ(Get(k), v) << k.size();
      std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
      auto m = model.begin();
      for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
        ASSERT_NE(m, model.end());
        ASSERT_EQ(it->key(), m->first);
        ASSERT_EQ(it->value(), m->second);
      }
      ASSERT_TRUE(it->status().ok()) << it->status();
      ASSERT_EQ(m, model.end());
    }
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::string path_ = "/db";
  std::unique_ptr<DB> db_;
};

TEST_F(BadInputTest, EmptyKeyAndEmptyValue) {
  ASSERT_TRUE(Open().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "", "").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "").ok());
  EXPECT_EQ(Get(""), "");
  CheckEverywhere({{"", ""}, {"a", ""}});
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->Seek("");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "");
  it.reset();
  ASSERT_TRUE(db_->Delete(WriteOptions(), "").ok());
  CheckEverywhere({{"a", ""}});
  ASSERT_TRUE(db_->Delete(WriteOptions(), "").ok());  // again: fine
}

TEST_F(BadInputTest, EmbeddedNulBytesOrderAndStayDistinct) {
  ASSERT_TRUE(Open().ok());
  // Bytewise order: "a" < "a\0" < "a\0\0" < "a\0b" < "a\x01" < "ab".
  const std::vector<std::string> keys = {
      std::string("a"),         std::string("a\0", 2),
      std::string("a\0\0", 3),  std::string("a\0b", 3),
      std::string("a\x01", 2),  std::string("ab"),
      std::string("\0", 1),     std::string("\0\0\0\0", 4),
      std::string("\xff\0", 2), std::string(300, '\0')};
  std::map<std::string, std::string> model;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string v = absl::StrCat("v", i, std::string("\0x\0", 3));
    ASSERT_TRUE(db_->Put(WriteOptions(), keys[i], v).ok());
    model[keys[i]] = v;
  }
  CheckEverywhere(model);
  // A prefix with a NUL is a different key, and a miss.
  EXPECT_EQ(Get(std::string("a\0c", 3)), "NOT_FOUND");
  EXPECT_EQ(Get(std::string(299, '\0')), "NOT_FOUND");
}

TEST_F(BadInputTest, OneMebibyteKeys) {
  options_.write_buffer_size = 4 << 20;
  ASSERT_TRUE(Open().ok());
  Random rnd(test::TestSeed(701));
  std::map<std::string, std::string> model;
  for (int i = 0; i < 6; ++i) {
    std::string key;
    rnd.RandomString(1 << 20, &key);
    key[0] = static_cast<char>('a' + i);
    // Two keys that share all but their last byte stress prefix
    // compression and index separators.
    std::string twin = key;
    twin.back() ^= 1;
    model[key] = absl::StrCat("value", i);
    model[twin] = absl::StrCat("twin", i);
  }
  for (const auto& [k, v] : model) {
    ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok());
  }
  CheckEverywhere(model);
  // Each key is stored a bounded number of times, not once per block.
  uint64_t bytes = 0;
  auto children = env_->GetChildren(path_);
  ASSERT_TRUE(children.ok());
  for (const std::string& name : *children) {
    if (name.find(".sst") != std::string::npos) {
      bytes += *env_->GetFileSize(path_ + "/" + name);
    }
  }
  EXPECT_LT(bytes, uint64_t{4} * model.size() << 20);
}

TEST_F(BadInputTest, SixtyFourMebibyteValue) {
  ASSERT_TRUE(Open().ok());
  std::string big(64 << 20, '\0');
  Random rnd(test::TestSeed(702));
  for (size_t i = 0; i < big.size(); i += 4096) {
    big[i] = static_cast<char>(rnd.Next());  // not all one byte
  }
  ASSERT_TRUE(db_->Put(WriteOptions(), "big", big).ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "small", "s").ok());
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "big", &v).ok());
  EXPECT_TRUE(v == big);
  ASSERT_TRUE(Open().ok());  // from the WAL: one 64 MiB record
  v.clear();
  ASSERT_TRUE(db_->Get(ReadOptions(), "big", &v).ok());
  EXPECT_TRUE(v == big);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(Open().ok());  // from a table: one 64 MiB block
  v.clear();
  ASSERT_TRUE(db_->Get(ReadOptions(), "big", &v).ok());
  EXPECT_TRUE(v == big);
  EXPECT_EQ(Get("small"), "s");
  // The block cache (8 MiB) does not keep a block bigger than itself.
  const std::string memory = *db_->GetProperty("sift.memory");
  const size_t at = memory.find("block cache: ");
  ASSERT_NE(at, std::string::npos) << memory;
  EXPECT_LE(std::stoull(memory.substr(at + 13)), options_.block_cache_capacity)
      << memory;
}

struct BadOption {
  const char* field;
  void (*mutate)(Options*);
};

TEST_F(BadInputTest, OutOfRangeOptionsAreRefusedNamingTheField) {
  const BadOption cases[] = {
      {"write_buffer_size", [](Options* o) { o->write_buffer_size = 1023; }},
      {"write_buffer_size",
       [](Options* o) { o->write_buffer_size = size_t{5} << 30; }},
      {"write_buffer_size",
       [](Options* o) { o->write_buffer_size = ~size_t{0}; }},
      {"max_file_size", [](Options* o) { o->max_file_size = 1; }},
      {"max_file_size", [](Options* o) { o->max_file_size = ~size_t{0}; }},
      {"level0_compaction_trigger",
       [](Options* o) { o->level0_compaction_trigger = -1; }},
      {"level0_compaction_trigger",
       [](Options* o) { o->level0_compaction_trigger = 101; }},
      {"level0_slowdown_writes_trigger",
       [](Options* o) { o->level0_slowdown_writes_trigger = 3; }},
      {"level0_slowdown_writes_trigger",
       [](Options* o) { o->level0_slowdown_writes_trigger = 1001; }},
      {"level0_slowdown_writes_trigger",  // above the stop trigger
       [](Options* o) { o->level0_slowdown_writes_trigger = 40; }},
      {"level0_stop_writes_trigger",
       [](Options* o) { o->level0_stop_writes_trigger = 19; }},
      {"level0_stop_writes_trigger",
       [](Options* o) { o->level0_stop_writes_trigger = 1001; }},
      {"delayed_write_rate", [](Options* o) { o->delayed_write_rate = 0; }},
      {"delayed_write_rate",
       [](Options* o) { o->delayed_write_rate = uint64_t{1} << 41; }},
      {"max_bytes_for_level_base",
       [](Options* o) { o->max_bytes_for_level_base = 0; }},
      {"max_bytes_for_level_base",
       [](Options* o) { o->max_bytes_for_level_base = 1023; }},
      {"max_bytes_for_level_base",
       [](Options* o) {
         o->max_bytes_for_level_base = (uint64_t{1} << 50) + 1;
       }},
      {"max_bytes_for_level_multiplier",
       [](Options* o) { o->max_bytes_for_level_multiplier = 1.0; }},
      {"max_bytes_for_level_multiplier",
       [](Options* o) { o->max_bytes_for_level_multiplier = 100.5; }},
      {"max_bytes_for_level_multiplier",
       [](Options* o) {
         o->max_bytes_for_level_multiplier =
             std::numeric_limits<double>::quiet_NaN();
       }},
      {"max_open_files", [](Options* o) { o->max_open_files = 9; }},
      {"max_open_files", [](Options* o) { o->max_open_files = -5; }},
      {"block_size", [](Options* o) { o->block_size = size_t{2} << 30; }},
      {"block_restart_interval",
       [](Options* o) { o->block_restart_interval = -3; }},
      {"bloom_filter_fp_chance",
       [](Options* o) {
         o->bloom_filter_fp_chance = std::numeric_limits<double>::infinity();
       }},
      {"bloom_filter_fp_chance",
       [](Options* o) {
         o->bloom_filter_fp_chance = -std::numeric_limits<double>::infinity();
       }},
      {"bloom_filter_fp_chance",
       [](Options* o) { o->bloom_filter_fp_chance = 1.0000001; }},
      {"bloom_filter_fp_chance",
       [](Options* o) { o->bloom_filter_fp_chance = -0.0; }},
  };
  for (const BadOption& c : cases) {
    Options o = options_;
    c.mutate(&o);
    auto db = DB::Open(o, path_);
    ASSERT_FALSE(db.ok()) << c.field;
    EXPECT_EQ(db.status().code(), absl::StatusCode::kInvalidArgument)
        << db.status();
    EXPECT_NE(db.status().message().find(c.field), absl::string_view::npos)
        << db.status();
  }
  // Refused options created nothing.
  EXPECT_FALSE(env_->FileExists(path_ + "/CURRENT"));
}

TEST_F(BadInputTest, ExtremeButValidOptionsWork) {
  // The smallest legal buffers, one-key blocks, and filters at the edge of
  // their range: slow, but correct.
  const std::vector<std::pair<const char*, void (*)(Options*)>> cases = {
      {"tiny buffers",
       [](Options* o) {
         o->write_buffer_size = 1 << 10;
         o->max_file_size = 1 << 10;
         o->block_size = 1;
         o->block_restart_interval = 1;
         o->level0_compaction_trigger = 1;
         o->max_bytes_for_level_base = 1 << 10;  // a deep tree
         o->max_bytes_for_level_multiplier = 2;
       }},
      {"levels beyond 2^64 bytes",
       [](Options* o) {
         o->max_bytes_for_level_base = uint64_t{1} << 50;
         o->max_bytes_for_level_multiplier = 100;
       }},
      {"p = 1e-300", [](Options* o) { o->bloom_filter_fp_chance = 1e-300; }},
      {"p = smallest denormal",
       [](Options* o) {
         o->bloom_filter_fp_chance = std::numeric_limits<double>::denorm_min();
       }},
      {"p = 0.999999",
       [](Options* o) { o->bloom_filter_fp_chance = 0.999999; }},
      {"no cache, no compression",
       [](Options* o) {
         o->block_cache_capacity = 0;
         o->compression = Compression::kNone;
       }},
      {"huge cache", [](Options* o) { o->block_cache_capacity = ~size_t{0}; }},
      {"huge restart interval",
       [](Options* o) {
         o->block_restart_interval = std::numeric_limits<int>::max();
       }},
  };
  for (const auto& [name, mutate] : cases) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(DestroyDB(path_, options_).ok());
    Options saved = options_;
    mutate(&options_);
    absl::Status s = Open();
    ASSERT_TRUE(s.ok()) << s;
    std::map<std::string, std::string> model;
    for (int i = 0; i < 300; ++i) {
      const std::string k = absl::StrFormat("key%05d", i * 7 % 300);
      model[k] = absl::StrCat("v", i);
      ASSERT_TRUE(db_->Put(WriteOptions(), k, model[k]).ok());
    }
    CheckEverywhere(model);
    EXPECT_EQ(Get("absent"), "NOT_FOUND");
    db_.reset();
    options_ = saved;
  }
}

TEST_F(BadInputTest, HugeBlockCacheStillCaches) {
  // Regression: a SIZE_MAX capacity overflowed the per-shard share to 0,
  // silently disabling the cache.
  options_.block_cache_capacity = ~size_t{0};
  ASSERT_TRUE(Open().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "k", "v").ok());
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(Get("k"), "v");
  const uint64_t hits = db_->GetStatistics().Get(kBlockCacheDataHit);
  EXPECT_EQ(Get("k"), "v");
  EXPECT_EQ(db_->GetStatistics().Get(kBlockCacheDataHit), hits + 1);
}

TEST_F(BadInputTest, OddPropertyNamesAreUnknown) {
  ASSERT_TRUE(Open().ok());
  for (const char* name :
       {"", "sift.", "sift.num-files-at-level", "sift.num-files-at-level-1",
        "sift.num-files-at-level7",
        "sift.num-files-at-level99999999999999999999",
        "sift.num-files-at-level0x1", "sift.statsX", "SIFT.STATS"}) {
    EXPECT_FALSE(db_->GetProperty(name).has_value()) << name;
  }
  EXPECT_EQ(*db_->GetProperty("sift.num-files-at-level6"), "0");
}

TEST_F(BadInputTest, OddRangesAndIteratorMoves) {
  ASSERT_TRUE(Open().ok());
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek("anything");
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());
  it.reset();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), absl::StrCat("k", i), "v").ok());
  }
  // An inverted range is refused by name (tests/compaction_test.cc); empty
  // ranges compact nothing and fail nothing.
  EXPECT_TRUE(absl::IsInvalidArgument(db_->CompactRange("z", "a")));
  EXPECT_TRUE(db_->CompactRange("", "").ok());
  EXPECT_TRUE(db_->CompactRange(std::string(1, '\xff'), std::nullopt).ok());
  it = db_->NewIterator(ReadOptions());
  it->Seek(std::string(10, '\xff'));
  EXPECT_FALSE(it->Valid());
  it->SeekToFirst();
  it->Prev();  // off the front
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  it->Next();  // off the back
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());
  it.reset();
  db_->ReleaseSnapshot(nullptr);  // documented as harmless
  EXPECT_EQ(Get("k42"), "v");
}

// ---- paths ----

TEST(BadPathTest, PathThatIsARegularFile) {
  const std::string dir = test::TempDir("bad-path");
  const std::string file = dir + "/plain-file";
  std::ofstream(file) << "not a database";
  Options options;
  options.create_if_missing = true;
  auto db = DB::Open(options, file);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find(file), absl::string_view::npos)
      << db.status();
  // Under a regular file, too.
  db = DB::Open(options, file + "/db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find(file), absl::string_view::npos)
      << db.status();
  // The file is untouched.
  std::ifstream in(file);
  std::string contents((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(contents, "not a database");
  DestroyDB(file, options).IgnoreError();  // may fail; must not harm it
  EXPECT_TRUE(std::filesystem::exists(file))
      << "DestroyDB removed a file that is not ours";
  std::filesystem::remove_all(dir);
}

TEST(BadPathTest, EmptyAndMissingPaths) {
  Options options;
  options.create_if_missing = true;
  EXPECT_EQ(DB::Open(options, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string dir = test::TempDir("missing-parent");
  auto db = DB::Open(options, dir + "/no/such/parent/db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find(dir), absl::string_view::npos)
      << db.status();
  EXPECT_TRUE(DestroyDB(dir + "/never-created", options).ok());
  std::filesystem::remove_all(dir);
}

TEST(BadPathTest, DestroyLeavesForeignFilesAndRefusesAnOpenDb) {
  const std::string dir = test::TempDir("destroy");
  const std::string path = dir + "/db";
  Options options;
  options.create_if_missing = true;
  {
    auto db = DB::Open(options, path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(WriteOptions(), "k", "v").ok());
    EXPECT_EQ(DestroyDB(path, options).code(),
              absl::StatusCode::kFailedPrecondition);
    std::string v;
    EXPECT_TRUE((*db)->Get(ReadOptions(), "k", &v).ok());  // still there
  }
  std::ofstream(path + "/notes.txt") << "mine";
  ASSERT_TRUE(DestroyDB(path, options).ok());
  EXPECT_TRUE(std::filesystem::exists(path + "/notes.txt"));
  EXPECT_FALSE(std::filesystem::exists(path + "/CURRENT"));
  std::filesystem::remove_all(dir);
}

TEST(BadPathTest, ReadOnlyDirectory) {
  if (geteuid() == 0) {
    // Root ignores directory permissions; the injected EACCES case in
    // UnwritableDirectoryThroughTheEnv covers this path instead.
    GTEST_SKIP() << "running as root: permissions do not bite";
  }
  const std::string dir = test::TempDir("read-only");
  const std::string path = dir + "/db";
  Options options;
  options.create_if_missing = true;
  {
    auto db = DB::Open(options, path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(WriteOptions(), "k", "v").ok());
  }
  ASSERT_EQ(chmod(path.c_str(), 0555), 0);
  auto db = DB::Open(options, path);
  EXPECT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kPermissionDenied)
      << db.status();
  ASSERT_EQ(chmod(path.c_str(), 0755), 0);
  db = DB::Open(options, path);
  ASSERT_TRUE(db.ok()) << db.status();
  std::string v;
  EXPECT_TRUE((*db)->Get(ReadOptions(), "k", &v).ok());
  db->reset();
  std::filesystem::remove_all(dir);
}

TEST(BadPathTest, UnwritableDirectoryThroughTheEnv) {
  // EACCES on every file creation, as a read-only directory gives.
  auto mem = NewMemEnv();
  FaultInjectionEnv env(mem.get());
  Options options;
  options.env = &env;
  options.create_if_missing = true;
  const absl::Status eacces = absl::PermissionDeniedError("Permission denied");
  env.InjectError(FaultOp::kNewFile, "", eacces);
  auto db = DB::Open(options, "/db");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kPermissionDenied)
      << db.status();
  env.ClearErrors();
  db = DB::Open(options, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Put(WriteOptions(), "k", "v").ok());
  db->reset();
  // An existing DB in a directory that became read-only: Open must write
  // a new MANIFEST and WAL, fails cleanly, and loses nothing.
  env.InjectError(FaultOp::kNewFile, "", eacces);
  db = DB::Open(options, "/db");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kPermissionDenied);
  env.ClearErrors();
  db = DB::Open(options, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  std::string v;
  ASSERT_TRUE((*db)->Get(ReadOptions(), "k", &v).ok());
  EXPECT_EQ(v, "v");
}

}  // namespace
}  // namespace sift
