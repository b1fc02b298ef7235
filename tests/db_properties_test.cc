// GetProperty and the memory it reports: sift.levels, sift.num-files-at-level
// <N>, sift.filter-stats, sift.stats and sift.memory checked against the
// files on disk, their properties and the statistics struct; and the table
// cache bound (max_open_files).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// "name: N" lines of sift.memory.
std::map<std::string, uint64_t> ParseMemory(const std::string& text) {
  std::map<std::string, uint64_t> out;
  for (const std::string& line : Lines(text)) {
    std::pair<std::string, std::string> kv = absl::StrSplit(line, ": ");
    uint64_t n;
    EXPECT_TRUE(absl::SimpleAtoi(kv.second, &n)) << line;
    out[kv.first] = n;
  }
  return out;
}

struct FilterStatsRow {
  uint64_t checked = 0, useful = 0, positive = 0, true_positive = 0;
  double observed = 0;
  std::string fp_chance;
};

// The per-level rows of sift.filter-stats (index = level).
std::vector<FilterStatsRow> ParseFilterStats(const std::string& text) {
  std::vector<FilterStatsRow> rows;
  const std::vector<std::string> lines = Lines(text);
  for (size_t i = 1; i < lines.size(); ++i) {
    FilterStatsRow r;
    int level;
    unsigned long long c, u, p, t;
    char fp[64];
    if (std::sscanf(lines[i].c_str(), "%d %llu %llu %llu %llu %lf %63s", &level,
                    &c, &u, &p, &t, &r.observed, fp) != 7) {
      continue;  // the total row
    }
    EXPECT_EQ(level, static_cast<int>(rows.size()));
    r.checked = c, r.useful = u, r.positive = p, r.true_positive = t;
    r.fp_chance = fp;
    rows.push_back(r);
  }
  return rows;
}

// File number -> level, from sift.sstables.
std::map<uint64_t, int> FileLevels(DB* db) {
  std::map<uint64_t, int> out;
  int level = -1;
  for (const std::string& line : Lines(*db->GetProperty("sift.sstables"))) {
    if (std::sscanf(line.c_str(), "--- level %d ---", &level) == 1) continue;
    unsigned long long number;
    if (std::sscanf(line.c_str(), " %llu:", &number) == 1) {
      out[number] = level;
    }
  }
  return out;
}

uint64_t FileNumber(const std::string& path) {
  uint64_t n = 0;
  const std::string base = path.substr(path.rfind('/') + 1);
  EXPECT_TRUE(absl::SimpleAtoi(base.substr(0, base.find('.')), &n)) << path;
  return n;
}

class DBPropertiesTest : public test::MemDBTest {
 protected:
  DBPropertiesTest() {
    options_.write_buffer_size = 32 << 10;
    options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
    options_.max_file_size = 32 << 10;
  }

  // Keys Key(stride * k) + suffix for k in [0, n) (with stride 2, odd
  // numbers are known to be absent), in a scattered order so that flushes
  // overlap and compaction runs.
  void Fill(int n, int stride = 2, std::string_view suffix = "") {
    for (int i = 0; i < n; ++i) {
      const int k = static_cast<int>((int64_t{i} * 7919) % n);
      ASSERT_TRUE(db_->Put(WriteOptions(),
                           Key(stride * k) + std::string(suffix),
                           std::string(80, 'v'))
                      .ok());
    }
  }
};

TEST_F(DBPropertiesTest, LevelsMatchTheFilesOnDisk) {
  Open();
  Fill(20000);
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  const std::map<uint64_t, int> levels = FileLevels(db_.get());
  std::vector<int> files(7, 0);
  std::vector<uint64_t> bytes(7, 0);
  const auto on_disk = test::ListTableFiles(env_.get(), path_);
  ASSERT_EQ(on_disk.size(), levels.size());
  for (const std::string& f : on_disk) {
    auto it = levels.find(FileNumber(f));
    ASSERT_NE(it, levels.end()) << f;
    ++files[it->second];
    bytes[it->second] += *env_->GetFileSize(f);
  }
  const std::vector<std::string> lines =
      Lines(*db_->GetProperty("sift.levels"));
  ASSERT_EQ(lines.size(), 2u + 7u);
  int used_levels = 0;
  for (int level = 0; level < 7; ++level) {
    int l, n;
    double mb, target;
    char fp[64];
    ASSERT_EQ(std::sscanf(lines[2 + level].c_str(), "%d %d %lf %lf %63s", &l,
                          &n, &mb, &target, fp),
              5)
        << lines[2 + level];
    EXPECT_EQ(l, level);
    EXPECT_EQ(n, files[level]) << level;
    EXPECT_EQ(n, test::FilesAtLevel(db_.get(), level));
    EXPECT_NEAR(mb, static_cast<double>(bytes[level]) / 1048576.0, 0.006);
    // Level 1 holds max_bytes_for_level_base, each deeper level 10x more.
    if (level >= 1) {
      EXPECT_NEAR(target, 0.3125 * std::pow(10, level - 1),
                  0.06 * std::pow(10, level - 1));
    }
    EXPECT_EQ(std::string(fp), n > 0 ? "0.01" : "-") << level;
    used_levels += n > 0;
  }
  EXPECT_GE(used_levels, 2);
  EXPECT_FALSE(db_->GetProperty("sift.num-files-at-level7").has_value());
  EXPECT_FALSE(db_->GetProperty("sift.num-files-at-level-1").has_value());
  EXPECT_FALSE(db_->GetProperty("sift.num-files-at-levelx").has_value());
  EXPECT_FALSE(db_->GetProperty("sift.num-files-at-level").has_value());
}

