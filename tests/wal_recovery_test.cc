// Options::wal_recovery_mode: each of the four modes against each kind of
// damage a WAL can show -- a zeroed header and a flipped byte in the
// middle, a flipped byte in the last record, a truncated last record, and a
// torn last record whose value is itself log-like -- checking whether Open
// fails, which keys come back, and what sift.wal-recovery reports.

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/write_batch_internal.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/mem_db_test.h"

namespace sift {
namespace {

constexpr int kKeys = 100;
constexpr int kDamaged = 40;  // the record damaged in the middle

std::string Key(int i) { return absl::StrFormat("key%04d", i); }
std::string Value(int i) {
  return std::string(700 + i % 50, static_cast<char>('a' + i % 26));
}

enum class Damage {
  kZeroedHeaderMid,
  kFlippedByteMid,
  kFlippedByteTail,
  kTruncatedTail,
  kTornTailLogLike,
};

const char* DamageName(Damage d) {
  switch (d) {
    case Damage::kZeroedHeaderMid:
      return "zeroed header mid-log";
    case Damage::kFlippedByteMid:
      return "flipped byte mid-log";
    case Damage::kFlippedByteTail:
      return "flipped byte in the last record";
    case Damage::kTruncatedTail:
      return "truncated last record";
    case Damage::kTornTailLogLike:
      return "torn last record with a log-like value";
  }
  return "?";
}

bool InMiddle(Damage d) {
  return d == Damage::kZeroedHeaderMid || d == Damage::kFlippedByteMid;
}

// What Open should do.
enum class Outcome {
  kDataLoss,
  kPrefix,         // keys before the damaged record, none after
  kAllButDamaged,  // every key but the damaged record's
};

Outcome Expected(WALRecoveryMode mode, Damage d) {
  switch (mode) {
    case WALRecoveryMode::kAbsoluteConsistency:
      return Outcome::kDataLoss;
    case WALRecoveryMode::kTolerateCorruptedTailRecords:
      return InMiddle(d) ? Outcome::kDataLoss : Outcome::kPrefix;
    case WALRecoveryMode::kPointInTimeRecovery:
      return Outcome::kPrefix;
    case WALRecoveryMode::kSkipAnyCorruptedRecords:
      return Outcome::kAllButDamaged;
  }
  return Outcome::kDataLoss;
}

class WalRecoveryTest : public test::MemDBTest {
 protected:
  // kKeys puts, one WAL record each, never flushed; the last value is a
  // copy of the log so far when log_like_tail (so it holds well-formed
  // records of its own).
  void Build(bool log_like_tail) {
    Open();
    for (int i = 0; i + 1 < kKeys; ++i) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    log_ = Logs().back();
    std::string last = Value(kKeys - 1);
    if (log_like_tail) {
      ASSERT_TRUE(ReadFileToString(env_.get(), log_, &last).ok());
    }
    values_.clear();
    for (int i = 0; i + 1 < kKeys; ++i) values_.push_back(Value(i));
    values_.push_back(last);
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(kKeys - 1), last).ok());
    db_.reset();
    ASSERT_EQ(Logs().size(), 1u);
    ASSERT_TRUE(ReadFileToString(env_.get(), log_, &contents_).ok());
    log::Reader reader(contents_, log_);
    std::string scratch;
    std::string_view record;
    offsets_.clear();
    while (reader.ReadRecord(&record, &scratch)) {
      offsets_.push_back(reader.last_record_offset());
    }
    ASSERT_EQ(offsets_.size(), static_cast<size_t>(kKeys));
  }

  std::vector<std::string> Logs() {
    std::vector<std::string> logs;
    auto children = env_->GetChildren(path_);
    EXPECT_TRUE(children.ok()) << children.status();
    for (const std::string& name : *children) {
      if (name.ends_with(".log")) logs.push_back(path_ + "/" + name);
    }
    std::sort(logs.begin(), logs.end());
    return logs;
  }

  // The log with the damage applied; *record is the damaged record.
  std::string Damaged(Damage d, int* record) {
    std::string log = contents_;
    const uint64_t mid = offsets_[kDamaged];
    const uint64_t last = offsets_[kKeys - 1];
    switch (d) {
      case Damage::kZeroedHeaderMid:
        *record = kDamaged;
        log.replace(mid, log::kHeaderSize, log::kHeaderSize, '\0');
        break;
      case Damage::kFlippedByteMid:
        *record = kDamaged;
        log[mid + 30] ^= 0x10;
        break;
      case Damage::kFlippedByteTail:
        *record = kKeys - 1;
        log[last + 30] ^= 0x10;
        break;
      case Damage::kTruncatedTail:
      case Damage::kTornTailLogLike:
        *record = kKeys - 1;
        log.resize(last + (log.size() - last) * 2 / 3);
        break;
    }
    return log;
  }

