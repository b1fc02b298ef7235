// Compaction through the public API: what the merge keeps and drops
// (tombstones, versions snapshots need, overlapping level-0 files), how
// outputs are cut, which files are deleted, and manual CompactRange.
// Filter rebuilding is in filter_rebuild_test.cc.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
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

std::string Key(int i) { return absl::StrFormat("key%06d", i); }

class CompactionTest : public test::MemDBTest {
 protected:
  void Put(std::string_view k, std::string_view v) {
    ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok());
  }
  void Delete(std::string_view k) {
    ASSERT_TRUE(db_->Delete(WriteOptions(), k).ok());
  }
  void CompactAll() {
    ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  }

  // Totals over the live table files' properties.
  struct Totals {
    uint64_t entries = 0, deletions = 0;
    size_t files = 0;
  };
  Totals TableTotals() {
    Totals t;
    for (const std::string& f : test::ListTableFiles(env_.get(), path_)) {
      auto p = test::ReadTableProperties(env_.get(), f);
      EXPECT_TRUE(p.ok()) << p.status();
      if (!p.ok()) continue;
      t.entries += p->num_entries;
      t.deletions += p->num_deletions;
      ++t.files;
    }
    return t;
  }

  // Every key the DB shows, in order, checked against both directions.
  std::map<std::string, std::string> Scan() {
    std::map<std::string, std::string> out;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out.emplace(it->key(), it->value());
    }
    EXPECT_TRUE(it->status().ok()) << it->status();
    size_t back = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) ++back;
    EXPECT_EQ(back, out.size());
    return out;
  }
};

TEST_F(CompactionTest, TombstonesAreDroppedAtTheBottom) {
  Open();
  for (int i = 0; i < 1000; ++i) Put(Key(i), "v");
  ASSERT_TRUE(db_->Flush().ok());
  for (int i = 0; i < 1000; i += 2) Delete(Key(i));
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(TableTotals().deletions, 500u);
  CompactAll();
  const Totals t = TableTotals();
  EXPECT_EQ(t.deletions, 0u);
  EXPECT_EQ(t.entries, 500u);  // the deleted keys' values went too
  EXPECT_EQ(Scan().size(), 500u);
  EXPECT_EQ(Get(Key(0)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(1)), "v");
}