TEST_F(DBPropertiesTest, FilterStatsPerLevelBesideTheirFpChance) {
  Open();
  Fill(20000);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  // New files built for 0.1 over the same key range land above the old.
  options_.bloom_filter_fp_chance = 0.1;
  Open();
  Fill(200, 200, "-new");  // one file over the old keys' whole range
  ASSERT_TRUE(db_->Flush().ok());
  int bottom = 0, top = 7;
  for (int level = 0; level < 7; ++level) {
    if (test::FilesAtLevel(db_.get(), level) > 0) {
      bottom = level;
      top = std::min(top, level);
    }
  }
  ASSERT_LT(top, bottom);
  Open();  // fresh counters, same files
  std::string v;
  const int kMisses = 20000, kHits = 2000;
  for (int i = 0; i < kMisses; ++i) {
    ASSERT_TRUE(absl::IsNotFound(
        db_->Get(ReadOptions(), Key(2 * (i % 20000) + 1), &v)));
  }
  for (int i = 0; i < kHits; ++i) {
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(2 * (i * 7)), &v).ok());
  }
  const Statistics stats = db_->GetStatistics();
  const auto rows = ParseFilterStats(*db_->GetProperty("sift.filter-stats"));
  ASSERT_EQ(rows.size(), 7u);
  for (int level = 0; level < 7; ++level) {
    const FilterStatsRow& r = rows[level];
    EXPECT_EQ(r.checked, stats.GetAtLevel(level, kBloomFilterChecked));
    EXPECT_EQ(r.useful, stats.GetAtLevel(level, kBloomFilterUseful));
    EXPECT_EQ(r.positive, stats.GetAtLevel(level, kBloomFilterFullPositive));
    EXPECT_EQ(r.checked, r.useful + r.positive) << level;
    EXPECT_LE(r.true_positive, r.positive);
    EXPECT_NEAR(r.observed, stats.ObservedFpRateAtLevel(level), 1e-6);
  }
  // The old data: every probe meets one bottom file; every hit is a true
  // positive there; misses pass about 1% of the time.
  const FilterStatsRow& b = rows[bottom];
  EXPECT_EQ(b.fp_chance, "0.01");
  EXPECT_EQ(b.true_positive, static_cast<uint64_t>(kHits));
  EXPECT_GE(b.checked, static_cast<uint64_t>(kMisses + kHits) * 99 / 100);
  EXPECT_GT(b.observed, 0.002);
  EXPECT_LT(b.observed, 0.025);
  // The new files were built for 10%.
  const FilterStatsRow& t = rows[top];
  EXPECT_EQ(t.fp_chance, "0.1");
  EXPECT_EQ(t.true_positive, 0u);
  EXPECT_GT(t.checked, static_cast<uint64_t>(kMisses) / 2);
  EXPECT_GT(t.observed, 0.06);
  EXPECT_LT(t.observed, 0.15);
  const std::string total =
      Lines(*db_->GetProperty("sift.filter-stats")).back();
  EXPECT_EQ(total.substr(0, 5), "total") << total;
  EXPECT_NE(total.find(absl::StrFormat("%.6f", stats.ObservedFpRate())),
            std::string::npos)
      << total;
}

