// The read-path statistics: every filter probe of a Get is counted however
// many files it probes; the memtable's filter is counted as
// sift.memtable.filter.*; iterators' block reads are counted like Get's.

#include "sift/statistics.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }

class StatisticsTest : public ::testing::Test {
 protected:
  StatisticsTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
  }

  void Open() {
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  int FilesAt(int level) {
    const std::optional<std::string> n =
        db_->GetProperty(absl::StrFormat("sift.num-files-at-level%d", level));
    EXPECT_TRUE(n.has_value());
    return n.has_value() ? std::stoi(*n) : -1;
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// 30 overlapping level-0 files (and a file or two deeper) and a key missing
// from all of them but within their ranges: that one Get probes every one
// of their filters, and every probe is counted, per level and in total.
TEST_F(StatisticsTest, AGetProbingManyFilesLosesNoCount) {
  constexpr int kLevel0Files = 30;
  options_.level0_compaction_trigger = 100;  // keep them all in level 0
  options_.level0_slowdown_writes_trigger = 100;
  options_.level0_stop_writes_trigger = 100;
  ASSERT_NO_FATAL_FAILURE(Open());
  // Every file holds "a", Key(f) and "z", so all ranges hold every Key.
  // The first flushes go below level 0 (nothing overlaps them there yet);
  // Key(oldest) is in the oldest level-0 file only.
  int oldest = -1;
  for (int f = 0; FilesAt(0) < kLevel0Files; ++f) {
    ASSERT_LT(f, 2 * kLevel0Files);
    ASSERT_TRUE(db_->Put(WriteOptions(), "a", "v").ok());
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(f), "v").ok());
    ASSERT_TRUE(db_->Put(WriteOptions(), "z", "v").ok());
    ASSERT_TRUE(db_->Flush().ok());
    if (oldest < 0 && FilesAt(0) == 1) oldest = f;
  }
  uint64_t deeper_levels = 0;  // each holds one file
  for (int level = 1; level < kStatisticsLevels; ++level) {
    ASSERT_LE(FilesAt(level), 1);
    deeper_levels += FilesAt(level);
  }

  const Statistics before = db_->GetStatistics();
  std::string v;
  ASSERT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(500), &v)));
  Statistics after = db_->GetStatistics();
  auto delta = [&](Ticker t) { return after.Get(t) - before.Get(t); };
  auto delta_at = [&](int level, Ticker t) {
    return after.GetAtLevel(level, t) - before.GetAtLevel(level, t);
  };
  EXPECT_EQ(delta(kNumberKeysRead), 1u);
  EXPECT_EQ(delta(kMemtableMiss), 1u);
  EXPECT_EQ(delta_at(0, kBloomFilterChecked), uint64_t{kLevel0Files});
  EXPECT_EQ(delta(kBloomFilterChecked), kLevel0Files + deeper_levels);
  for (int level = 0; level < kStatisticsLevels; ++level) {
    SCOPED_TRACE(absl::StrFormat("level %d", level));
    // A probe either skipped the file or let the read through to it; the
    // key is nowhere, so nothing was a true positive.
    EXPECT_EQ(delta_at(level, kBloomFilterChecked),
              delta_at(level, kBloomFilterUseful) +
                  delta_at(level, kBloomFilterFullPositive));
    EXPECT_EQ(delta_at(level, kBloomFilterFullTruePositive), 0u);
  }
  for (Ticker t : {kBloomFilterUseful, kBloomFilterFullPositive,
                   kDataBlocksRead, kBlockCacheDataHit, kBlockCacheDataMiss}) {
    uint64_t sum = 0;
    for (int level = 0; level < kStatisticsLevels; ++level) {
      sum += delta_at(level, t);
    }
    EXPECT_EQ(sum, delta(t)) << TickerName(t);
  }

  // A key of the oldest level-0 file: the Get probes all 30 and is counted
  // as found, with one true positive.
  const Statistics before_hit = after;
  ASSERT_TRUE(db_->Get(ReadOptions(), Key(oldest), &v).ok());
  EXPECT_EQ(v, "v");
  after = db_->GetStatistics();
  auto hit_delta_at = [&](int level, Ticker t) {
    return after.GetAtLevel(level, t) - before_hit.GetAtLevel(level, t);
  };
  EXPECT_EQ(hit_delta_at(0, kBloomFilterChecked), uint64_t{kLevel0Files});
  EXPECT_EQ(hit_delta_at(0, kBloomFilterFullTruePositive), 1u);
  EXPECT_EQ(after.Get(kNumberKeysFound) - before_hit.Get(kNumberKeysFound), 1u);
}

