// Damaged files: flipped bytes in every region of an SSTable (data, index,
// filter, properties, metaindex, footer), in the WAL (middle versus tail) and
// in the MANIFEST and CURRENT. Open, Get, iteration and verification
// (paranoid_checks) report DataLoss naming the file and offset; nothing
// crashes; no wrong value is ever returned; a damaged filter degrades to
// reading data, never to a false negative.

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/log_reader.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "table/format.h"
#include "table/table.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

constexpr int kKeys = 3000;

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int i) {
  std::string v = absl::StrFormat("value%d-", i);
  v.resize(60 + i % 80, static_cast<char>('a' + i % 26));
  return v;
}

class CorruptionTest : public ::testing::Test {
 protected:
  CorruptionTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.block_size = 1024;
    options_.level0_compaction_trigger = 10;  // keep the tables we make
  }

  absl::Status Open(bool paranoid = false) {
    db_.reset();
    Options o = options_;
    o.paranoid_checks = paranoid;
    auto db = DB::Open(o, "/db");
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    return absl::OkStatus();
  }

  // Every key in one table file, then a copy of the DB's files to restore.
  void BuildOneTable() {
    ASSERT_TRUE(Open().ok());
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
    db_.reset();
    Save();
    ASSERT_EQ(Files(".sst").size(), 1u);
  }

  std::vector<std::string> Children() {
    auto children = env_->GetChildren("/db");
    EXPECT_TRUE(children.ok()) << children.status();
    return children.ok() ? *std::move(children) : std::vector<std::string>{};
  }

  void Save() {
    saved_.clear();
    for (const std::string& name : Children()) {
      ASSERT_TRUE(
          ReadFileToString(env_.get(), "/db/" + name, &saved_[name]).ok());
    }
  }
  void Restore() {
    db_.reset();
    for (const std::string& name : Children()) {
      ASSERT_TRUE(env_->RemoveFile("/db/" + name).ok());
    }
    for (const auto& [name, data] : saved_) {
      ASSERT_TRUE(
          WriteStringToFile(env_.get(), data, "/db/" + name, false).ok());
    }
  }

  std::vector<std::string> Files(std::string_view part) {
    std::vector<std::string> out;
    for (const std::string& name : Children()) {
      if (name.find(part) != std::string::npos) out.push_back("/db/" + name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void Flip(const std::string& path, uint64_t offset, char mask = 0x21) {
    std::string data;
    ASSERT_TRUE(ReadFileToString(env_.get(), path, &data).ok());
    ASSERT_LT(offset, data.size());
    data[offset] ^= mask;
    ASSERT_TRUE(WriteStringToFile(env_.get(), data, path, false).ok());
  }

  std::vector<Table::BlockInfo> BlocksOf(const std::string& path) {
    auto file = env_->NewRandomAccessFile(path);
    auto table = Table::Open(path, *std::move(file), *env_->GetFileSize(path),
                             nullptr, BytewiseComparator());
    EXPECT_TRUE(table.ok()) << table.status();
    return table.ok() ? (*table)->Blocks() : std::vector<Table::BlockInfo>{};
  }

  // Reads every key through Get and the whole DB through an iterator:
  // a value that comes back is the right one, a present key is never
  // NotFound, and every error is DataLoss naming `file`. Returns the
  // number of Get errors.
  int CheckReads(const std::string& file) {
    ReadOptions ro;
    int errors = 0;
    for (int i = 0; i < kKeys; ++i) {
      std::string v;
      absl::Status s = db_->Get(ro, Key(i), &v);
      if (s.ok()) {
        EXPECT_EQ(v, Value(i)) << Key(i) << ": wrong value";
        continue;
      }
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << Key(i) << ": " << s;
      EXPECT_NE(s.message().find(file), absl::string_view::npos) << s;
      EXPECT_NE(s.message().find("offset "), absl::string_view::npos) << s;
      ++errors;
    }
    std::string v;
    EXPECT_TRUE(absl::IsNotFound(db_->Get(ro, "key-absent", &v)));
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    int i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      // Keys in damaged blocks may be skipped; what is shown is right.
      while (i < kKeys && Key(i) < it->key()) ++i;
      EXPECT_LT(i, kKeys);
      if (i >= kKeys) break;
      EXPECT_EQ(it->key(), Key(i));
      EXPECT_EQ(it->value(), Value(i));
    }
    if (!it->status().ok()) {
      EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
      EXPECT_NE(it->status().message().find(file), absl::string_view::npos);
    } else {
      EXPECT_EQ(errors, 0) << "Get failed but iteration did not";
    }
    return errors;
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> saved_;
};

// True if msg says "offset <n>" (and not a longer number).
bool NamesOffset(absl::string_view msg, uint64_t n) {
  const std::string want = absl::StrCat("offset ", n);
  for (size_t pos = msg.find(want); pos != absl::string_view::npos;
       pos = msg.find(want, pos + 1)) {
    const size_t end = pos + want.size();
    if (end == msg.size() || msg[end] < '0' || msg[end] > '9') return true;
  }
  return false;
}

// The number after the last "offset " in msg.
std::optional<uint64_t> OffsetNamed(absl::string_view msg) {
  const size_t pos = msg.rfind("offset ");
  if (pos == absl::string_view::npos) return std::nullopt;
  uint64_t n = 0;
  size_t i = pos + 7;
  if (i >= msg.size() || msg[i] < '0' || msg[i] > '9') return std::nullopt;
  for (; i < msg.size() && msg[i] >= '0' && msg[i] <= '9'; ++i) {
    n = n * 10 + static_cast<uint64_t>(msg[i] - '0');
  }
  return n;
}

// Where in a block to flip: its first byte, its middle, its checksum.
std::vector<uint64_t> SpotsIn(const BlockHandle& h) {
  return {h.offset, h.offset + h.size / 2, h.offset + h.size + 2};
}

TEST_F(CorruptionTest, EveryRegionOfATable) {
  ASSERT_NO_FATAL_FAILURE(BuildOneTable());
  const std::string table = Files(".sst")[0];
  const uint64_t size = *env_->GetFileSize(table);
  std::vector<Table::BlockInfo> blocks = BlocksOf(table);
  ASSERT_GT(blocks.size(), 10u);
  // Every non-data block, and three data blocks: first, middle, last.
  std::vector<Table::BlockInfo> targets, data;
  for (const Table::BlockInfo& b : blocks) {
    (b.kind == "data" ? data : targets).push_back(b);
  }
  ASSERT_GT(data.size(), 3u);
  targets.push_back(data.front());
  targets.push_back(data[data.size() / 2]);
  targets.push_back(data.back());
  targets.push_back(
      {"footer", BlockHandle{size - kFooterSize, kFooterSize - 5}});
  std::map<std::string, int> tried;
  for (const Table::BlockInfo& b : targets) {
    for (uint64_t spot : SpotsIn(b.handle)) {
      SCOPED_TRACE(
          absl::StrCat(b.kind, " block at ", b.handle.offset, ", byte ", spot));
      ++tried[b.kind];
      Restore();
      Flip(table, spot);
      absl::Status s = Open(/*paranoid=*/true);
      ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
      EXPECT_NE(s.message().find(table), absl::string_view::npos) << s;
      EXPECT_TRUE(OffsetNamed(s.message()).has_value()) << s;
      s = Open();
      if (b.kind == "data" || b.kind == "filter") {
        ASSERT_TRUE(s.ok()) << s;
        const Statistics before = db_->GetStatistics();
        const int errors = CheckReads(table);
        if (b.kind == "data") {
          EXPECT_GT(errors, 0);
          EXPECT_LT(errors, kKeys / 4) << "one block's keys, not the file's";
        } else {
          EXPECT_EQ(errors, 0) << "a damaged filter must not hide keys";
          EXPECT_GT(db_->GetStatistics().Get(kBloomFilterCorrupt),
                    before.Get(kBloomFilterCorrupt));
        }
        // Again, with the good blocks now cached: the damaged block was
        // never cached, so it is still reported, never served.
        EXPECT_EQ(CheckReads(table), errors);
      } else {
        // Without its index, properties or footer the table cannot be
        // opened, so neither can the DB.
        ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
        EXPECT_NE(s.message().find(table), absl::string_view::npos) << s;
        // The offset named lies in the damaged block (or footer).
        const std::optional<uint64_t> named = OffsetNamed(s.message());
        ASSERT_TRUE(named.has_value()) << s;
        EXPECT_GE(*named, b.handle.offset) << s;
        EXPECT_LT(*named, b.handle.offset + b.handle.size + kBlockTrailerSize)
            << s;
      }
    }
  }
  for (const char* kind :
       {"data", "filter", "properties", "metaindex", "index", "footer"}) {
    EXPECT_GT(tried[kind], 0) << kind;
  }
  Restore();
  ASSERT_TRUE(Open(/*paranoid=*/true).ok());
  EXPECT_EQ(CheckReads(table), 0);
}

TEST_F(CorruptionTest, RandomFlipsNeverReturnWrongData) {
  const uint64_t seed = test::TestSeed(601);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  ASSERT_NO_FATAL_FAILURE(BuildOneTable());
  const std::string table = Files(".sst")[0];
  const uint64_t size = *env_->GetFileSize(table);
  int open_failed = 0, read_errors = 0;
  const int trials = 150;
  for (int trial = 0; trial < trials; ++trial) {
    const uint64_t spot = rnd.Uniform(static_cast<uint32_t>(size));
    SCOPED_TRACE(absl::StrCat("byte ", spot, " of ", size));
    Restore();
    Flip(table, spot, static_cast<char>(1 + rnd.Uniform(255)));
    // Every byte is under some checksum: a full verification finds it.
    absl::Status s = Open(/*paranoid=*/true);
    ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    s = Open();
    if (!s.ok()) {
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
      EXPECT_NE(s.message().find(table), absl::string_view::npos) << s;
      ++open_failed;
      continue;
    }
    read_errors += CheckReads(table);
  }
  std::printf("%d flips: %d failed Open, %d Get errors, no wrong data\n",
              trials, open_failed, read_errors);
}

TEST_F(CorruptionTest, MissingOrTruncatedTableIsDataLoss) {
  ASSERT_NO_FATAL_FAILURE(BuildOneTable());
  const std::string table = Files(".sst")[0];
  ASSERT_TRUE(env_->RemoveFile(table).ok());
  absl::Status s = Open();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find(table), absl::string_view::npos) << s;
  Restore();
  std::string data = saved_[table.substr(4)];
  data.resize(data.size() - 1);
  ASSERT_TRUE(WriteStringToFile(env_.get(), data, table, false).ok());
  s = Open();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find(table), absl::string_view::npos) << s;
}