TEST_F(DBPropertiesTest, StatsListEveryTickerWithItsCount) {
  Open();
  Fill(3000);
  std::string v;
  for (int i = 0; i < 500; ++i)
    db_->Get(ReadOptions(), Key(i), &v).IgnoreError();
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  const Statistics stats = db_->GetStatistics();
  const std::string text = *db_->GetProperty("sift.stats");
  for (uint32_t t = 0; t < kNumTickers; ++t) {
    const std::string line = absl::StrFormat(
        "%s COUNT : %u\n", TickerName(static_cast<Ticker>(t)), stats.total[t]);
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
  EXPECT_EQ(stats.Get(kNumberKeysWritten), 3000u);
  EXPECT_EQ(stats.Get(kNumberKeysRead), 500u);
  EXPECT_EQ(stats.Get(kNumberKeysFound), 250u);  // the even keys
  EXPECT_GT(stats.Get(kFlushes), 0u);
  EXPECT_NE(text.find("observed filter fp rate"), std::string::npos);
  EXPECT_NE(text.find("files["), std::string::npos);
}

TEST_F(DBPropertiesTest, MemoryCountsMemtablesFiltersIndexesAndCache) {
  options_.write_buffer_size = 1 << 20;
  Open();
  auto mem = ParseMemory(*db_->GetProperty("sift.memory"));
  const uint64_t empty_memtable = mem["memtables"];
  EXPECT_EQ(mem["filters"], 0u);
  EXPECT_EQ(mem["open tables"], 0u);
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), std::string(100, 'v')).ok());
  }
  mem = ParseMemory(*db_->GetProperty("sift.memory"));
  EXPECT_GE(mem["memtables"], empty_memtable + 5000u * 110);
  EXPECT_LT(mem["memtables"], empty_memtable + 5000u * 200);

  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  uint64_t filter_bytes = 0, index_bytes = 0;
  double filter_bits = 0;
  const auto files = test::ListTableFiles(env_.get(), path_);
  for (const std::string& f : files) {
    auto p = test::ReadTableProperties(env_.get(), f);
    ASSERT_TRUE(p.ok());
    filter_bytes += p->filter_size - 5;  // the block trailer is not kept
    index_bytes += p->index_size;
    filter_bits += p->filter_bits_per_key * p->filter_num_keys;
  }
  std::string v;
  for (int i = 0; i < 5000; i += 10) {
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok());
  }
  mem = ParseMemory(*db_->GetProperty("sift.memory"));
  EXPECT_EQ(mem["open tables"], files.size());
  EXPECT_EQ(mem["filters"], filter_bytes);
  // About bits_per_key * keys / 8, plus each filter's small trailer.
  EXPECT_NEAR(static_cast<double>(mem["filters"]), filter_bits / 8,
              64.0 * files.size());
  EXPECT_GT(filter_bits / 8, 5000 * 9.0 / 8);
  EXPECT_GE(mem["indexes"], index_bytes / 2);
  EXPECT_LT(mem["indexes"], index_bytes * 4 + 4096);
  EXPECT_GT(mem["block cache"], 0u);
  EXPECT_LE(mem["block cache"], options_.block_cache_capacity);
  EXPECT_LT(mem["memtables"], empty_memtable + 1000);  // flushed
}

// With max_open_files = 10 (5 tables pinned, 5 in the LRU) and many more
// files, reads stay correct and no more than 10 tables are open once no
// iterator holds one.
TEST_F(DBPropertiesTest, TableCacheIsBoundedByMaxOpenFiles) {
  options_.max_open_files = 10;
  options_.write_buffer_size = 8 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  options_.max_file_size = 4 << 10;
  options_.compression = Compression::kNone;
  Open();
  Fill(6000);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  Open();  // pins are handed out again at recovery
  const size_t num_files = test::ListTableFiles(env_.get(), path_).size();
  ASSERT_GT(num_files, 60u);
  Random rnd(test::TestSeed(9));
  std::string v;
  for (int i = 0; i < 20000; ++i) {
    const int k = static_cast<int>(rnd.Uniform(12000));
    const absl::Status s = db_->Get(ReadOptions(), Key(k), &v);
    ASSERT_EQ(s.ok(), k % 2 == 0) << Key(k) << " " << s;
  }
  auto mem = ParseMemory(*db_->GetProperty("sift.memory"));
  EXPECT_LE(mem["open tables"], 10u);
  EXPECT_GE(mem["open tables"], 5u);
  {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    int n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) ++n;
    EXPECT_TRUE(it->status().ok());
    EXPECT_EQ(n, 6000);
  }
  mem = ParseMemory(*db_->GetProperty("sift.memory"));
  EXPECT_LE(mem["open tables"], 10u);
}

}  // namespace
}  // namespace sift
