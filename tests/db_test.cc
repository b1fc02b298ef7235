// The DB through its public API: reads and writes, reopen, batches,
// options, locking, filters on the read path.

#include "sift/db.h"

#include <map>
#include <memory>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "tests/testutil/counting_env.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }

class DBTest : public test::MemDBTest {
 protected:
  absl::Status Put(std::string_view k, std::string_view v) {
    return db_->Put(WriteOptions(), k, v);
  }
};

TEST_F(DBTest, PutGetDelete) {
  Open();
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  ASSERT_TRUE(Put("a", "1").ok());
  ASSERT_TRUE(Put("b", "2").ok());
  EXPECT_EQ(Get("a"), "1");
  ASSERT_TRUE(Put("a", "3").ok());
  EXPECT_EQ(Get("a"), "3");
  ASSERT_TRUE(db_->Delete(WriteOptions(), "a").ok());
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("b"), "2");
  ASSERT_TRUE(db_->Delete(WriteOptions(), "never-there").ok());
}

TEST_F(DBTest, EmptyKeysValuesAndNulBytes) {
  Open();
  const std::string nul_key("a\0b", 3), nul_value("x\0\0y", 4);
  ASSERT_TRUE(Put("", "empty-key").ok());
  ASSERT_TRUE(Put("k", "").ok());
  ASSERT_TRUE(Put(nul_key, nul_value).ok());
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(Get(""), "empty-key");
    EXPECT_EQ(Get("k"), "");
    EXPECT_EQ(Get(nul_key), nul_value);
    EXPECT_EQ(Get(std::string("a\0c", 3)), "NOT_FOUND");
    ASSERT_TRUE(db_->Flush().ok());
    Open();
  }
}

TEST_F(DBTest, SurvivesReopenWithAndWithoutFlush) {
  Open();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(Put(Key(i), "v" + Key(i)).ok());
  Open();  // from the WAL only
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(Get(Key(i)), "v" + Key(i));
  ASSERT_TRUE(db_->Flush().ok());
  for (int i = 0; i < 1000; i += 2) {
    ASSERT_TRUE(db_->Delete(WriteOptions(), Key(i)).ok());
  }
  Open();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(Get(Key(i)), i % 2 == 0 ? "NOT_FOUND" : "v" + Key(i)) << i;
  }
  Open();  // twice: recovery must itself be recoverable
  EXPECT_EQ(Get(Key(1)), "v" + Key(1));
}

TEST_F(DBTest, ManyFlushesAndCompactionsKeepNewestValues) {
  options_.write_buffer_size = 16 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  options_.max_file_size = 16 << 10;
  Open();
  std::map<std::string, std::string> model;
  Random rnd(test::TestSeed(5));
  for (int i = 0; i < 20000; ++i) {
    const std::string k = Key(rnd.Uniform(3000));
    std::string v;
    rnd.RandomString(rnd.Uniform(100), &v);
    if (rnd.OneIn(8)) {
      ASSERT_TRUE(db_->Delete(WriteOptions(), k).ok());
      model.erase(k);
    } else {
      ASSERT_TRUE(Put(k, v).ok());
      model[k] = v;
    }
  }
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  auto check = [&] {
    for (int i = 0; i < 3000; ++i) {
      auto it = model.find(Key(i));
      ASSERT_EQ(Get(Key(i)), it == model.end() ? "NOT_FOUND" : it->second)
          << Key(i);
    }
  };
  check();
  Open();
  check();
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  check();
  int files = 0;
  for (int level = 0; level < 7; ++level) {
    files += std::stoi(
        *db_->GetProperty(absl::StrFormat("sift.num-files-at-level%d", level)));
  }
  EXPECT_GT(files, 0);
  EXPECT_EQ(*db_->GetProperty("sift.num-files-at-level0"), "0");
}

TEST_F(DBTest, WriteBatchIsAtomicAndOrdered) {
  Open();
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Put("b", "2");
  batch.Delete("a");
  batch.Put("c", "3");
  EXPECT_EQ(batch.Count(), 4u);
  EXPECT_GT(batch.ApproximateSize(), 12u);
  ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok());
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("b"), "2");
  EXPECT_EQ(Get("c"), "3");
  batch.Clear();
  EXPECT_EQ(batch.Count(), 0u);
  ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok());  // empty: fine
  Open();
  EXPECT_EQ(Get("b"), "2");
}