TEST_F(CorruptionTest, CompactingADamagedTableStopsWritesNotReads) {
  ASSERT_NO_FATAL_FAILURE(BuildOneTable());
  const std::string table = Files(".sst")[0];
  const std::vector<Table::BlockInfo> blocks = BlocksOf(table);
  Flip(table, blocks[1].handle.offset + 10);  // the second data block
  ASSERT_TRUE(Open().ok());
  // A second table over the same range, so compaction must merge (read)
  // the damaged one rather than move it.
  ASSERT_TRUE(db_->Put(WriteOptions(), Key(0), Value(0)).ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), Key(kKeys - 1), Value(kKeys - 1)).ok());
  ASSERT_TRUE(db_->Flush().ok());
  absl::Status s = db_->CompactRange(std::nullopt, std::nullopt);
  ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find(table), absl::string_view::npos) << s;
  // No output built on damaged input is installed, nothing is dropped.
  EXPECT_EQ(db_->Put(WriteOptions(), "k", "v").code(),
            absl::StatusCode::kDataLoss);
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), Key(kKeys - 1), &v).ok());
  EXPECT_EQ(v, Value(kKeys - 1));
  EXPECT_GT(CheckReads(table), 0);
  Restore();
  ASSERT_TRUE(Open().ok());
  EXPECT_EQ(CheckReads(table), 0);
}

