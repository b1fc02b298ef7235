// The two-level iterator (table/two_level_iterator.h) over fake levels, and
// its two users: a table (index -> data blocks, with its block reads counted)
// and the merging iterator above them, which must keep a child's error.

#include "table/two_level_iterator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/iterator/merging_iterator.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "table/internal_key.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "tests/testutil/testutil.h"
#include "util/coding.h"
#include "util/random.h"

namespace sift {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

// Sorted entries; an entry whose key is in `poison` cannot be reached: the
// step that would land on it fails with DataLoss instead, as a damaged
// block would. fail_seeks makes every Seek fail the same way.
class FakeIterator final : public Iterator {
 public:
  FakeIterator(Entries entries, std::set<std::string> poison = {},
               KeyComparator cmp = KeyComparator::Bytes())
      : entries_(std::move(entries)), poison_(std::move(poison)), cmp_(cmp) {}

  bool fail_seeks = false;

  bool Valid() const override { return i_ >= 0 && i_ < Size(); }
  std::string_view key() const override { return entries_[i_].first; }
  std::string_view value() const override { return entries_[i_].second; }
  absl::Status status() const override { return status_; }

  void SeekToFirst() override { Land(0, true); }
  void SeekToLast() override { Land(Size() - 1, true); }
  void Seek(std::string_view target) override {
    if (fail_seeks) {
      Land(-1, true);
      status_ = absl::DataLossError("seek failed");
      return;
    }
    int i = 0;
    while (i < Size() && cmp_(entries_[i].first, target) < 0) ++i;
    Land(i, true);
  }
  void Next() override { Land(i_ + 1, false); }
  void Prev() override { Land(i_ - 1, false); }

 private:
  int Size() const { return static_cast<int>(entries_.size()); }
  void Land(int i, bool seek) {
    if (seek) status_ = absl::OkStatus();
    i_ = i;
    if (Valid() && poison_.count(entries_[i_].first)) {
      i_ = -1;
      status_ = absl::DataLossError("damaged entry");
    }
  }

  const Entries entries_;
  const std::set<std::string> poison_;
  const KeyComparator cmp_;
  int i_ = -1;
  absl::Status status_;
};

// Second levels "a".."e" with keys a1 a2, b1 (empty c), d1 d2, e1; the index
// is keyed by each level's last key (c by "c"), valued by the level's name.
class TwoLevelTest : public ::testing::Test {
 protected:
  TwoLevelTest() {
    levels_ = {{"a", {{"a1", "va1"}, {"a2", "va2"}}},
               {"b", {{"b1", "vb1"}}},
               {"c", {}},
               {"d", {{"d1", "vd1"}, {"d2", "vd2"}}},
               {"e", {{"e1", "ve1"}}}};
  }

  std::unique_ptr<Iterator> Make() {
    Entries index = {
        {"a2", "a"}, {"b1", "b"}, {"c", "c"}, {"d2", "d"}, {"e1", "e"}};
    auto open = [this](std::string_view name)
        -> absl::StatusOr<std::unique_ptr<Iterator>> {
      ++opens_;
      const std::string n(name);
      if (unopenable_.count(n)) {
        return absl::DataLossError(absl::StrCat("cannot open ", n));
      }
      return std::make_unique<FakeIterator>(levels_[n], poison_);
    };
    return NewTwoLevelIterator(std::make_unique<FakeIterator>(index), open);
  }

  static std::string Scan(Iterator* it, bool forward) {
    std::string s;
    if (forward) {
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        s.append(it->key()).append(" ");
      }
    } else {
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        s.append(it->key()).append(" ");
      }
    }
    return s;
  }

  std::map<std::string, Entries> levels_;
  std::set<std::string> unopenable_;
  std::set<std::string> poison_;
  int opens_ = 0;
};

TEST_F(TwoLevelTest, WalksEveryLevelBothWaysSkippingEmptyOnes) {
  std::unique_ptr<Iterator> it = Make();
  EXPECT_EQ(Scan(it.get(), true), "a1 a2 b1 d1 d2 e1 ");
  EXPECT_EQ(Scan(it.get(), false), "e1 d2 d1 b1 a2 a1 ");
  EXPECT_TRUE(it->status().ok());
  it->Seek("b2");  // past b's last key: the next non-empty level
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d1");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b1");
  it->Seek("f");
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());
}

TEST_F(TwoLevelTest, SeeksWithinTheOpenLevelDoNotReopenIt) {
  std::unique_ptr<Iterator> it = Make();
  it->Seek("d1");
  const int opens = opens_;
  it->Seek("d2");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d2");
  it->Seek("d0");
  EXPECT_EQ(it->key(), "d1");
  EXPECT_EQ(opens_, opens);
}

