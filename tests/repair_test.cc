// RepairDB: a database whose MANIFEST and CURRENT are lost or damaged is
// rebuilt from its tables and logs; every key a readable table or log held
// comes back with its newest value, and a damaged table ends in lost/. A
// repair under another comparator than the MANIFEST names is refused.

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/log_reader.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/test_comparators.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }

class RepairTest : public test::MemDBTest {
 protected:
  RepairTest() {
    options_.write_buffer_size = 64 << 10;
    options_.max_file_size = 64 << 10;
  }

  void Put(const std::string& k, const std::string& v) {
    ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok());
    model_[k] = v;
  }

  // Tables at several levels, keys overwritten across them (so the newest
  // version is not always in the newest-numbered file), deletes, and an
  // unflushed WAL.
  void Populate() {
    Open();
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 1500; ++i) {
        if (i % 3 != round % 3) continue;
        Put(Key(i), absl::StrCat("r", round, "-", i, std::string(60, 'v')));
      }
      ASSERT_TRUE(db_->Flush().ok());
      if (round == 1) {
        ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
      }
    }
    for (int i = 0; i < 1500; i += 7) {
      ASSERT_TRUE(db_->Delete(WriteOptions(), Key(i)).ok());
      model_.erase(Key(i));
    }
    ASSERT_TRUE(db_->Flush().ok());
    ASSERT_TRUE(db_->WaitForCompaction().ok());
    // In the WAL only.
    for (int i = 0; i < 1500; i += 5) Put(Key(i), absl::StrCat("wal-", i));
    db_.reset();
  }

  std::vector<std::string> Children(const std::string& dir) {
    auto children = env_->GetChildren(dir);
    return children.ok() ? *children : std::vector<std::string>{};
  }
  std::vector<std::string> Files(std::string_view part) {
    std::vector<std::string> out;
    for (const std::string& name : Children(path_)) {
      if (name.find(part) != std::string::npos) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void RemoveManifestAndCurrent() {
    ASSERT_TRUE(env_->RemoveFile(path_ + "/CURRENT").ok());
    for (const std::string& m : Files("MANIFEST")) {
      ASSERT_TRUE(env_->RemoveFile(path_ + "/" + m).ok());
    }
  }

  // Every key of the model reads its value; no other key exists.
  void ExpectModel(const std::map<std::string, std::string>& model) {
    Open();
    std::map<std::string, std::string> seen;
    auto it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen[std::string(it->key())] = std::string(it->value());
    }
    ASSERT_TRUE(it->status().ok()) << it->status();
    it.reset();
    EXPECT_EQ(seen.size(), model.size());
    for (const auto& [k, v] : model) {
      ASSERT_EQ(Get(k), v) << k;
      ASSERT_EQ(seen[k], v) << k;
    }
  }

  std::map<std::string, std::string> model_;
};

TEST_F(RepairTest, LostManifestAndCurrentAreRebuilt) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  ASSERT_GE(Files(".sst").size(), 2u);
  ASSERT_EQ(Files(".log").size(), 1u);
  RemoveManifestAndCurrent();
  EXPECT_FALSE(DB::Open(options_, path_).ok());

  RepairReport report;
  const absl::Status s = RepairDB(path_, options_, &report);
  ASSERT_TRUE(s.ok()) << s;
  std::printf("%s", report.ToString().c_str());
  EXPECT_TRUE(report.tables_lost.empty());
  EXPECT_EQ(report.log_records_salvaged, 300u);
  EXPECT_EQ(report.log_records_dropped, 0u);
  // The log's contents live in a table now; the log is kept in lost/.
  EXPECT_TRUE(Files(".log").size() <= 1u);
  EXPECT_FALSE(Children(path_ + "/lost").empty());
  ASSERT_NO_FATAL_FAILURE(ExpectModel(model_));
  // The repaired DB takes writes and reopens.
  Put("after", "repair");
  db_.reset();
  ASSERT_NO_FATAL_FAILURE(ExpectModel(model_));
}

TEST_F(RepairTest, DamagedManifestIsRebuilt) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  const std::string manifest = path_ + "/" + Files("MANIFEST").back();
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), manifest, &data).ok());
  data[10] ^= 0x40;  // in the first record, the snapshot
  ASSERT_TRUE(WriteStringToFile(env_.get(), data, manifest, false).ok());
  EXPECT_EQ(DB::Open(options_, path_).status().code(),
            absl::StatusCode::kDataLoss);
  ASSERT_TRUE(RepairDB(options_, path_).ok());
  ASSERT_NO_FATAL_FAILURE(ExpectModel(model_));
}