TEST_F(CorruptionTest, DamageNeverUncoversAnOlderVersion) {
  // Regression: when a newer table's block was damaged, the merging
  // iterator went on without that table, so iteration showed the older
  // table's stale values -- and keys the newer table had deleted -- before
  // status() reported the damage.
  ASSERT_TRUE(Open().ok());
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "old").ok());
  }
  ASSERT_TRUE(db_->Flush().ok());
  for (int i = 0; i < kKeys; ++i) {
    if (i % 3 == 0) {
      ASSERT_TRUE(db_->Delete(WriteOptions(), Key(i)).ok());
    } else {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
  }
  ASSERT_TRUE(db_->Flush().ok());
  db_.reset();
  const std::vector<std::string> tables = Files(".sst");
  ASSERT_EQ(tables.size(), 2u);
  const std::string newer = tables[1];  // higher file number
  const std::vector<Table::BlockInfo> blocks = BlocksOf(newer);
  Flip(newer, blocks[blocks.size() / 3].handle.offset + 3);
  ASSERT_TRUE(Open().ok());
  ReadOptions ro;
  int shown = 0;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++shown) {
    ASSERT_NE(it->value(), "old") << it->key() << " shows a stale value";
  }
  EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_GT(shown, 0);
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    ASSERT_NE(it->value(), "old") << it->key() << " shows a stale value";
  }
  EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
  for (int i = 0; i < kKeys; ++i) {
    std::string v;
    absl::Status s = db_->Get(ro, Key(i), &v);
    ASSERT_FALSE(s.ok() && v == "old") << Key(i) << " shows a stale value";
    if (i % 3 == 0) {
      EXPECT_FALSE(s.ok()) << Key(i) << " was deleted";
    }
  }
}