// An error stops the iterator and stays until the next seek, in whichever
// direction it was met, whether opening a level or inside one.
TEST_F(TwoLevelTest, AnErrorStopsAndSticksUntilTheNextSeek) {
  for (bool in_level : {false, true}) {
    SCOPED_TRACE(in_level ? "damaged entry" : "level cannot be opened");
    unopenable_.clear();
    poison_.clear();
    if (in_level) {
      poison_.insert("b1");
    } else {
      unopenable_.insert("b");
    }
    std::unique_ptr<Iterator> it = Make();
    EXPECT_EQ(Scan(it.get(), true), "a1 a2 ");
    EXPECT_FALSE(it->Valid());
    EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
    EXPECT_EQ(Scan(it.get(), false), "e1 d2 d1 ");
    EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
    EXPECT_FALSE(it->Valid());

    it->Seek("d1");  // a new seek forgets the error
    ASSERT_TRUE(it->Valid());
    EXPECT_TRUE(it->status().ok());
    EXPECT_EQ(it->key(), "d1");
    it->Prev();  // into the damage
    EXPECT_FALSE(it->Valid());
    EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
    it->Seek("b1");  // straight onto it
    EXPECT_FALSE(it->Valid());
    EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
    it->Seek("a2");
    ASSERT_TRUE(it->Valid());
    EXPECT_TRUE(it->status().ok());
  }
}

// A merge stopped by a child's error keeps that error, even after moving
// the other children re-seeks the failed one (which clears its own).
TEST(MergingIteratorTest, KeepsAChildsErrorThroughADirectionChange) {
  auto ikey = [](std::string_view user, SequenceNumber seq) {
    std::string k;
    AppendInternalKey(&k, user, seq, kTypeValue);
    return k;
  };
  std::vector<std::unique_ptr<Iterator>> children;
  children.push_back(std::make_unique<FakeIterator>(
      Entries{{ikey("a", 1), "a"}, {ikey("c", 1), "c"}},
      std::set<std::string>{}, KeyComparator::Internal(BytewiseComparator())));
  auto failing = std::make_unique<FakeIterator>(
      Entries{{ikey("b", 1), "b"}, {ikey("d", 1), "d"}},
      std::set<std::string>{}, KeyComparator::Internal(BytewiseComparator()));
  FakeIterator* b = failing.get();
  children.push_back(std::move(failing));
  std::unique_ptr<Iterator> merged = NewMergingIterator(
      KeyComparator::Internal(BytewiseComparator()), std::move(children));
  merged->SeekToFirst();
  merged->Next();
  merged->Next();
  ASSERT_TRUE(merged->Valid());
  ASSERT_EQ(merged->value(), "c");
  b->fail_seeks = true;  // the next seek of the second child fails
  merged->Prev();
  EXPECT_FALSE(merged->Valid()) << "went on without a failed child";
  EXPECT_EQ(merged->status().code(), absl::StatusCode::kDataLoss);
  b->fail_seeks = false;
  merged->SeekToFirst();
  ASSERT_TRUE(merged->Valid());
  EXPECT_TRUE(merged->status().ok());
  EXPECT_EQ(merged->value(), "a");
}

