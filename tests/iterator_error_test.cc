// DB iterators over damaged tables: one flipped byte in a data block on disk
// (no injection). The contract of include/sift/iterator.h: an iterator that
// met an error is not Valid(), and status() reports the error until the next
// Seek, SeekToFirst or SeekToLast. Before that was kept, a backward step that
// stopped at an error left the entry it had half-assembled marked valid,
// showing an older version of a key (or a key deleted since), and a forward
// scan after it ended with an OK status.

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "table/table.h"

namespace sift {
namespace {

constexpr int kKeys = 2000;

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string NewValue(int i) { return absl::StrFormat("new-%d", i); }
bool Deleted(int i) { return i % 3 == 0; }

// An older table holds "old" for every key; a newer one deletes every third
// key and overwrites the rest. One data block of the older table is damaged.
class IteratorErrorTest : public ::testing::TestWithParam<bool> {
 protected:
  IteratorErrorTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.block_size = 512;
    options_.level0_compaction_trigger = 10;  // keep the tables we make
  }

  // With older_deeper, the older table is compacted below level 0 first,
  // so it is read through a level's file list rather than on its own.
  void Build(bool older_deeper) {
    ASSERT_TRUE(Reopen().ok());
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "old").ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
    if (older_deeper) {
      ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
      ASSERT_EQ(db_->GetProperty("sift.num-files-at-level0"), "0");
    }
    older_ = Tables().back();
    for (int i = 0; i < kKeys; ++i) {
      if (Deleted(i)) {
        ASSERT_TRUE(db_->Delete(WriteOptions(), Key(i)).ok());
      } else {
        ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), NewValue(i)).ok());
      }
    }
    ASSERT_TRUE(db_->Flush().ok());
    db_.reset();
    ASSERT_EQ(Tables().size(), 2u);
    ASSERT_TRUE(ReadFileToString(env_.get(), older_, &older_bytes_).ok());
    auto file = env_->NewRandomAccessFile(older_);
    ASSERT_TRUE(file.ok());
    auto table = Table::Open(older_, *std::move(file), older_bytes_.size(),
                             nullptr, BytewiseComparator());
    ASSERT_TRUE(table.ok()) << table.status();
    for (const Table::BlockInfo& b : (*table)->Blocks()) {
      if (b.kind == "data") data_blocks_.push_back(b.handle);
    }
    ASSERT_GT(data_blocks_.size(), 4u);
  }

  absl::Status Reopen() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    return absl::OkStatus();
  }

  std::vector<std::string> Tables() {
    std::vector<std::string> out;
    const absl::StatusOr<std::vector<std::string>> children =
        env_->GetChildren("/db");
    EXPECT_TRUE(children.ok()) << children.status();
    if (!children.ok()) return out;
    for (const std::string& name : *children) {
      if (name.ends_with(".sst")) out.push_back("/db/" + name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Restores the older table, then flips one byte inside data block b.
  void Damage(size_t b) {
    std::string data = older_bytes_;
    data[data_blocks_[b].offset + data_blocks_[b].size / 2] ^= 0x21;
    ASSERT_TRUE(WriteStringToFile(env_.get(), data, older_, false).ok());
    ASSERT_TRUE(Reopen().ok());
  }

  // What every position of the iterator must satisfy: an error means not
  // Valid(), and a valid entry shows the newest version of a live key.
  void CheckPosition(const Iterator& it) {
    if (!it.status().ok()) {
      ASSERT_FALSE(it.Valid()) << "valid with " << it.status();
      ASSERT_EQ(it.status().code(), absl::StatusCode::kDataLoss) << it.status();
      return;
    }
    if (!it.Valid()) return;
    const std::string key(it.key());
    int i = -1;
    ASSERT_EQ(std::sscanf(key.c_str(), "key%d", &i), 1) << key;
    ASSERT_FALSE(Deleted(i)) << key << " was deleted, shown as " << it.value();
    ASSERT_EQ(it.value(), NewValue(i)) << key << " shows a stale value";
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::string older_;
  std::string older_bytes_;
  std::vector<BlockHandle> data_blocks_;
};

TEST_P(IteratorErrorTest, BackwardScanStopsAtTheDamage) {
  ASSERT_NO_FATAL_FAILURE(Build(GetParam()));
  for (size_t b :
       {size_t{0}, data_blocks_.size() / 2, data_blocks_.size() - 2}) {
    SCOPED_TRACE(absl::StrCat("damaged data block ", b));
    ASSERT_NO_FATAL_FAILURE(Damage(b));
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    int shown = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++shown) {
      ASSERT_NO_FATAL_FAILURE(CheckPosition(*it));
    }
    ASSERT_NO_FATAL_FAILURE(CheckPosition(*it));
    EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
    EXPECT_GT(shown, 0);
    EXPECT_LT(shown, kKeys * 2 / 3);
  }
}

// Seek to each key near the damaged block, step back (a floor lookup), then
// scan forward: every position is checked, and a scan that met the damage
// must end reporting it.
TEST_P(IteratorErrorTest, SeekPrevThenScanForward) {
  ASSERT_NO_FATAL_FAILURE(Build(GetParam()));
  const size_t b = data_blocks_.size() / 2;
  ASSERT_NO_FATAL_FAILURE(Damage(b));
  int errors = 0;
  for (int i = 0; i < kKeys; ++i) {
    SCOPED_TRACE(absl::StrCat("Seek(", Key(i), ")"));
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    it->Seek(Key(i));
    ASSERT_NO_FATAL_FAILURE(CheckPosition(*it));
    if (!it->Valid()) continue;
    it->Prev();
    ASSERT_NO_FATAL_FAILURE(CheckPosition(*it));
    bool met_error = !it->status().ok();
    while (it->Valid()) {
      it->Next();
      ASSERT_NO_FATAL_FAILURE(CheckPosition(*it));
    }
    if (met_error) {
      ++errors;
      EXPECT_FALSE(it->status().ok()) << "the error was forgotten";
    }
    // A new seek starts afresh.
    it->Seek(Key(kKeys - 1));
    ASSERT_NO_FATAL_FAILURE(CheckPosition(*it));
    EXPECT_TRUE(it->status().ok()) << it->status();
  }
  EXPECT_GT(errors, 0) << "no floor lookup reached the damaged block";
}

// Once an error is met, status() keeps it: neither a failed step nor the
// passing of time makes the iterator look healthy again.
TEST_P(IteratorErrorTest, ErrorSticksUntilTheNextSeek) {
  ASSERT_NO_FATAL_FAILURE(Build(GetParam()));
  ASSERT_NO_FATAL_FAILURE(Damage(1));
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekToFirst();
  while (it->Valid()) it->Next();
  ASSERT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
  it->Seek(Key(kKeys - 1));
  ASSERT_TRUE(it->Valid());
  EXPECT_TRUE(it->status().ok()) << it->status();
  EXPECT_EQ(it->value(), NewValue(kKeys - 1));
}

INSTANTIATE_TEST_SUITE_P(OlderAtLevel0OrDeeper, IteratorErrorTest,
                         ::testing::Bool());

}  // namespace
}  // namespace sift