  std::string log_;
  std::string contents_;
  std::vector<uint64_t> offsets_;
  std::vector<std::string> values_;
};

TEST_F(WalRecoveryTest, EachModeOnEachKindOfDamage) {
  for (const Damage d : {Damage::kZeroedHeaderMid, Damage::kFlippedByteMid,
                         Damage::kFlippedByteTail, Damage::kTruncatedTail,
                         Damage::kTornTailLogLike}) {
    for (const WALRecoveryMode mode :
         {WALRecoveryMode::kTolerateCorruptedTailRecords,
          WALRecoveryMode::kAbsoluteConsistency,
          WALRecoveryMode::kPointInTimeRecovery,
          WALRecoveryMode::kSkipAnyCorruptedRecords}) {
      SCOPED_TRACE(
          absl::StrCat(DamageName(d), ", mode ", static_cast<int>(mode)));
      ASSERT_TRUE(DestroyDB(path_, options_).ok());
      options_.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
      ASSERT_NO_FATAL_FAILURE(Build(d == Damage::kTornTailLogLike));
      int record = 0;
      const std::string damaged = Damaged(d, &record);
      ASSERT_TRUE(WriteStringToFile(env_.get(), damaged, log_, false).ok());
      options_.wal_recovery_mode = mode;
      auto db = DB::Open(options_, path_);
      const Outcome want = Expected(mode, d);
      if (want == Outcome::kDataLoss) {
        ASSERT_EQ(db.status().code(), absl::StatusCode::kDataLoss)
            << db.status();
        EXPECT_NE(db.status().message().find(log_), std::string::npos);
        EXPECT_NE(db.status().message().find(
                      absl::StrCat("at offset ", offsets_[record], ",")),
                  std::string::npos)
            << db.status();
        continue;
      }
      ASSERT_TRUE(db.ok()) << db.status();
      db_ = *std::move(db);
      auto present = [&](int i) {
        return want == Outcome::kPrefix ? i < record : i != record;
      };
      for (int i = 0; i < kKeys; ++i) {
        ASSERT_EQ(Get(Key(i)), present(i) ? values_[i] : "NOT_FOUND") << i;
      }
      const std::string report = *db_->GetProperty("sift.wal-recovery");
      EXPECT_NE(report.find(absl::StrCat("at offset ", offsets_[record])),
                std::string::npos)
          << report;
      const uint64_t end = want == Outcome::kAllButDamaged && record + 1 < kKeys
                               ? offsets_[record + 1]
                               : damaged.size();
      EXPECT_NE(report.find(absl::StrCat(
                    "bytes dropped: ", end - offsets_[record], "\n")),
                std::string::npos)
          << report;
      // What Open recovered is in a table now: the damage is gone for good.
      options_.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
      Open();
      for (int i = 0; i < kKeys; ++i) {
        ASSERT_EQ(Get(Key(i)), present(i) ? values_[i] : "NOT_FOUND") << i;
      }
      db_.reset();
    }
  }
}

TEST_F(WalRecoveryTest, CleanLogsOpenInEveryMode) {
  ASSERT_NO_FATAL_FAILURE(Build(true));
  for (const WALRecoveryMode mode :
       {WALRecoveryMode::kTolerateCorruptedTailRecords,
        WALRecoveryMode::kAbsoluteConsistency,
        WALRecoveryMode::kPointInTimeRecovery,
        WALRecoveryMode::kSkipAnyCorruptedRecords}) {
    options_.wal_recovery_mode = mode;
    Open();
    for (int i = 0; i < kKeys; ++i) ASSERT_EQ(Get(Key(i)), values_[i]) << i;
    EXPECT_NE(db_->GetProperty("sift.wal-recovery")->find("bytes dropped: 0"),
              std::string::npos);
  }
}

