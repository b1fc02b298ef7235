// ReadOptions::iterate_lower_bound and iterate_upper_bound (RocksDB's):
// bounded iterators checked against a model clipped to the bounds, in
// both directions, through seeks and random walks, snapshots, tombstones
// and range deletions, memtable and tables at several levels, a reverse
// comparator and SstFileReader; and table files wholly outside the
// bounds left unopened.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "sift/statistics.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/model_checks.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using Model = test::ModelMap;

std::string Key(uint32_t i) { return absl::StrFormat("k%05u", i); }

// The part of model inside [lower, upper).
Model Clip(const Model& model, const std::optional<std::string>& lower,
           const std::optional<std::string>& upper) {
  Model out(model.key_comp());
  for (const auto& [k, v] : model) {
    if (lower && model.key_comp()(k, *lower)) continue;
    if (upper && !model.key_comp()(k, *upper)) continue;
    out.emplace(k, v);
  }
  return out;
}

class IterateBoundsTest : public test::MemDBTest {
 protected:
  // Random bounds over the key space [0, n): either may be absent, and
  // they may be empty or reversed (then nothing is shown).
  void RandomBounds(Random* rnd, uint32_t n, ReadOptions* ro) {
    ro->iterate_lower_bound.reset();
    ro->iterate_upper_bound.reset();
    if (!rnd->OneIn(4)) ro->iterate_lower_bound = Key(rnd->Uniform(n + 10));
    if (!rnd->OneIn(4)) ro->iterate_upper_bound = Key(rnd->Uniform(n + 10));
    // Bounds that fall between keys, too.
    if (ro->iterate_lower_bound && rnd->OneIn(3)) {
      ro->iterate_lower_bound->append("5");
    }
  }

  // Every check of one bounded read of model at ro.
  void CheckBounded(const ReadOptions& ro, const Model& model, Random* rnd,
                    uint32_t n) {
    const Model clipped =
        Clip(model, ro.iterate_lower_bound, ro.iterate_upper_bound);
    const std::string where = absl::StrFormat(
        "lower %s upper %s", ro.iterate_lower_bound.value_or("-"),
        ro.iterate_upper_bound.value_or("-"));
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    for (const bool forward : {true, false}) {
      const absl::Status s = test::CheckScan(it.get(), clipped, forward);
      ASSERT_TRUE(s.ok()) << where << (forward ? " forward: " : " back: ") << s;
    }
    for (int i = 0; i < 5; ++i) {
      const std::string target = Key(rnd->Uniform(n + 10));
      const absl::Status s =
          test::CheckSeekWalk(it.get(), clipped, target, rnd);
      ASSERT_TRUE(s.ok()) << where << " seek " << target << ": " << s;
    }
  }
};

// A random history (puts, deletes, range deletions, flushes, compactions)
// and, after each step, bounded reads of the latest state and of a
// snapshot taken earlier.
TEST_F(IterateBoundsTest, BoundedIteratorsShowExactlyTheClippedModel) {
  const uint64_t seed = test::TestSeed(4242);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  options_.write_buffer_size = 16 << 10;
  options_.max_file_size = 16 << 10;
  options_.max_bytes_for_level_base = 64 << 10;
  Open();
  constexpr uint32_t kKeys = 2000;
  Model model;
  const Snapshot* snap = nullptr;
  Model at_snap;
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 150; ++i) {
      const std::string k = Key(rnd.Uniform(kKeys));
      if (rnd.OneIn(6)) {
        ASSERT_TRUE(db_->Delete(WriteOptions(), k).ok());
        model.erase(k);
      } else {
        const std::string v = absl::StrFormat("v%d.%d", round, i);
        ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok());
        model[k] = v;
      }
    }
    if (rnd.OneIn(4)) {
      const uint32_t b = rnd.Uniform(kKeys);
      const std::string begin = Key(b), end = Key(b + 1 + rnd.Uniform(50));
      ASSERT_TRUE(db_->DeleteRange(WriteOptions(), begin, end).ok());
      model.erase(model.lower_bound(begin), model.lower_bound(end));
    }
    if (rnd.OneIn(3)) {
      ASSERT_TRUE(db_->Flush().ok());
    }
    if (rnd.OneIn(10)) {
      ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
    }
    if (rnd.OneIn(8)) {
      if (snap != nullptr) db_->ReleaseSnapshot(snap);
      snap = db_->GetSnapshot();
      at_snap = model;
    }
    ReadOptions ro;
    RandomBounds(&rnd, kKeys, &ro);
    ASSERT_NO_FATAL_FAILURE(CheckBounded(ro, model, &rnd, kKeys));
    if (snap != nullptr) {
      ro.snapshot = snap;
      ASSERT_NO_FATAL_FAILURE(CheckBounded(ro, at_snap, &rnd, kKeys));
    }
  }
  if (snap != nullptr) db_->ReleaseSnapshot(snap);
}