TEST_F(CompactionTest, CompactRangeRefusesBeginAfterEnd) {
  Open();
  for (int i = 0; i < 100; ++i) Put(Key(i), "v");
  const absl::Status s = db_->CompactRange("z", "a");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("'z'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("'a'"), std::string::npos) << s;
  // Nothing was done: the writes are still in the memtable.
  EXPECT_EQ(TableTotals().entries, 0u);
  // One key is a range.
  EXPECT_TRUE(db_->CompactRange(Key(5), Key(5)).ok());
  EXPECT_EQ(Get(Key(5)), "v");
}

TEST_F(CompactionTest, TombstonesStayWhileASnapshotNeedsWhatTheyHide) {
  Open();
  for (int i = 0; i < 100; ++i) Put(Key(i), "old");
  ASSERT_TRUE(db_->Flush().ok());
  const Snapshot* snap = db_->GetSnapshot();
  for (int i = 0; i < 100; ++i) Delete(Key(i));
  CompactAll();
  // The snapshot still sees the old values, so the values and their
  // tombstones are both kept.
  EXPECT_EQ(TableTotals().deletions, 100u);
  EXPECT_EQ(TableTotals().entries, 200u);
  EXPECT_EQ(Get(Key(7), snap), "old");
  EXPECT_EQ(Get(Key(7)), "NOT_FOUND");
  EXPECT_TRUE(Scan().empty());
  db_->ReleaseSnapshot(snap);
  CompactAll();
  EXPECT_EQ(TableTotals().entries, 0u);
  EXPECT_EQ(test::TotalFilesInLevels(db_.get()), 0);
}

TEST_F(CompactionTest, KeepsExactlyTheVersionsLiveSnapshotsNeed) {
  Open();
  std::vector<const Snapshot*> snaps;
  for (int v = 0; v < 5; ++v) {
    for (int i = 0; i < 50; ++i) Put(Key(i), absl::StrFormat("v%d", v));
    snaps.push_back(db_->GetSnapshot());
    ASSERT_TRUE(db_->Flush().ok());
  }
  for (int i = 0; i < 50; ++i) Put(Key(i), "latest");
  CompactAll();
  // Five snapshots see five different versions; the latest is a sixth.
  EXPECT_EQ(TableTotals().entries, 6u * 50);
  for (int v = 0; v < 5; ++v) {
    EXPECT_EQ(Get(Key(3), snaps[v]), absl::StrFormat("v%d", v));
  }
  // Versions 1 and 3 are no longer needed once their snapshots go.
  db_->ReleaseSnapshot(snaps[1]);
  db_->ReleaseSnapshot(snaps[3]);
  CompactAll();
  EXPECT_EQ(TableTotals().entries, 4u * 50);
  EXPECT_EQ(Get(Key(3), snaps[0]), "v0");
  EXPECT_EQ(Get(Key(3), snaps[2]), "v2");
  EXPECT_EQ(Get(Key(3), snaps[4]), "v4");
  EXPECT_EQ(Get(Key(3)), "latest");
  for (int v : {0, 2, 4}) db_->ReleaseSnapshot(snaps[v]);
  CompactAll();
  EXPECT_EQ(TableTotals().entries, 50u);
  EXPECT_EQ(Get(Key(49)), "latest");
}

TEST_F(CompactionTest, OverlappingLevel0FilesNewestWins) {
  options_.level0_compaction_trigger = 20;  // keep them at level 0
  Open();
  for (int round = 0; round < 8; ++round) {
    // Every round rewrites the same key range (and deletes one key).
    for (int i = 0; i < 200; ++i) Put(Key(i), absl::StrFormat("r%d", round));
    Delete(Key(round));
    ASSERT_TRUE(db_->Flush().ok());
  }
  EXPECT_GE(test::FilesAtLevel(db_.get(), 0), 5);
  auto check = [&] {
    for (int i = 0; i < 200; ++i) {
      // Key(i) for i < 8 was deleted in round i and rewritten after it.
      const std::string want = i == 7 ? "NOT_FOUND" : "r7";
      ASSERT_EQ(Get(Key(i)), want) << i;
    }
    const auto all = Scan();
    ASSERT_EQ(all.size(), 199u);
    for (const auto& [k, v] : all) ASSERT_EQ(v, "r7") << k;
  };
  check();
  CompactAll();
  EXPECT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  check();
  EXPECT_EQ(TableTotals().entries, 199u);
}

// Many versions of one user key, kept by snapshots, can fill more than one
// output file. A file must never end inside one user key's versions: if it
// did, a later compaction could move or rewrite the newer half alone and
// expose (or resurrect) the older half.
TEST_F(CompactionTest, VersionsOfOneKeyAreNeverSplitAcrossFiles) {
  options_.max_file_size = 1 << 10;  // the smallest allowed
  options_.block_size = 256;
  options_.compression = Compression::kNone;
  Open();
  const std::string big(600, 'x');
  std::vector<const Snapshot*> snaps;
  Put("a", "first");
  for (int v = 0; v < 6; ++v) {
    Put("k", absl::StrFormat("%d%s", v, big));
    snaps.push_back(db_->GetSnapshot());
  }
  Delete("k");
  Put("z", "last");
  CompactAll();
  for (int v = 0; v < 6; ++v) {
    EXPECT_EQ(Get("k", snaps[v]).substr(0, 1), absl::StrFormat("%d", v));
  }
  for (const Snapshot* s : snaps) db_->ReleaseSnapshot(s);
  // The bottom files with the tombstone are rewritten (it can go now), the
  // ones holding only old values need no rewrite: if "k" spanned files, an
  // old value would come back.
  CompactAll();
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(Scan().size(), 2u);
  Open();
  EXPECT_EQ(Get("k"), "NOT_FOUND");
}

TEST_F(CompactionTest, OutputsAreCutAtMaxFileSize) {
  options_.write_buffer_size = 256 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  options_.max_file_size = 64 << 10;
  options_.compression = Compression::kNone;
  Open();
  Random rnd(test::TestSeed(11));
  std::string v;
  // Keys in random order, so flushes overlap and everything goes through
  // compaction (a flush writes one file however large the memtable).
  for (int i = 0; i < 20000; ++i) {
    rnd.RandomString(100, &v);
    Put(Key((i * 7919) % 20000), v);
  }
  CompactAll();
  const auto files = test::ListTableFiles(env_.get(), path_);
  uint64_t total = 0;
  for (const std::string& f : files) {
    const uint64_t size = *env_->GetFileSize(f);
    total += size;
    // A file ends at the first block boundary past the target; the index,
    // filter and footer come on top.
    EXPECT_LE(size, options_.max_file_size + options_.block_size + (8 << 10))
        << f;
  }
  EXPECT_GE(files.size(), total / (options_.max_file_size + (12 << 10)));
  EXPECT_GE(files.size(), 20u);
  EXPECT_EQ(Scan().size(), 20000u);
}

TEST_F(CompactionTest, FilesNoVersionNeedsAreDeleted) {
  options_.write_buffer_size = 16 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  Open();
  for (int i = 0; i < 5000; ++i) Put(Key(i), "first");
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  const size_t live = test::ListTableFiles(env_.get(), path_).size();
  EXPECT_EQ(static_cast<int>(live), test::TotalFilesInLevels(db_.get()));
  // A compaction deletes its inputs before CompactRange returns, not at
  // some later flush (an idle DB would keep them forever).
  for (int i = 0; i < 5000; i += 2) Delete(Key(i));
  CompactAll();
  EXPECT_EQ(static_cast<int>(test::ListTableFiles(env_.get(), path_).size()),
            test::TotalFilesInLevels(db_.get()));

  // An open iterator keeps the files it reads alive through a compaction
  // that replaces them all.
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  for (int i = 0; i < 5000; ++i) Put(Key(i), "second");
  CompactAll();
  EXPECT_GT(test::ListTableFiles(env_.get(), path_).size(),
            static_cast<size_t>(test::TotalFilesInLevels(db_.get())));
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_EQ(it->value(), "first") << it->key();
  }
  ASSERT_TRUE(it->status().ok()) << it->status();
  EXPECT_EQ(n, 2500);
  it.reset();
  // The next flush's cleanup removes what only the iterator needed.
  Put("another", "x");
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_EQ(static_cast<int>(test::ListTableFiles(env_.get(), path_).size()),
            test::TotalFilesInLevels(db_.get()));
  EXPECT_EQ(Get(Key(42)), "second");
}