// ---- the WAL ----

class WalCorruptionTest : public CorruptionTest {
 protected:
  // kKeys single puts, all in the WAL (the memtable is never flushed).
  void BuildWal() {
    ASSERT_TRUE(Open().ok());
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    db_.reset();
    Save();
    ASSERT_EQ(Files(".sst").size(), 0u);
    ASSERT_EQ(Files(".log").size(), 1u);
  }
  // Record start offsets in the log.
  std::vector<uint64_t> RecordOffsets(const std::string& log) {
    std::string data;
    EXPECT_TRUE(ReadFileToString(env_.get(), log, &data).ok());
    log::Reader reader(data, log);
    std::vector<uint64_t> offsets;
    std::string scratch;
    std::string_view record;
    while (reader.ReadRecord(&record, &scratch)) {
      offsets.push_back(reader.last_record_offset());
    }
    return offsets;
  }
};

TEST_F(WalCorruptionTest, FlipInTheMiddleFailsOpenNamingFileAndOffset) {
  ASSERT_NO_FATAL_FAILURE(BuildWal());
  const std::string log = Files(".log")[0];
  const std::vector<uint64_t> records = RecordOffsets(log);
  ASSERT_EQ(records.size(), static_cast<size_t>(kKeys));
  for (int r : {0, 1, kKeys / 2, kKeys - 2}) {
    SCOPED_TRACE(absl::StrCat("record ", r));
    Restore();
    Flip(log, records[r] + 9);  // in the payload
    for (bool paranoid : {false, true}) {
      absl::Status s = Open(paranoid);
      ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
      EXPECT_NE(s.message().find(log), absl::string_view::npos) << s;
      EXPECT_TRUE(NamesOffset(s.message(), records[r])) << s;
    }
  }
}

TEST_F(WalCorruptionTest, FlipInTheLastRecordDropsOnlyIt) {
  ASSERT_NO_FATAL_FAILURE(BuildWal());
  const std::string log = Files(".log")[0];
  const uint64_t last = RecordOffsets(log).back();
  for (uint64_t delta : {uint64_t{0}, uint64_t{4}, uint64_t{6}, uint64_t{20}}) {
    Restore();
    Flip(log, last + delta);
    absl::Status s = Open();
    ASSERT_TRUE(s.ok()) << s;
    std::string v;
    for (int i = 0; i < kKeys - 1; ++i) {
      ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << i;
      ASSERT_EQ(v, Value(i));
    }
    EXPECT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(kKeys - 1), &v)));
  }
}