TEST_F(DBTest, ReservedBatchStartsEmptyAndEncodesTheSame) {
  WriteBatch reserved(4096), plain;
  EXPECT_EQ(reserved.Count(), 0u);
  EXPECT_EQ(reserved.ApproximateSize(), plain.ApproximateSize());
  for (WriteBatch* b : {&reserved, &plain}) {
    b->Put("k", "v");
    b->Delete("gone");
  }
  EXPECT_EQ(reserved.Count(), 2u);
  EXPECT_EQ(reserved.ApproximateSize(), plain.ApproximateSize());
  Open();
  ASSERT_TRUE(db_->Write(WriteOptions(), &reserved).ok());
  EXPECT_EQ(Get("k"), "v");
}

// Put and Delete reuse one batch per thread: a huge value, then small
// writes, then a delete, each must carry exactly its own entry.
TEST_F(DBTest, ConsecutivePutsAndDeletesCarryOnlyTheirOwnEntry) {
  Open();
  const std::string big(3 << 20, 'x');
  ASSERT_TRUE(Put("big", big).ok());
  ASSERT_TRUE(Put("small", "s").ok());
  ASSERT_TRUE(db_->Delete(WriteOptions(), "big").ok());
  ASSERT_TRUE(Put("after", "a").ok());
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(Get("big"), "NOT_FOUND");
    EXPECT_EQ(Get("small"), "s");
    EXPECT_EQ(Get("after"), "a");
    Open();  // and the same from the WAL
  }
}