// Many children (as a compaction of twenty-odd overlapping level-0 files
// has) merged against one sorted list, under a random walk of seeks and
// steps in both directions. Versions of one user key are spread over
// different children, so the merge must interleave them by sequence.
TEST(MergingIteratorTest, ManyChildrenWalkAsOneSortedList) {
  const uint64_t seed = test::TestSeed(20261201);
  SCOPED_TRACE(absl::StrCat("seed ", seed));
  Random rnd(seed);
  const KeyComparator icmp = KeyComparator::Internal(BytewiseComparator());
  constexpr int kChildren = 25;
  std::vector<Entries> parts(kChildren);
  std::vector<std::string> all;
  for (int k = 0; k < 400; ++k) {
    const std::string user = absl::StrFormat("k%04d", k);
    const int versions = 1 + static_cast<int>(rnd.Uniform(3));
    for (int v = 0; v < versions; ++v) {
      std::string ikey;
      AppendInternalKey(&ikey, user, 10 + v, kTypeValue);
      parts[rnd.Uniform(kChildren)].push_back({ikey, ikey});
      all.push_back(ikey);
    }
  }
  std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
    return icmp.Compare(a, b) < 0;
  });
  std::vector<std::unique_ptr<Iterator>> children;
  for (auto& part : parts) {
    std::sort(part.begin(), part.end(), [&](const auto& a, const auto& b) {
      return icmp.Compare(a.first, b.first) < 0;
    });
    children.push_back(
        std::make_unique<FakeIterator>(part, std::set<std::string>{}, icmp));
  }
  std::unique_ptr<Iterator> merged =
      NewMergingIterator(icmp, std::move(children));
  const int n = static_cast<int>(all.size());
  int pos = -1;  // the expected position; -1 or n: not valid
  for (int step = 0; step < 5000; ++step) {
    const uint32_t op = rnd.Uniform(10);
    if (op == 0) {
      merged->SeekToFirst();
      pos = 0;
    } else if (op == 1) {
      merged->SeekToLast();
      pos = n - 1;
    } else if (op == 2) {
      // A user key between or on the stored ones, newest version first.
      std::string target;
      AppendInternalKey(&target, absl::StrFormat("k%04d", rnd.Uniform(401)),
                        kMaxSequenceNumber, kTypeValue);
      merged->Seek(target);
      pos = static_cast<int>(
          std::lower_bound(all.begin(), all.end(), target,
                           [&](const std::string& a, const std::string& b) {
                             return icmp.Compare(a, b) < 0;
                           }) -
          all.begin());
    } else if (pos >= 0 && pos < n) {
      if (op < 6) {
        merged->Next();
        ++pos;
      } else {
        merged->Prev();
        --pos;
      }
    } else {
      continue;
    }
    ASSERT_TRUE(merged->status().ok());
    ASSERT_EQ(merged->Valid(), pos >= 0 && pos < n) << "step " << step;
    if (merged->Valid()) {
      ASSERT_EQ(merged->key(), all[pos]) << "step " << step;
    }
  }
}

class CountingSink final : public ReadCounterSink {
 public:
  void Add(const TableReadCounters& c) override {
    total.block_cache_hits += c.block_cache_hits;
    total.block_cache_misses += c.block_cache_misses;
    total.blocks_read += c.blocks_read;
    total.bytes_read += c.bytes_read;
  }
  TableReadCounters total;
};

// A table iterator reports each data block it reads, or finds in the
// cache, as a Get would.
TEST(TableIteratorTest, CountsItsBlockReads) {
  std::unique_ptr<Env> env = NewMemEnv();
  Options options;
  options.block_size = 256;
  auto file = env->NewWritableFile("/t.sst");
  ASSERT_TRUE(file.ok());
  TableBuilder builder(options, file->get());
  for (int i = 0; i < 500; ++i) {
    std::string k;
    AppendInternalKey(&k, absl::StrFormat("key%05d", i), 1, kTypeValue);
    ASSERT_TRUE(builder.Add(k, std::string(40, 'v')).ok());
  }
  ASSERT_TRUE(builder.Finish().ok());
  ASSERT_TRUE((*file)->Close().ok());
  BlockCache cache(1 << 20);
  const uint64_t size = *env->GetFileSize("/t.sst");
  auto raf = env->NewRandomAccessFile("/t.sst");
  ASSERT_TRUE(raf.ok());
  auto table = Table::Open("/t.sst", *std::move(raf), size, &cache,
                           BytewiseComparator());
  ASSERT_TRUE(table.ok()) << table.status();
  uint64_t data_blocks = 0, data_bytes = 0;
  for (const Table::BlockInfo& b : (*table)->Blocks()) {
    if (b.kind != "data") continue;
    ++data_blocks;
    data_bytes += b.handle.size + kBlockTrailerSize;
  }
  ASSERT_GT(data_blocks, 10u);

  CountingSink sink;
  std::unique_ptr<Iterator> it = (*table)->NewIterator(ReadOptions(), &sink);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  ASSERT_TRUE(it->status().ok());
  EXPECT_EQ(n, 500);
  EXPECT_EQ(sink.total.blocks_read, data_blocks);
  EXPECT_EQ(sink.total.bytes_read, data_bytes);
  EXPECT_EQ(sink.total.block_cache_misses, data_blocks);
  EXPECT_EQ(sink.total.block_cache_hits, 0u);
  for (it->SeekToLast(); it->Valid(); it->Prev()) --n;
  EXPECT_EQ(n, 0);
  EXPECT_EQ(sink.total.blocks_read, data_blocks) << "all cached by now";
  EXPECT_EQ(sink.total.block_cache_hits, data_blocks);
}

}  // namespace
}  // namespace sift
