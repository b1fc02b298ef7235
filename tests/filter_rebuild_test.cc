// Compaction rebuilds filters: every output file gets a filter built from
// exactly its own keys with the options in force now, so reopening with a
// different bloom_filter_fp_chance (or filter_layout) and compacting changes
// the filters of old data; files built with different settings coexist and
// all read correctly. Checked on the files' own properties.

#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

std::string Key(int i) { return test::NumberedKey(i); }
std::string Value(int i) { return test::NumberedValue(i); }

class FilterRebuildTest : public test::MemDBTest {
 protected:
  FilterRebuildTest() {
    options_.write_buffer_size = 64 << 10;
    options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
    options_.max_file_size = 64 << 10;
  }

  void Reopen(double fp, FilterLayout layout) {
    db_.reset();
    options_.bloom_filter_fp_chance = fp;
    options_.filter_layout = layout;
    Open();
  }

  // Every key in [0, n) reads back; keys beside them are absent.
  void CheckReads(int n) {
    std::string v;
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << Key(i);
      ASSERT_EQ(v, Value(i));
      ASSERT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(i) + "x", &v)));
    }
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    int count = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++count;
    ASSERT_TRUE(it->status().ok());
    EXPECT_EQ(count, n);
  }

  // The (fp chance, layout) pairs the live files were built with. For
  // files with a filter, also checks it holds exactly the file's keys.
  std::set<std::pair<double, int>> LiveFilterSettings() {
    std::set<std::pair<double, int>> out;
    for (const std::string& f : test::ListTableFiles(env_.get(), path_)) {
      auto p = test::ReadTableProperties(env_.get(), f);
      EXPECT_TRUE(p.ok()) << p.status();
      if (!p.ok()) continue;
      if (p->filter_size == 0) {
        EXPECT_EQ(p->bloom_filter_fp_chance, 1.0) << f;
        out.insert({1.0, -1});
        continue;
      }
      auto keys = test::CountTableKeys(env_.get(), f);
      EXPECT_TRUE(keys.ok()) << keys.status();
      EXPECT_EQ(p->filter_num_keys, *keys) << f;
      out.insert(
          {p->bloom_filter_fp_chance, static_cast<int>(p->filter_layout)});
    }
    return out;
  }
};

using Settings = std::set<std::pair<double, int>>;
constexpr int kBlocked = static_cast<int>(FilterLayout::kBlocked);
constexpr int kStandard = static_cast<int>(FilterLayout::kStandard);

TEST_F(FilterRebuildTest, CompactionRebuildsFiltersWithTheOptionsInForce) {
  Reopen(0.01, FilterLayout::kBlocked);
  PutScattered(0, 5000);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveFilterSettings(), (Settings{{0.01, kBlocked}}));

  // New settings: new flushes use them, old files keep theirs, and both
  // read correctly side by side.
  Reopen(0.1, FilterLayout::kStandard);
  PutScattered(5000, 6000);
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(LiveFilterSettings(),
            (Settings{{0.01, kBlocked}, {0.1, kStandard}}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(6000));

  // A compaction rebuilds the old data's filters with today's settings.
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveFilterSettings(), (Settings{{0.1, kStandard}}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(6000));

  // 1.0: no filter at all, and reads still correct.
  Reopen(1.0, FilterLayout::kBlocked);
  PutScattered(6000, 7000);
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(LiveFilterSettings(), (Settings{{0.1, kStandard}, {1.0, -1}}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(7000));
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveFilterSettings(), (Settings{{1.0, -1}}));
  const uint64_t checked = db_->GetStatistics().Get(kBloomFilterChecked);
  ASSERT_NO_FATAL_FAILURE(CheckReads(7000));
  EXPECT_EQ(db_->GetStatistics().Get(kBloomFilterChecked), checked)
      << "no filter left to check";

  // And back: filters return, sized for the new chance.
  Reopen(0.01, FilterLayout::kBlocked);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveFilterSettings(), (Settings{{0.01, kBlocked}}));
  for (const std::string& f : test::ListTableFiles(env_.get(), path_)) {
    auto p = test::ReadTableProperties(env_.get(), f);
    ASSERT_TRUE(p.ok());
    // log2(1/0.01) * 1.44 = 9.6 bits per key for a standard filter; the
    // blocked layout needs somewhat more.
    EXPECT_GT(p->filter_bits_per_key, 9.0) << f;
    EXPECT_LT(p->filter_bits_per_key, 14.0) << f;
  }
  ASSERT_NO_FATAL_FAILURE(CheckReads(7000));
}

// A level-0 file moves to level 1 unchanged only if its filter was built
// the way a new file would be; otherwise the "move" rewrites it.
TEST_F(FilterRebuildTest, TrivialMoveKeepsOnlyCurrentFilters) {
  options_.level0_compaction_trigger = 1;
  Reopen(0.01, FilterLayout::kBlocked);
  PutScattered(0, 200);  // less than a memtable: it stays in the log
  // Recovery writes the log into a level-0 file, built with 0.01; a high
  // trigger keeps it there.
  db_.reset();
  options_.level0_compaction_trigger = 4;
  Reopen(0.01, FilterLayout::kBlocked);
  ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 1);
  const auto recovered = test::ListTableFiles(env_.get(), path_);
  ASSERT_EQ(recovered.size(), 1u);

  // Opening with 0.1 and trigger 1 compacts it to level 1 at once.
  options_.level0_compaction_trigger = 1;
  Reopen(0.1, FilterLayout::kBlocked);
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 1), 1);
  EXPECT_EQ(LiveFilterSettings(), (Settings{{0.1, kBlocked}}));
  EXPECT_NE(test::ListTableFiles(env_.get(), path_), recovered);

  // A level-0 file already built with 0.1, over keys level 1 lacks, is
  // moved as it is: same file.
  PutScattered(1000, 1200);
  db_.reset();
  options_.level0_compaction_trigger = 4;
  Reopen(0.1, FilterLayout::kBlocked);
  ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 1);
  const auto before = test::ListTableFiles(env_.get(), path_);
  options_.level0_compaction_trigger = 1;
  Reopen(0.1, FilterLayout::kBlocked);
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 1), 2);
  EXPECT_EQ(test::ListTableFiles(env_.get(), path_), before);
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), Key(1123), &v).ok());
  EXPECT_EQ(v, Value(1123));
  ASSERT_TRUE(db_->Get(ReadOptions(), Key(42), &v).ok());
}

}  // namespace
}  // namespace sift