TEST_F(CompactionTest, CompactRangeTouchesOnlyFilesInTheRange) {
  options_.write_buffer_size = 64 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  options_.max_file_size = 16 << 10;
  Open();
  for (int i = 0; i < 10000; ++i) Put(Key(i), std::string(50, 'a'));
  CompactAll();
  const auto before = test::ListTableFiles(env_.get(), path_);
  ASSERT_GT(before.size(), 10u);
  // Delete a middle range and compact just that range: the files outside
  // it keep their numbers.
  for (int i = 4000; i < 6000; ++i) Delete(Key(i));
  ASSERT_TRUE(db_->CompactRange(Key(4000), Key(5999)).ok());
  const auto after = test::ListTableFiles(env_.get(), path_);
  EXPECT_EQ(TableTotals().deletions, 0u);
  int kept = 0;
  for (const std::string& f : before) {
    kept += std::count(after.begin(), after.end(), f) > 0;
  }
  EXPECT_GT(kept, static_cast<int>(before.size()) / 2);
  EXPECT_LT(kept, static_cast<int>(before.size()));
  EXPECT_EQ(Scan().size(), 8000u);
  EXPECT_EQ(Get(Key(3999)), std::string(50, 'a'));
  EXPECT_EQ(Get(Key(4000)), "NOT_FOUND");
}

TEST_F(CompactionTest, AutomaticCompactionKeepsLevelsWithinTargets) {
  options_.write_buffer_size = 16 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  options_.max_file_size = 16 << 10;
  Open();
  Random rnd(test::TestSeed(3));
  std::map<std::string, std::string> model;
  std::string v;
  for (int i = 0; i < 40000; ++i) {
    const std::string k = Key(rnd.Uniform(20000));
    rnd.RandomString(40, &v);
    Put(k, v);
    model[k] = v;
  }
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_LT(test::FilesAtLevel(db_.get(), 0),
            options_.level0_compaction_trigger);
  // Level 1 holds max_bytes_for_level_base, each deeper one 10x more.
  const auto stats = db_->GetStatistics();
  EXPECT_GT(stats.Get(kCompactions), 0u);
  int deepest = 0;
  for (int level = 1; level < 7; ++level) {
    if (test::FilesAtLevel(db_.get(), level) > 0) deepest = level;
  }
  EXPECT_GE(deepest, 2);
  // With no compaction due, every level is within its target.
  const std::string levels = *db_->GetProperty("sift.levels");
  std::istringstream lines(levels);
  std::string line;
  std::getline(lines, line);
  std::getline(lines, line);
  int parsed = 0;
  while (std::getline(lines, line)) {
    int level, files;
    double size_mb, target_mb;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d %d %lf %lf", &level, &files,
                          &size_mb, &target_mb),
              4)
        << line;
    EXPECT_EQ(files, test::FilesAtLevel(db_.get(), level));
    if (level >= 1) {
      EXPECT_LE(size_mb, target_mb) << levels;
    }
    ++parsed;
  }
  EXPECT_EQ(parsed, 7);
  EXPECT_EQ(Scan(), model);
}