TEST_F(WalRecoveryTest, PointInTimeDropsLaterLogs) {
  // Damage in an older log: replaying the newer one would leave a hole.
  ASSERT_NO_FATAL_FAILURE(Build(false));
  // A second, newer log with one more batch (what a crash between a
  // memtable switch and its flush leaves).
  const std::string newer = absl::StrFormat("%s/%06d.log", path_, 900);
  {
    WriteBatch batch;
    batch.Put("later", "v");
    WriteBatchInternal::SetSequence(&batch, 1000);
    auto file = env_->NewWritableFile(newer);
    ASSERT_TRUE(file.ok());
    log::Writer writer(file->get());
    ASSERT_TRUE(writer.AddRecord(WriteBatchInternal::Contents(&batch)).ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  int record = 0;
  const std::string damaged = Damaged(Damage::kFlippedByteMid, &record);
  ASSERT_TRUE(WriteStringToFile(env_.get(), damaged, log_, false).ok());

  options_.wal_recovery_mode = WALRecoveryMode::kTolerateCorruptedTailRecords;
  EXPECT_EQ(DB::Open(options_, path_).status().code(),
            absl::StatusCode::kDataLoss);

  options_.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
  Open();
  EXPECT_EQ(Get(Key(record - 1)), values_[record - 1]);
  EXPECT_EQ(Get(Key(record + 1)), "NOT_FOUND");
  EXPECT_EQ(Get("later"), "NOT_FOUND");
  const std::string report = *db_->GetProperty("sift.wal-recovery");
  EXPECT_NE(report.find("logs dropped: 1"), std::string::npos) << report;
  // The sequence goes on from the prefix: new writes are readable.
  ASSERT_TRUE(db_->Put(WriteOptions(), "after", "x").ok());
  EXPECT_EQ(Get("after"), "x");
}

TEST_F(WalRecoveryTest, SkipKeepsLaterLogs) {
  ASSERT_NO_FATAL_FAILURE(Build(false));
  const std::string newer = absl::StrFormat("%s/%06d.log", path_, 900);
  {
    WriteBatch batch;
    batch.Put("later", "v");
    WriteBatchInternal::SetSequence(&batch, 1000);
    auto file = env_->NewWritableFile(newer);
    ASSERT_TRUE(file.ok());
    log::Writer writer(file->get());
    ASSERT_TRUE(writer.AddRecord(WriteBatchInternal::Contents(&batch)).ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  int record = 0;
  const std::string damaged = Damaged(Damage::kZeroedHeaderMid, &record);
  ASSERT_TRUE(WriteStringToFile(env_.get(), damaged, log_, false).ok());
  options_.wal_recovery_mode = WALRecoveryMode::kSkipAnyCorruptedRecords;
  Open();
  EXPECT_EQ(Get(Key(record)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(record + 1)), values_[record + 1]);
  EXPECT_EQ(Get("later"), "v");
  const std::string report = *db_->GetProperty("sift.wal-recovery");
  EXPECT_NE(report.find("damaged records dropped or skipped: 1"),
            std::string::npos)
      << report;
}

TEST_F(WalRecoveryTest, ZeroedHeaderBeforeABlockBoundaryFailsOpen) {
  // A log whose first block ends at a record boundary, so the next block
  // starts with a whole record: skipping the rest of the block at a zeroed
  // header would replay the later records with a hole before them.
  ASSERT_NO_FATAL_FAILURE(Build(false));
  SequenceNumber seq = 1;
  std::string log;
  std::vector<uint64_t> starts;
  class Sink final : public WritableFile {
   public:
    explicit Sink(std::string* out) : out_(out) {}
    absl::Status Append(std::string_view d) override {
      out_->append(d);
      return absl::OkStatus();
    }
    absl::Status Flush() override { return absl::OkStatus(); }
    absl::Status Sync() override { return absl::OkStatus(); }
    absl::Status Close() override { return absl::OkStatus(); }
    std::string* out_;
  } sink(&log);
  log::Writer writer(&sink);
  auto add = [&](int i, size_t value_size) {
    WriteBatch batch;
    batch.Put(Key(i), std::string(value_size, 'v'));
    WriteBatchInternal::SetSequence(&batch, seq++);
    starts.push_back(log.size());
    ASSERT_TRUE(writer.AddRecord(WriteBatchInternal::Contents(&batch)).ok());
  };
  for (int i = 0; i < 20; ++i) ASSERT_NO_FATAL_FAILURE(add(i, 900));
  // The filler leaves 3 bytes of block padding.
  const size_t overhead = (log.size() / 20) - 900;
  ASSERT_NO_FATAL_FAILURE(add(20, log::kBlockSize - log.size() - overhead - 3));
  ASSERT_EQ(log.size(), log::kBlockSize - 3);
  for (int i = 21; i < 40; ++i) ASSERT_NO_FATAL_FAILURE(add(i, 900));
  log.replace(starts[5], log::kHeaderSize, log::kHeaderSize, '\0');
  ASSERT_TRUE(WriteStringToFile(env_.get(), log, log_, false).ok());
  auto db = DB::Open(options_, path_);
  ASSERT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
  EXPECT_NE(db.status().message().find(absl::StrCat("at offset ", starts[5])),
            std::string::npos)
      << db.status();
}

TEST_F(WalRecoveryTest, BadModeIsInvalidArgument) {
  options_.wal_recovery_mode = static_cast<WALRecoveryMode>(7);
  auto db = DB::Open(options_, path_);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(db.status().message().find("wal_recovery_mode"), std::string::npos);
}

}  // namespace
}  // namespace sift