TEST_F(RepairTest, DamagedTableGoesToLost) {
  // Disjoint key ranges, one table each, no compaction: the keys of the
  // damaged table are exactly the ones lost.
  options_.level0_compaction_trigger = 20;
  Open();
  std::vector<std::map<std::string, std::string>> tables(3);
  for (int t = 0; t < 3; ++t) {
    for (int i = 0; i < 200; ++i) {
      const std::string k = absl::StrCat("t", t, "-", Key(i));
      const std::string v = absl::StrCat("value", i, std::string(50, 'x'));
      ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok());
      tables[t][k] = v;
    }
    ASSERT_TRUE(db_->Flush().ok());
  }
  // And some keys only in the WAL.
  std::map<std::string, std::string> wal;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), absl::StrCat("w", i), "x").ok());
    wal[absl::StrCat("w", i)] = "x";
  }
  db_.reset();
  const std::vector<std::string> ssts = Files(".sst");
  ASSERT_EQ(ssts.size(), 3u);
  const std::string victim = ssts[1];  // table 1
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), path_ + "/" + victim, &data).ok());
  data[100] ^= 0x01;  // in the first data block
  ASSERT_TRUE(
      WriteStringToFile(env_.get(), data, path_ + "/" + victim, false).ok());
  RemoveManifestAndCurrent();

  RepairReport report;
  ASSERT_TRUE(RepairDB(path_, options_, &report).ok());
  std::printf("%s", report.ToString().c_str());
  ASSERT_EQ(report.tables_lost.size(), 1u);
  EXPECT_EQ(report.tables_lost[0].substr(0, victim.size()), victim);
  EXPECT_EQ(report.log_records_salvaged, 50u);
  const std::vector<std::string> lost = Children(path_ + "/lost");
  EXPECT_NE(std::find(lost.begin(), lost.end(), victim), lost.end());
  std::string moved;
  ASSERT_TRUE(
      ReadFileToString(env_.get(), path_ + "/lost/" + victim, &moved).ok());
  EXPECT_EQ(moved, data);  // set aside as it was, not rewritten

  std::map<std::string, std::string> expected = wal;
  expected.insert(tables[0].begin(), tables[0].end());
  expected.insert(tables[2].begin(), tables[2].end());
  ASSERT_NO_FATAL_FAILURE(ExpectModel(expected));
}

TEST_F(RepairTest, DamagedLogRecordsAreSkippedAndCounted) {
  Open();
  for (int i = 0; i < 100; ++i) Put(Key(i), std::string(500, 'a' + i % 26));
  db_.reset();
  RemoveManifestAndCurrent();
  const std::string log = path_ + "/" + Files(".log").back();
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), log, &data).ok());
  std::vector<uint64_t> records;
  {
    log::Reader reader(data, log);
    std::string scratch;
    std::string_view record;
    while (reader.ReadRecord(&record, &scratch)) {
      records.push_back(reader.last_record_offset());
    }
  }
  ASSERT_EQ(records.size(), 100u);
  data[records[50] + 40] ^= 0x08;  // in the payload of one record
  ASSERT_TRUE(WriteStringToFile(env_.get(), data, log, false).ok());
  RepairReport report;
  ASSERT_TRUE(RepairDB(path_, options_, &report).ok());
  EXPECT_EQ(report.log_records_dropped, 1u);
  EXPECT_EQ(report.log_records_salvaged, 99u);
  Open();
  int found = 0;
  for (int i = 0; i < 100; ++i) found += Get(Key(i)) == model_[Key(i)];
  EXPECT_EQ(found, 99);
}

TEST_F(RepairTest, NotADatabaseIsLeftAlone) {
  ASSERT_TRUE(env_->CreateDir("/notdb").ok());
  ASSERT_TRUE(
      WriteStringToFile(env_.get(), "mine", "/notdb/notes.txt", false).ok());
  const absl::Status s = RepairDB("/notdb", options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_EQ(Children("/notdb"), std::vector<std::string>{"notes.txt"});
}

TEST_F(RepairTest, OpenDatabaseIsRefused) {
  Open();
  EXPECT_FALSE(RepairDB(path_, options_).ok());
  Put("still", "works");
  EXPECT_EQ(Get("still"), "works");
}

// A database ordered by a user comparator: 1,000 keys in tables, one more
// only in the WAL. Closes the DB.
class RepairComparatorTest : public RepairTest {
 protected:
  static constexpr int kKeys = 1001;

  RepairComparatorTest() {
    options_.comparator = test::ReverseBytewiseComparator();
  }

  void WriteKeys() {
    Open();
    for (int i = 0; i < kKeys; ++i) {
      Put(Key(i), absl::StrCat("value", i));
      if (i == kKeys - 2) {
        ASSERT_TRUE(db_->Flush().ok());
      }
    }
    db_.reset();
    ASSERT_EQ(model_.size(), static_cast<size_t>(kKeys));
  }

  // Every file and directory under path_ with its contents ("<dir>" for a
  // directory).
  std::map<std::string, std::string> Snapshot() {
    std::map<std::string, std::string> out;
    for (const std::string& name : Children(path_)) {
      std::string data;
      out[name] = ReadFileToString(env_.get(), path_ + "/" + name, &data).ok()
                      ? data
                      : "<dir>";
    }
    return out;
  }

  // Opens with options_ and checks every key of model_ is there, in the
  // comparator's order.
  void ExpectKeysInOrder() {
    ASSERT_NO_FATAL_FAILURE(Open());
    ASSERT_NE(db_, nullptr);
    std::vector<std::string> expected;
    for (const auto& [k, v] : model_) expected.push_back(k);
    std::sort(expected.begin(), expected.end(),
              test::ComparatorLess{options_.comparator});
    std::vector<std::string> seen;
    auto it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen.emplace_back(it->key());
      ASSERT_EQ(it->value(), model_[seen.back()]) << seen.back();
    }
    ASSERT_TRUE(it->status().ok()) << it->status();
    EXPECT_EQ(seen.size(), model_.size());
    EXPECT_EQ(seen, expected);
  }

  // RepairDB under the bytewise comparator is InvalidArgument naming both
  // comparators and changes nothing: the DB opens as before.
  void ExpectBytewiseRepairRefused() {
    const std::map<std::string, std::string> before = Snapshot();
    Options bytewise = options_;
    bytewise.comparator = BytewiseComparator();
    RepairReport report;
    const absl::Status s = RepairDB(path_, bytewise, &report);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s << "\n" << report.ToString();
    EXPECT_NE(s.message().find("'sift.test.Reverse'"), std::string::npos) << s;
    EXPECT_NE(s.message().find("'sift.BytewiseComparator'"), std::string::npos)
        << s;
    EXPECT_TRUE(report.tables_lost.empty());
    EXPECT_TRUE(report.set_aside.empty());
    const std::map<std::string, std::string> after = Snapshot();
    std::vector<std::string> names_before, names_after;
    for (const auto& [name, data] : before) names_before.push_back(name);
    for (const auto& [name, data] : after) names_after.push_back(name);
    EXPECT_EQ(names_after, names_before);
    for (const auto& [name, data] : before) {
      auto it = after.find(name);
      EXPECT_TRUE(it != after.end() && it->second == data)
          << name << " changed";
    }
  }
};