// Bytes of the files at each level, from sift.sstables.
std::vector<uint64_t> LevelBytes(DB* db) {
  std::vector<uint64_t> bytes(7, 0);
  std::istringstream in(*db->GetProperty("sift.sstables"));
  std::string line;
  int level = 0;
  while (std::getline(in, line)) {
    if (std::sscanf(line.c_str(), "--- level %d ---", &level) == 1) continue;
    unsigned long long number, size;
    if (std::sscanf(line.c_str(), " %llu:%llu[", &number, &size) == 2) {
      bytes[level] += size;
    }
  }
  return bytes;
}

// The level targets come from max_bytes_for_level_base and the multiplier,
// not from the write buffer: the same writes make a deep tree under a small
// base and stay in level 1 under a large one.
TEST_F(CompactionTest, MaxBytesForLevelBaseSetsTheShape) {
  options_.write_buffer_size = 16 << 10;
  options_.max_file_size = 16 << 10;
  const uint64_t seed = test::TestSeed(12);
  for (const auto& [base, multiplier] :
       {std::pair<uint64_t, double>{32 << 10, 2.0}, {64 << 20, 10.0}}) {
    SCOPED_TRACE(absl::StrFormat("base %d multiplier %g", base, multiplier));
    db_.reset();
    ASSERT_TRUE(DestroyDB(path_, options_).ok());
    options_.max_bytes_for_level_base = base;
    options_.max_bytes_for_level_multiplier = multiplier;
    Open();
    Random rnd(seed);
    std::string v;
    for (int i = 0; i < 20000; ++i) {
      rnd.RandomString(40, &v);
      Put(Key(rnd.Uniform(10000)), v);
    }
    ASSERT_TRUE(db_->WaitForCompaction().ok());
    const std::vector<uint64_t> bytes = LevelBytes(db_.get());
    int deepest = 0;
    double target = static_cast<double>(base);
    for (int level = 1; level < 7; ++level) {
      if (bytes[level] > 0) deepest = level;
      EXPECT_LE(static_cast<double>(bytes[level]), target) << level;
      target *= multiplier;
    }
    if (base == (32 << 10)) {
      EXPECT_GE(deepest, 4);  // about 600 KiB over 32, 64, 128, 256 KiB...
    } else {
      // Level 1 takes every compaction; only the first flush, which
      // overlapped nothing, may sit at kMaxMemCompactLevel (2).
      EXPECT_LE(deepest, 2);
    }
  }
}

// The smallest write buffer Open accepts (1 KiB) is below an empty
// memtable's own overhead: writes must still go through, one small file
// every few writes, instead of switching empty memtables forever.
TEST_F(CompactionTest, SmallestWriteBufferStillTakesWrites) {
  options_.write_buffer_size = 1 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  Open();
  for (int i = 0; i < 300; ++i) Put(Key(i), std::string(100, 'v'));
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_GT(db_->GetStatistics().Get(kFlushes), 20u);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(Get(Key(i)), std::string(100, 'v'));
  // And no pile of empty logs is left behind.
  auto children = env_->GetChildren(path_);
  ASSERT_TRUE(children.ok());
  EXPECT_LT(children->size(), 10u + test::TotalFilesInLevels(db_.get()));
}

// Table reads that take 1 ms each while slow is set: compaction (which
// reads every block of its inputs) becomes much slower than a flush (which
// reads only the new file's footer, index and filter).
class SlowTableReadEnv : public EnvWrapper {
 public:
  explicit SlowTableReadEnv(Env* target) : EnvWrapper(target) {}
  std::atomic<bool> slow{false};

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    auto file = target()->NewRandomAccessFile(path);
    if (!file.ok() || path.find(".sst") == std::string::npos) return file;
    return std::unique_ptr<RandomAccessFile>(
        new SlowFile(this, *std::move(file)));
  }

 private:
  class SlowFile : public RandomAccessFile {
   public:
    SlowFile(SlowTableReadEnv* env, std::unique_ptr<RandomAccessFile> base)
        : env_(env), base_(std::move(base)) {}
    absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                      char* scratch) const override {
      if (env_->slow.load()) env_->SleepForMicroseconds(1000);
      return base_->Read(offset, n, result, scratch);
    }

   private:
    SlowTableReadEnv* const env_;
    const std::unique_ptr<RandomAccessFile> base_;
  };
};

