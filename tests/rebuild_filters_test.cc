// DB::RebuildFilters: a new fp chance or layout reaches old files through
// filter files (db/FORMAT.md, "Filter files") without rewriting any data;
// every step is crash-safe, reads and writes go on meanwhile, and filter
// files are deleted with their tables.

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "db/filter_rebuild.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/statistics.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/gate_env.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::NumberedKey;
using test::NumberedValue;

constexpr int kKeys = 12000;

TEST(FilterFileTest, FilterFileWorkedExample) {
  // db/FORMAT.md, "Filter files".
  const std::string file = EncodeFilterFile(7, "\xaa\xbb\xcc");
  ASSERT_EQ(file.size(), 24u);
  EXPECT_EQ(test::Hex(file.substr(0, 12)),
            "07 00 00 00 00 00 00 00 aa bb cc 00");
  EXPECT_EQ(test::Hex(file.substr(16)), "73 74 66 69 6c 74 65 72");
  auto filter = DecodeFilterFile(file, "f", 7);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(*filter, "\xaa\xbb\xcc");
  // Another table's, a flipped bit, a cut file: all refused.
  EXPECT_TRUE(absl::IsDataLoss(DecodeFilterFile(file, "f", 8).status()));
  std::string bad = file;
  bad[9] ^= 1;
  EXPECT_TRUE(absl::IsDataLoss(DecodeFilterFile(bad, "f", 7).status()));
  EXPECT_TRUE(
      absl::IsDataLoss(DecodeFilterFile(file.substr(1), "f", 7).status()));
}

// Files on a fault-injecting Env over memory; small buffers for many files.
class RebuildFiltersTest : public ::testing::Test {
 protected:
  RebuildFiltersTest()
      : base_(NewMemEnv()),
        gate_(std::make_unique<test::GateEnv>(base_.get())),
        env_(std::make_unique<FaultInjectionEnv>(gate_.get())) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.max_file_size = 64 << 10;
    options_.max_bytes_for_level_base = 256 << 10;
    options_.compression = Compression::kNone;  // data bytes as written
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, path_);
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  // kKeys keys at 1%, compacted: the DB most tests start from.
  void Fill() {
    Open();
    for (int i = 0; i < kKeys; ++i) {
      const int k = static_cast<int>((int64_t{i} * 7919) % kKeys);
      ASSERT_TRUE(
          db_->Put(WriteOptions(), NumberedKey(k), NumberedValue(k)).ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
    ASSERT_TRUE(db_->WaitForCompaction().ok());
  }

  void Reopen(double fp, FilterLayout layout = FilterLayout::kBlocked) {
    db_.reset();
    options_.bloom_filter_fp_chance = fp;
    options_.filter_layout = layout;
    Open();
  }

  // Every key reads back, every absent neighbour does not.
  void CheckReads() {
    std::string v;
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Get(ReadOptions(), NumberedKey(i), &v).ok()) << i;
      ASSERT_EQ(v, NumberedValue(i));
      ASSERT_TRUE(
          absl::IsNotFound(db_->Get(ReadOptions(), NumberedKey(i) + "x", &v)));
    }
  }

  // The distinct fp chances readers use, over all levels (sift.levels).
  std::set<double> FpChances() {
    std::set<double> out;
    for (absl::string_view line :
         absl::StrSplit(*db_->GetProperty("sift.levels"), '\n')) {
      std::vector<absl::string_view> cols =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      int level;
      if (cols.size() != 5 || !absl::SimpleAtoi(cols[0], &level) ||
          cols[4] == "-") {
        continue;
      }
      for (absl::string_view p : absl::StrSplit(cols[4], ',')) {
        double x;
        EXPECT_TRUE(absl::SimpleAtod(p, &x)) << p;
        out.insert(x);
      }
    }
    return out;
  }

  uint64_t Property(const char* name) {
    uint64_t n = 0;
    EXPECT_TRUE(absl::SimpleAtoi(*db_->GetProperty(name), &n)) << name;
    return n;
  }

  // Names in the DB directory ending in suffix.
  std::vector<std::string> FilesEndingIn(std::string_view suffix) {
    std::vector<std::string> out;
    auto children = env_->GetChildren(path_);
    EXPECT_TRUE(children.ok());
    for (const std::string& c : *children) {
      if (c.size() > suffix.size() &&
          c.compare(c.size() - suffix.size(), suffix.size(), suffix) == 0) {
        out.push_back(c);
      }
    }
    return out;
  }

  uint64_t TableBytes() {
    uint64_t sum = 0;
    for (const std::string& t : FilesEndingIn(".sst")) {
      sum += *env_->GetFileSize(path_ + "/" + t);
    }
    return sum;
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<test::GateEnv> gate_;
  std::unique_ptr<FaultInjectionEnv> env_;
  Options options_;
  std::string path_ = "/db";
  std::unique_ptr<DB> db_;
};