TEST_F(RepairComparatorTest, SameComparatorKeepsEveryTable) {
  ASSERT_NO_FATAL_FAILURE(WriteKeys());
  ASSERT_GE(Files(".sst").size(), 1u);
  RepairReport report;
  const absl::Status s = RepairDB(path_, options_, &report);
  ASSERT_TRUE(s.ok()) << s;
  std::printf("%s", report.ToString().c_str());
  EXPECT_TRUE(report.tables_lost.empty());
  EXPECT_EQ(report.log_records_salvaged, 1u);
  ASSERT_NO_FATAL_FAILURE(ExpectKeysInOrder());
}

TEST_F(RepairComparatorTest, SameComparatorRebuildsALostManifest) {
  ASSERT_NO_FATAL_FAILURE(WriteKeys());
  RemoveManifestAndCurrent();
  RepairReport report;
  const absl::Status s = RepairDB(path_, options_, &report);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(report.tables_lost.empty());
  ASSERT_NO_FATAL_FAILURE(ExpectKeysInOrder());
}

TEST_F(RepairComparatorTest, OtherComparatorIsRefusedAndNothingChanges) {
  ASSERT_NO_FATAL_FAILURE(WriteKeys());
  ASSERT_NO_FATAL_FAILURE(ExpectBytewiseRepairRefused());
  ASSERT_NO_FATAL_FAILURE(ExpectKeysInOrder());
}

TEST_F(RepairComparatorTest, LostManifestTablesStillNameTheirComparator) {
  // With the MANIFEST gone, the tables' sift.comparator property names the
  // order: a repair under another is refused rather than setting every
  // table aside as damaged.
  ASSERT_NO_FATAL_FAILURE(WriteKeys());
  ASSERT_GE(Files(".sst").size(), 1u);
  RemoveManifestAndCurrent();
  ASSERT_NO_FATAL_FAILURE(ExpectBytewiseRepairRefused());
  RepairReport report;
  const absl::Status s = RepairDB(path_, options_, &report);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(report.tables_lost.empty()) << report.ToString();
  ASSERT_NO_FATAL_FAILURE(ExpectKeysInOrder());
}

TEST_F(RepairComparatorTest, DamagedManifestStillNamesItsComparator) {
  // The snapshot that starts the MANIFEST names the comparator; damage to
  // a later record (here the flush's edit) fails Open, not that check.
  ASSERT_NO_FATAL_FAILURE(WriteKeys());
  Open();
  Put("more", "x");
  ASSERT_TRUE(db_->Flush().ok());
  db_.reset();
  const std::string manifest = path_ + "/" + Files("MANIFEST").back();
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), manifest, &data).ok());
  data.back() ^= 0x40;  // in the last record
  ASSERT_TRUE(WriteStringToFile(env_.get(), data, manifest, false).ok());
  EXPECT_EQ(DB::Open(options_, path_).status().code(),
            absl::StatusCode::kDataLoss);

  ASSERT_NO_FATAL_FAILURE(ExpectBytewiseRepairRefused());
  const absl::Status s = RepairDB(path_, options_);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_NO_FATAL_FAILURE(ExpectKeysInOrder());
}

}  // namespace
}  // namespace sift