// Tables wholly outside the bounds are left unopened: the skip is counted
// per file, and a bounded scan reads only the blocks of the files it
// shows keys from.
TEST_F(IterateBoundsTest, FilesOutsideTheBoundsAreNotOpened) {
  options_.block_cache_capacity = 0;  // every block read is a file read
  Open();
  // Ten disjoint files of 100 keys each (flushes place them where they
  // overlap nothing, level 0 or deeper).
  for (uint32_t f = 0; f < 10; ++f) {
    for (uint32_t i = 0; i < 100; ++i) {
      ASSERT_TRUE(
          db_->Put(WriteOptions(), Key(f * 100 + i), std::string(100, 'v'))
              .ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
  }
  auto count = [&](const ReadOptions& ro) {
    const Statistics before = db_->GetStatistics();
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_TRUE(it->status().ok()) << it->status();
    const Statistics after = db_->GetStatistics();
    return std::make_tuple(
        n,
        after.Get(kIterateBoundsFilesSkipped) -
            before.Get(kIterateBoundsFilesSkipped),
        after.Get(kDataBlocksRead) - before.Get(kDataBlocksRead));
  };
  ReadOptions whole;
  const auto [all, none_skipped, all_blocks] = count(whole);
  EXPECT_EQ(all, 1000);
  EXPECT_EQ(none_skipped, 0u);
  ReadOptions ro;
  ro.iterate_lower_bound = Key(320);
  ro.iterate_upper_bound = Key(380);  // inside the fourth file only
  const auto [shown, skipped, blocks] = count(ro);
  EXPECT_EQ(shown, 60);
  EXPECT_EQ(skipped, 9u);
  EXPECT_LT(blocks * 5, all_blocks) << blocks << " of " << all_blocks;
  // The same at a deeper level, after a compaction made it one level.
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  const auto [shown_deep, skipped_deep, blocks_deep] = count(ro);
  EXPECT_EQ(shown_deep, 60);
  EXPECT_LT(blocks_deep * 5, all_blocks) << blocks_deep;
  (void)skipped_deep;  // as many as the compaction's output files, less one
}

// Bounds compare with the family's comparator: under a reverse order the
// lower bound is the larger string.
TEST_F(IterateBoundsTest, BoundsFollowTheComparator) {
  options_.comparator = test::ReverseBytewiseComparator();
  Open();
  for (uint32_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "v").ok());
    if (i % 30 == 29) {
      ASSERT_TRUE(db_->Flush().ok());
    }
  }
  ReadOptions ro;
  ro.iterate_lower_bound = Key(60);  // first in reverse order
  ro.iterate_upper_bound = Key(40);  // exclusive
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  std::vector<std::string> keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    keys.emplace_back(it->key());
  }
  ASSERT_EQ(keys.size(), 20u);
  EXPECT_EQ(keys.front(), Key(60));
  EXPECT_EQ(keys.back(), Key(41));
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(41));
  it->Seek(Key(99));  // before the lower bound in this order
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(60));
}

// SstFileReader's iterators honour the bounds too.
TEST_F(IterateBoundsTest, SstFileReaderHonoursTheBounds) {
  const std::string dir = test::TempDir("iterate_bounds_sst");
  const std::string path = dir + "/t.sst";
  SstFileWriter writer{Options()};
  ASSERT_TRUE(writer.Open(path).ok());
  for (uint32_t i = 0; i < 50; ++i) {
    ASSERT_TRUE(writer.Put(Key(i), "v").ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  SstFileReader reader{Options()};
  ASSERT_TRUE(reader.Open(path).ok());
  ReadOptions ro;
  ro.iterate_lower_bound = Key(10);
  ro.iterate_upper_bound = Key(20);
  std::unique_ptr<Iterator> it = reader.NewIterator(ro);
  int n = 0;
  for (it->SeekToLast(); it->Valid(); it->Prev()) ++n;
  EXPECT_EQ(n, 10);
  it->Seek(Key(3));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(10));
  it->Seek(Key(20));
  EXPECT_FALSE(it->Valid());
}

}  // namespace
}  // namespace sift