TEST_F(RebuildFiltersTest, NewFpChanceReachesEveryFileWritingOnlyFilters) {
  Fill();
  ASSERT_EQ(FpChances(), std::set<double>{0.01});
  const uint64_t filter_bytes_before = Property("sift.filter-bytes");
  Reopen(0.001);
  const uint64_t table_bytes = TableBytes();
  env_->ResetCounters();
  ASSERT_TRUE(db_->RebuildFilters().ok());
  EXPECT_EQ(FpChances(), std::set<double>{0.001});
  // Only filter files and the MANIFEST were written.
  EXPECT_EQ(env_->BytesAppendedTo(".sst"), 0u);
  const uint64_t written = env_->BytesAppendedTo(".filter");
  std::printf(
      "table bytes %llu, filter files written %llu (%.2f%%)\n",
      static_cast<unsigned long long>(table_bytes),
      static_cast<unsigned long long>(written),
      100.0 * static_cast<double>(written) / static_cast<double>(table_bytes));
  EXPECT_GT(written, 0u);
  EXPECT_LE(written, table_bytes / 20);  // <= 5% of the DB
  EXPECT_EQ(written, Property("sift.filter-bytes") +
                         (8 + 5 + 8) * FilesEndingIn(".filter").size());
  EXPECT_GT(Property("sift.filter-bytes"), filter_bytes_before * 5 / 4);
  EXPECT_EQ(Property("sift.filter-keys"), static_cast<uint64_t>(kKeys));
  const Statistics stats = db_->GetStatistics();
  EXPECT_EQ(stats.Get(kFilterRebuilds), FilesEndingIn(".filter").size());
  EXPECT_EQ(stats.Get(kFilterRebuildBytesWritten), written);
  CheckReads();
  // Nothing is stale now: a second call writes nothing.
  env_->ResetCounters();
  ASSERT_TRUE(db_->RebuildFilters().ok());
  EXPECT_EQ(env_->BytesAppendedTo(".filter"), 0u);
}

TEST_F(RebuildFiltersTest, ReopenKeepsTheReplacement) {
  Fill();
  Reopen(0.001);
  ASSERT_TRUE(db_->RebuildFilters().ok());
  const size_t filter_files = FilesEndingIn(".filter").size();
  ASSERT_GT(filter_files, 0u);
  Open();
  EXPECT_EQ(FpChances(), std::set<double>{0.001});
  EXPECT_EQ(FilesEndingIn(".filter").size(), filter_files);
  CheckReads();
  // Reads use the new filters: few false positives at 0.1%.
  const Statistics stats = db_->GetStatistics();
  EXPECT_LT(stats.ObservedFpRate(), 0.004) << stats.ToString();
  env_->ResetCounters();
  ASSERT_TRUE(db_->RebuildFilters().ok());
  EXPECT_EQ(env_->BytesAppendedTo(".filter"), 0u);
}

TEST_F(RebuildFiltersTest, CheckpointCarriesTheReplacementFilters) {
  Fill();
  Reopen(0.001);
  ASSERT_TRUE(db_->RebuildFilters().ok());
  const std::vector<std::string> filters = FilesEndingIn(".filter");
  ASSERT_FALSE(filters.empty());
  ASSERT_TRUE(db_->CreateCheckpoint("/ckpt").ok());
  db_.reset();
  const std::string source = path_;
  path_ = "/ckpt";
  // Every filter file, byte for byte.
  EXPECT_EQ(FilesEndingIn(".filter"), filters);
  for (const std::string& f : filters) {
    std::string a, b;
    ASSERT_TRUE(ReadFileToString(env_.get(), source + "/" + f, &a).ok());
    ASSERT_TRUE(ReadFileToString(env_.get(), path_ + "/" + f, &b).ok()) << f;
    EXPECT_EQ(a, b) << f;
  }
  // Opened with every check, the checkpoint reads through the rebuilt
  // filters: their fp chance, and their few false positives.
  options_.paranoid_checks = true;
  Open();
  EXPECT_EQ(FpChances(), std::set<double>{0.001});
  CheckReads();
  const Statistics stats = db_->GetStatistics();
  EXPECT_LT(stats.ObservedFpRate(), 0.004) << stats.ToString();
}

TEST_F(RebuildFiltersTest, FilterFilesGoWithTheirTablesAndWhenReplaced) {
  Fill();
  Reopen(0.001);
  ASSERT_TRUE(db_->RebuildFilters().ok());
  const std::vector<std::string> first = FilesEndingIn(".filter");
  ASSERT_FALSE(first.empty());
  // Replaced again: the first filter files are obsolete.
  Reopen(0.0001);
  ASSERT_TRUE(db_->RebuildFilters().ok());
  EXPECT_EQ(FpChances(), std::set<double>{0.0001});
  const std::vector<std::string> second = FilesEndingIn(".filter");
  EXPECT_EQ(second.size(), first.size());
  for (const std::string& f : first) {
    EXPECT_EQ(std::count(second.begin(), second.end(), f), 0) << f;
  }
  // Compacted: every table is rewritten with a fresh filter of its own, and
  // its filter file goes with it.
  Reopen(0.01);
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_TRUE(FilesEndingIn(".filter").empty());
  EXPECT_EQ(FpChances(), std::set<double>{0.01});
  CheckReads();
}