TEST_F(DBTest, SnapshotsSeeTheirMoment) {
  Open();
  ASSERT_TRUE(Put("k", "v1").ok());
  const Snapshot* s1 = db_->GetSnapshot();
  ASSERT_TRUE(Put("k", "v2").ok());
  ASSERT_TRUE(db_->Flush().ok());
  const Snapshot* s2 = db_->GetSnapshot();
  ASSERT_TRUE(db_->Delete(WriteOptions(), "k").ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(Get("k", s1), "v1");
  EXPECT_EQ(Get("k", s2), "v2");
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  db_->ReleaseSnapshot(s1);
  db_->ReleaseSnapshot(s2);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(Get("k"), "NOT_FOUND");
}

TEST_F(DBTest, IteratorMergesEverything) {
  options_.write_buffer_size = 8 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  Open();
  std::map<std::string, std::string> model;
  for (int i = 0; i < 2000; ++i) {
    const std::string k = Key((i * 7919) % 1500);
    model[k] = std::to_string(i);
    ASSERT_TRUE(Put(k, std::to_string(i)).ok());
    if (i % 5 == 0) {
      ASSERT_TRUE(db_->Delete(WriteOptions(), Key(i % 1500)).ok());
      model.erase(Key(i % 1500));
    }
  }
  auto it = db_->NewIterator(ReadOptions());
  test::ExpectIteratesAs(it.get(), model);
}

TEST_F(DBTest, InvalidOptionsAreRefusedNamingTheField) {
  struct Case {
    const char* field;
    void (*mutate)(Options*);
  };
  const Case cases[] = {
      {"bloom_filter_fp_chance",
       [](Options* o) { o->bloom_filter_fp_chance = 0; }},
      {"bloom_filter_fp_chance",
       [](Options* o) { o->bloom_filter_fp_chance = -1; }},
      {"bloom_filter_fp_chance",
       [](Options* o) { o->bloom_filter_fp_chance = 1.5; }},
      {"bloom_filter_fp_chance",
       [](Options* o) {
         o->bloom_filter_fp_chance = std::numeric_limits<double>::quiet_NaN();
       }},
      {"write_buffer_size", [](Options* o) { o->write_buffer_size = 0; }},
      {"max_file_size", [](Options* o) { o->max_file_size = 0; }},
      {"block_size", [](Options* o) { o->block_size = 0; }},
      {"block_restart_interval",
       [](Options* o) { o->block_restart_interval = 0; }},
      {"level0_compaction_trigger",
       [](Options* o) { o->level0_compaction_trigger = 0; }},
      {"max_open_files", [](Options* o) { o->max_open_files = 0; }},
      {"compression",
       [](Options* o) { o->compression = static_cast<Compression>(7); }},
      {"filter_layout",
       [](Options* o) { o->filter_layout = static_cast<FilterLayout>(9); }},
  };
  for (const Case& c : cases) {
    Options o = options_;
    c.mutate(&o);
    auto db = DB::Open(o, path_);
    ASSERT_FALSE(db.ok()) << c.field;
    EXPECT_EQ(db.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(db.status().message().find(c.field), absl::string_view::npos)
        << db.status();
  }
  Options o = options_;
  o.bloom_filter_fp_chance = 1.0;  // no filters: valid
  EXPECT_TRUE(DB::Open(o, path_).ok());
}

TEST_F(DBTest, ExistenceOptions) {
  options_.create_if_missing = false;
  auto missing = DB::Open(options_, path_);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  options_.create_if_missing = true;
  Open();
  db_.reset();
  options_.error_if_exists = true;
  auto exists = DB::Open(options_, path_);
  EXPECT_EQ(exists.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(DBTest, SecondOpenerIsRefused) {
  Open();
  auto second = DB::Open(options_, path_);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition)
      << second.status();
  db_.reset();
  EXPECT_TRUE(DB::Open(options_, path_).ok());
}

TEST_F(DBTest, SecondOpenerIsRefusedOnPosix) {
  options_.env = nullptr;
  path_ = test::TempDir("second-opener");
  Open();
  auto second = DB::Open(options_, path_);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  db_.reset();
  ASSERT_TRUE(DestroyDB(path_, options_).ok());
}

TEST_F(DBTest, MissRejectedByEveryFilterReadsNoDataBlock) {
  CountingEnv counting(env_.get());
  options_.env = &counting;
  // The DB closes (and finishes its background work) before that Env goes.
  absl::Cleanup close_db_first = [this] { db_.reset(); };
  options_.write_buffer_size = 32 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  Open();
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(Put(Key(2 * i), "value").ok());
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  counting.Reset();
  int misses = 0;
  const Statistics before = db_->GetStatistics();
  for (int i = 0; i < 5000; ++i) {
    // Odd numbers are absent; each lies inside file key ranges.
    EXPECT_EQ(Get(Key(2 * i + 1)), "NOT_FOUND");
    ++misses;
  }
  const Statistics after = db_->GetStatistics();
  const uint64_t positives = after.Get(kBloomFilterFullPositive) -
                             before.Get(kBloomFilterFullPositive);
  // Every data block read is explained by a filter false positive.
  EXPECT_LE(counting.ReadsOf(".sst"), positives);
  EXPECT_LT(positives, static_cast<uint64_t>(misses) / 20);
  EXPECT_GT(after.Get(kBloomFilterUseful), 0u);

  // And a probe the filters reject reads nothing at all.
  counting.Reset();
  const Statistics b2 = db_->GetStatistics();
  EXPECT_EQ(Get("zzz-not-there"), "NOT_FOUND");
  const Statistics a2 = db_->GetStatistics();
  if (a2.Get(kBloomFilterFullPositive) == b2.Get(kBloomFilterFullPositive)) {
    EXPECT_EQ(counting.ReadsOf(".sst"), 0u);
  }
}

TEST_F(DBTest, PropertiesReport) {
  Open();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(Put(Key(i), "v").ok());
  ASSERT_TRUE(db_->Flush().ok());
  for (int i = 0; i < 100; ++i) Get(Key(i) + "x");
  for (const char* name : {"sift.stats", "sift.levels", "sift.filter-stats",
                           "sift.memory", "sift.sstables"}) {
    auto p = db_->GetProperty(name);
    ASSERT_TRUE(p.has_value()) << name;
    EXPECT_FALSE(p->empty()) << name;
  }
  EXPECT_NE(db_->GetProperty("sift.stats")->find("sift.bloom.filter.useful"),
            std::string::npos);
  EXPECT_FALSE(db_->GetProperty("sift.no-such").has_value());
  EXPECT_FALSE(db_->GetProperty("sift.num-files-at-level9").has_value());
  EXPECT_FALSE(db_->GetProperty("rocksdb.stats").has_value());
}

}  // namespace
}  // namespace sift