// While a long manual compaction holds the background thread, flushes still
// run between its steps but level 0 is not compacted: writers are slowed at
// 8 level-0 files and stopped at 12 (as set here), and the stalls are
// counted.
TEST_F(CompactionTest, WritesSlowDownThenStopWhenLevel0PilesUp) {
  SlowTableReadEnv slow_env(env_.get());
  options_.env = &slow_env;
  // The DB closes (and finishes its background work) before that Env goes.
  absl::Cleanup close_db_first = [this] { db_.reset(); };
  options_.level0_slowdown_writes_trigger = 8;
  options_.level0_stop_writes_trigger = 12;
  options_.write_buffer_size = 64 << 10;
  options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
  options_.max_file_size = 64 << 10;
  options_.compression = Compression::kNone;
  Open();
  for (int i = 0; i < 20000; ++i) Put(Key(i), std::string(100, 'a'));
  CompactAll();
  ASSERT_GT(test::TotalFilesInLevels(db_.get()), 25);
  // A new fp chance makes CompactRange rewrite every bottom file, one
  // step each; with slow table reads a memtable fills several times
  // faster than a step.
  options_.bloom_filter_fp_chance = 0.05;
  Open();
  slow_env.slow.store(true);
  std::atomic<bool> done{false};
  absl::Status compact_status;
  std::thread compactor([&] {
    compact_status = db_->CompactRange(std::nullopt, std::nullopt);
    done.store(true);
  });
  // New keys above the old ones, in random order: after the first two,
  // every flush overlaps level 0, and none pulls the old files into one
  // big merge.
  Random rnd(test::TestSeed(8));
  std::vector<bool> written(20000, false);
  // Large values: even slowed to delayed_write_rate, writes fill
  // memtables faster than the steps go, so level 0 reaches the stop.
  const std::string big(16 << 10, 'b');
  constexpr int kMaxWrites = 3000;  // ~60 are needed
  int max_level0 = 0, writes = 0;
  // A bound in time as well, so a CompactRange that never ends fails the
  // test instead of hanging it.
  const uint64_t deadline = env_->NowMicros() + 30'000'000;
  while (!done.load() && writes < kMaxWrites && env_->NowMicros() < deadline) {
    const int k = static_cast<int>(rnd.Uniform(20000));
    Put(Key(20000 + k), big);
    written[k] = true;
    max_level0 = std::max(max_level0, test::FilesAtLevel(db_.get(), 0));
    ++writes;
  }
  slow_env.slow.store(false);  // if the loop gave up, finish fast and fail
  compactor.join();
  ASSERT_TRUE(compact_status.ok()) << compact_status;
  // CompactRange finished while the writes went on (it does not chase the
  // level-0 files they keep adding).
  EXPECT_LT(writes, kMaxWrites);
  EXPECT_LT(env_->NowMicros(), deadline);
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  const Statistics stats = db_->GetStatistics();
  EXPECT_GE(max_level0, 8);
  EXPECT_LE(max_level0, 12);  // writes stop before a 13th file
  EXPECT_GT(stats.Get(kStallSlowdownWrites), 0u);
  EXPECT_GT(stats.Get(kStallStopWrites), 0u);
  // Every slowed write was charged at least its 16 KiB at
  // delayed_write_rate (less at most the last, unslept millisecond).
  const double min_charge = 16384.0 * 1e6 / options_.delayed_write_rate;
  EXPECT_GE(stats.Get(kStallMicros) + 1000,
            min_charge * stats.Get(kStallSlowdownWrites));
  EXPECT_NE(db_->GetProperty("sift.stats")->find("sift.stall.l0.stop.count"),
            std::string::npos);
  EXPECT_LT(test::FilesAtLevel(db_.get(), 0),
            options_.level0_compaction_trigger);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(Get(Key(i)), std::string(100, 'a')) << i;
    ASSERT_EQ(Get(Key(20000 + i)), written[i] ? big : "NOT_FOUND");
  }
}

}  // namespace
}  // namespace sift