TEST_F(RebuildFiltersTest, OldLayoutsCoexist) {
  options_.filter_layout = FilterLayout::kStandard;
  Fill();
  // Half the files get Ribbon filters; then new data lands in Bloom files.
  Reopen(0.01, FilterLayout::kRibbon);
  ASSERT_TRUE(db_->RebuildFilters().ok());
  Reopen(0.005, FilterLayout::kBlocked);
  for (int i = 0; i < kKeys; i += 3) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), NumberedKey(i), NumberedValue(i)).ok());
  }
  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_GE(FpChances().size(), 2u);
  CheckReads();
  Open();
  CheckReads();
}

TEST_F(RebuildFiltersTest, ReadsAndWritesGoOnDuringARebuild) {
  Fill();
  Reopen(0.001);
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread reader([&] {
    std::string v;
    for (int round = 0; !done.load() || round < 2; ++round) {
      for (int i = round % 7; i < kKeys; i += 7) {
        if (!db_->Get(ReadOptions(), NumberedKey(i), &v).ok() ||
            v != NumberedValue(i) ||
            !absl::IsNotFound(
                db_->Get(ReadOptions(), NumberedKey(i) + "x", &v))) {
          bad.fetch_add(1);
        }
      }
    }
  });
  std::thread writer([&] {
    for (int i = 0; i < 3000 && !done.load(); ++i) {
      const int k = kKeys + i;
      if (!db_->Put(WriteOptions(), NumberedKey(k), NumberedValue(k)).ok()) {
        bad.fetch_add(1);
      }
    }
  });
  const absl::Status s = db_->RebuildFilters();
  done.store(true);
  reader.join();
  writer.join();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(bad.load(), 0);
  CheckReads();
}

TEST_F(RebuildFiltersTest, FileCompactedAwayMidRebuildIsSkipped) {
  Fill();
  Reopen(0.001);
  // Hold the first filter file's creation while a compaction rewrites
  // every table (their filters are stale too, so CompactRange rewrites
  // them).
  gate_->Arm(test::GateEnv::Op::kNewWritableFile, ".filter");
  absl::Status rebuilt;
  std::thread rebuild([&] { rebuilt = db_->RebuildFilters(); });
  ASSERT_TRUE(gate_->WaitUntilHeld());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  gate_->Open();
  rebuild.join();
  ASSERT_TRUE(rebuilt.ok()) << rebuilt;
  EXPECT_EQ(db_->GetStatistics().Get(kFilterRebuilds), 0u);
  EXPECT_EQ(FpChances(), std::set<double>{0.001});
  EXPECT_TRUE(FilesEndingIn(".filter").empty());
  CheckReads();
}

// A failure at each step of writing and recording a filter, then a crash:
// the DB reopens, every file has a filter (old or new), every key reads.
TEST_F(RebuildFiltersTest, CrashAtEachStepLeavesOldOrNewFilter) {
  struct Step {
    FaultOp op;
    const char* file;
    int skip;
  };
  const Step steps[] = {
      {FaultOp::kNewFile, ".filter", 0}, {FaultOp::kAppend, ".filter", 0},
      {FaultOp::kSync, ".filter", 0},    {FaultOp::kSync, ".filter", 2},
      {FaultOp::kSyncDir, "", 0},        {FaultOp::kAppend, "MANIFEST", 1},
      {FaultOp::kSync, "MANIFEST", 1},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(absl::StrCat(FaultOpName(step.op), " '", step.file, "' after ",
                              step.skip));
    db_.reset();
    ASSERT_TRUE(DestroyDB(path_, options_).ok());
    options_.bloom_filter_fp_chance = 0.01;
    Fill();
    Reopen(0.001);
    env_->InjectError(step.op, step.file, FaultInjectionEnv::IOError(),
                      step.skip);
    EXPECT_FALSE(db_->RebuildFilters().ok());
    env_->SetFilesystemActive(false);
    db_.reset();
    ASSERT_TRUE(env_->SimulateCrash().ok());
    env_->SetFilesystemActive(true);
    env_->ClearErrors();
    Open();
    CheckReads();
    EXPECT_EQ(Property("sift.filter-keys"), static_cast<uint64_t>(kKeys));
    const std::set<double> p = FpChances();
    EXPECT_TRUE(p.count(1.0) == 0 && !p.empty());
    // And a rebuild after the crash completes the job.
    ASSERT_TRUE(db_->RebuildFilters().ok());
    EXPECT_EQ(FpChances(), std::set<double>{0.001});
    CheckReads();
  }
}

TEST_F(RebuildFiltersTest, ReadOnlyDBRefuses) {
  Fill();
  db_.reset();
  auto ro = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(ro.ok()) << ro.status();
  EXPECT_TRUE(absl::IsFailedPrecondition((*ro)->RebuildFilters()));
}

}  // namespace
}  // namespace sift