// The memtable's filter answers every Get that reaches the memtable: it
// never misses a key that is there, and skips the walk for most that are
// not.
TEST_F(StatisticsTest, MemtableFilterSkipsMissesAndNeverFalseNegative) {
  ASSERT_NO_FATAL_FAILURE(Open());
  constexpr int kPresent = 5000;
  for (int i = 0; i < kPresent; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(2 * i), "v").ok());
  }
  ASSERT_EQ(FilesAt(0), 0) << "everything should still be in the memtable";
  const Statistics s0 = db_->GetStatistics();
  std::string v;
  for (int i = 0; i < kPresent; ++i) {
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(2 * i), &v).ok()) << Key(2 * i);
  }
  const Statistics s1 = db_->GetStatistics();
  EXPECT_EQ(s1.Get(kMemtableFilterPositive) - s0.Get(kMemtableFilterPositive),
            uint64_t{kPresent});
  EXPECT_EQ(
      s1.Get(kMemtableFilterTruePositive) - s0.Get(kMemtableFilterTruePositive),
      uint64_t{kPresent});
  EXPECT_EQ(s1.Get(kMemtableFilterUseful), s0.Get(kMemtableFilterUseful));

  constexpr int kAbsent = 20000;
  for (int i = 0; i < kAbsent; ++i) {
    ASSERT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(2 * i + 1), &v)));
  }
  const Statistics s2 = db_->GetStatistics();
  const uint64_t useful =
      s2.Get(kMemtableFilterUseful) - s1.Get(kMemtableFilterUseful);
  const uint64_t positive =
      s2.Get(kMemtableFilterPositive) - s1.Get(kMemtableFilterPositive);
  EXPECT_EQ(useful + positive, uint64_t{kAbsent});
  EXPECT_EQ(s2.Get(kMemtableFilterTruePositive),
            s1.Get(kMemtableFilterTruePositive));
  // Far below one false positive in a hundred at this fill.
  EXPECT_LT(positive, uint64_t{kAbsent / 100}) << positive;
  const std::string text = db_->GetProperty("sift.stats").value_or("");
  EXPECT_NE(text.find("sift.memtable.filter.useful COUNT : "),
            std::string::npos)
      << text;
}

// An iterator's block reads are counted like a Get's: at the level of the
// file, as reads the first time and as cache hits the second.
TEST_F(StatisticsTest, IteratorBlockReadsAreCounted) {
  options_.block_size = 512;
  ASSERT_NO_FATAL_FAILURE(Open());
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), Key(i), absl::StrFormat("%050d", i)).ok());
  }
  ASSERT_TRUE(db_->Flush().ok());
  // A fresh open: nothing cached.
  db_.reset();
  ASSERT_NO_FATAL_FAILURE(Open());
  int level = 0;
  while (level < kStatisticsLevels && FilesAt(level) == 0) ++level;
  ASSERT_LT(level, kStatisticsLevels);
  const Statistics s0 = db_->GetStatistics();
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  ASSERT_TRUE(it->status().ok());
  ASSERT_EQ(n, 2000);
  const Statistics s1 = db_->GetStatistics();
  const uint64_t blocks = s1.GetAtLevel(level, kDataBlocksRead);
  EXPECT_GT(blocks, 50u) << "one read per data block";
  EXPECT_EQ(s1.Get(kDataBlocksRead) - s0.Get(kDataBlocksRead), blocks);
  EXPECT_EQ(s1.GetAtLevel(level, kBlockCacheDataMiss), blocks);
  EXPECT_GT(s1.GetAtLevel(level, kBytesRead), blocks * 100);
  for (it->SeekToFirst(); it->Valid(); it->Next()) --n;
  EXPECT_EQ(n, 0);
  const Statistics s2 = db_->GetStatistics();
  EXPECT_EQ(s2.GetAtLevel(level, kDataBlocksRead), blocks);
  EXPECT_EQ(s2.GetAtLevel(level, kBlockCacheDataHit), blocks);
}

}  // namespace
}  // namespace sift