TEST_F(WalCorruptionTest, TruncatedAnywhereKeepsAPrefix) {
  const uint64_t seed = test::TestSeed(602);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  ASSERT_NO_FATAL_FAILURE(BuildWal());
  const std::string log = Files(".log")[0];
  const std::vector<uint64_t> records = RecordOffsets(log);
  const std::string full = saved_[log.substr(4)];
  for (int trial = 0; trial < 40; ++trial) {
    const uint64_t cut = rnd.Uniform(static_cast<uint32_t>(full.size()));
    SCOPED_TRACE(absl::StrCat("cut at ", cut));
    Restore();
    ASSERT_TRUE(
        WriteStringToFile(env_.get(), full.substr(0, cut), log, false).ok());
    ASSERT_TRUE(Open().ok());
    test::ExpectedState model;
    for (int i = 0; i < kKeys; ++i) model.Add({{Key(i), Value(i)}}, false);
    size_t found = 0;
    absl::Status v = model.Verify(db_.get(), &found);
    ASSERT_TRUE(v.ok()) << v;
    // Exactly the records that end before the cut.
    size_t complete = 0;
    while (complete + 1 < records.size() && records[complete + 1] <= cut) {
      ++complete;
    }
    EXPECT_GE(found, complete);
    EXPECT_LE(found, complete + 1);
  }
}

// ---- the MANIFEST and CURRENT ----

TEST_F(CorruptionTest, ManifestFlipIsDataLossOrHarmless) {
  // Several flushes in one session: a MANIFEST with a snapshot and edits.
  ASSERT_TRUE(Open().ok());
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
    if (i % 1000 == 999) {
      ASSERT_TRUE(db_->Flush().ok());
    }
  }
  db_.reset();
  Save();
  const std::vector<std::string> manifests = Files("MANIFEST");
  ASSERT_EQ(manifests.size(), 1u);
  const std::string manifest = manifests[0];
  std::vector<uint64_t> records;
  {
    std::string data;
    ASSERT_TRUE(ReadFileToString(env_.get(), manifest, &data).ok());
    log::Reader reader(data, manifest);
    std::string scratch;
    std::string_view record;
    while (reader.ReadRecord(&record, &scratch)) {
      records.push_back(reader.last_record_offset());
    }
  }
  ASSERT_GE(records.size(), 4u);
  for (size_t r = 0; r < records.size(); ++r) {
    SCOPED_TRACE(absl::StrCat("record ", r, " of ", records.size()));
    Restore();
    Flip(manifest, records[r] + 8);
    absl::Status s = Open();
    if (r + 1 < records.size()) {
      ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
      EXPECT_NE(s.message().find(manifest), absl::string_view::npos) << s;
      EXPECT_TRUE(NamesOffset(s.message(), records[r])) << s;
      continue;
    }
    // The last record looks like a torn write and is dropped. That may
    // be harmless, but must never silently lose data: the records it
    // names (tables, the WAL it retired) are gone, so Open must see it.
    if (!s.ok()) {
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
      continue;
    }
    EXPECT_EQ(CheckReads(""), 0) << "a dropped MANIFEST record lost data";
  }
}

TEST_F(CorruptionTest, DamagedCurrentIsDataLoss) {
  ASSERT_NO_FATAL_FAILURE(BuildOneTable());
  const std::string current = "/db/CURRENT";
  const std::string good = saved_["CURRENT"];
  for (const std::string& bad :
       {std::string(), std::string("MANIFEST-000001"), good.substr(1),
        std::string("MANIFEST-999999\n"), std::string("000005.log\n")}) {
    SCOPED_TRACE(absl::StrCat("CURRENT = '", bad, "'"));
    Restore();
    ASSERT_TRUE(WriteStringToFile(env_.get(), bad, current, false).ok());
    absl::Status s = Open();
    ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_NE(s.message().find("CURRENT"), absl::string_view::npos) << s;
  }
  Restore();
  ASSERT_TRUE(Open().ok());
}

}  // namespace
}  // namespace sift
