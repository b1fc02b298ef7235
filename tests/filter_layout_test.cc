// The filter layout a DB gives each file: with filter_layout = kRibbon,
// flushes and levels below bloom_before_level get blocked Bloom, deeper
// levels Ribbon; files built under other layouts keep theirs and read
// correctly beside them after a reopen. Checked on the files' properties.

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/statistics.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

std::string Key(int i) { return test::NumberedKey(i); }
std::string Value(int i) { return test::NumberedValue(i); }

constexpr int kBlocked = static_cast<int>(FilterLayout::kBlocked);
constexpr int kRibbon = static_cast<int>(FilterLayout::kRibbon);
constexpr int kStandard = static_cast<int>(FilterLayout::kStandard);

// Layout of a file's filter, from its properties.
using Layouts = std::set<int>;

class FilterLayoutTest : public test::MemDBTest {
 protected:
  FilterLayoutTest() {
    options_.write_buffer_size = 64 << 10;
    options_.max_file_size = 64 << 10;
  }

  void Reopen(FilterLayout layout, int bloom_before_level) {
    db_.reset();
    options_.filter_layout = layout;
    options_.bloom_before_level = bloom_before_level;
    Open();
  }

  // Every key in [0, n) reads back; keys beside them are absent, and the
  // filters turn most of those misses away.
  void CheckReads(int n) {
    const uint64_t useful = db_->GetStatistics().Get(kBloomFilterUseful);
    std::string v;
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << Key(i);
      ASSERT_EQ(v, Value(i));
      ASSERT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(i) + "x", &v)));
    }
    EXPECT_GT(db_->GetStatistics().Get(kBloomFilterUseful) - useful,
              static_cast<uint64_t>(n) / 2);
  }

  // The layouts the live files' filters were built for. A Ribbon file's
  // filter is 7 to 8.5 bits per key at p = 0.01 (more for small files) and
  // a blocked one's about 10: the properties' layout is checked against the
  // filter the file really holds.
  Layouts LiveLayouts(const std::set<std::string>& only = {}) {
    Layouts out;
    for (const std::string& f : test::ListTableFiles(env_.get(), path_)) {
      if (!only.empty() && only.count(f) == 0) continue;
      auto p = test::ReadTableProperties(env_.get(), f);
      EXPECT_TRUE(p.ok()) << p.status();
      if (!p.ok()) continue;
      const int layout = static_cast<int>(p->filter_layout);
      // Below about 260 keys a file built for Ribbon holds blocked Bloom
      // (Ribbon would not be smaller), which the properties do not show.
      if (layout == kRibbon && p->filter_num_keys >= 300) {
        EXPECT_LT(p->filter_bits_per_key, 9.0) << f;
      } else if (layout == kBlocked) {
        EXPECT_GT(p->filter_bits_per_key, 9.5) << f;
      }
      out.insert(layout);
    }
    return out;
  }

  std::set<std::string> Files() {
    const auto files = test::ListTableFiles(env_.get(), path_);
    return std::set<std::string>(files.begin(), files.end());
  }
};

TEST_F(FilterLayoutTest, BloomBeforeLevelOneKeepsLevelZeroOnBloom) {
  Reopen(FilterLayout::kRibbon, 1);
  PutScattered(0, 4000);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  const std::set<std::string> compacted = Files();
  ASSERT_GT(compacted.size(), 1u);
  EXPECT_EQ(LiveLayouts(), (Layouts{kRibbon}));

  // Flushes over the same keys: the first may be placed down to level 2,
  // each next one lands a level above the last, so level 0 gets one. Every
  // flush output is on Bloom, wherever it went.
  for (int round = 0; round < 3; ++round) {
    PutScattered(0, 300);  // less than a memtable: one file per flush
    ASSERT_TRUE(db_->Flush().ok());
  }
  EXPECT_GE(test::FilesAtLevel(db_.get(), 0), 1);
  std::set<std::string> flushed;
  for (const std::string& f : Files()) {
    if (compacted.count(f) == 0) flushed.insert(f);
  }
  ASSERT_EQ(flushed.size(), 3u);
  EXPECT_EQ(LiveLayouts(flushed), (Layouts{kBlocked}));
  EXPECT_EQ(LiveLayouts(compacted), (Layouts{kRibbon}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(4000));
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveLayouts(), (Layouts{kRibbon}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(4000));
}

TEST_F(FilterLayoutTest, BloomBeforeLevelZeroIsRibbonEverywhere) {
  Reopen(FilterLayout::kRibbon, 0);
  PutScattered(0, 300);
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(LiveLayouts(), (Layouts{kRibbon}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(300));
}

TEST_F(FilterLayoutTest, OldLayoutsCoexistAfterReopen) {
  Reopen(FilterLayout::kBlocked, 1);
  PutScattered(0, 3000);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveLayouts(), (Layouts{kBlocked}));

  Reopen(FilterLayout::kRibbon, 0);
  PutScattered(3000, 3300);
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(LiveLayouts(), (Layouts{kBlocked, kRibbon}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(3300));

  Reopen(FilterLayout::kStandard, 0);
  ASSERT_NO_FATAL_FAILURE(CheckReads(3300));
  PutScattered(3300, 3600);
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(LiveLayouts(), (Layouts{kBlocked, kRibbon, kStandard}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(3600));

  // Compaction rebuilds them all in today's layout.
  Reopen(FilterLayout::kRibbon, 1);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(LiveLayouts(), (Layouts{kRibbon}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(3600));
}

// A level-0 Bloom file is not moved into level 1 as it is when level 1
// calls for Ribbon: the move rewrites it.
TEST_F(FilterLayoutTest, TrivialMoveToARibbonLevelRebuildsTheFilter) {
  options_.level0_compaction_trigger = 4;
  Reopen(FilterLayout::kRibbon, 1);
  PutScattered(0, 300);  // stays in the log; recovery writes it to level 0
  Reopen(FilterLayout::kRibbon, 1);
  ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 1);
  const std::set<std::string> recovered = Files();
  EXPECT_EQ(LiveLayouts(), (Layouts{kBlocked}));

  options_.level0_compaction_trigger = 1;
  Reopen(FilterLayout::kRibbon, 1);
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 1), 1);
  EXPECT_NE(Files(), recovered);
  EXPECT_EQ(LiveLayouts(), (Layouts{kRibbon}));
  ASSERT_NO_FATAL_FAILURE(CheckReads(300));
}

TEST_F(FilterLayoutTest, NegativeBloomBeforeLevelIsRejected) {
  options_.bloom_before_level = -1;
  const absl::Status s = DB::Open(options_, path_).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("bloom_before_level"), std::string::npos) << s;
}

}  // namespace
}  // namespace sift
