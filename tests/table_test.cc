// Table harness in the spirit of LevelDB's table_test: tables built with
// many option combinations must read back exactly like a std::map.

#include "table/table.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "sift/env.h"
#include "table/internal_key.h"
#include "table/table_builder.h"
#include "tests/testutil/testutil.h"
#include "util/hash.h"
#include "util/random.h"

namespace sift {
namespace {

std::string IKey(std::string_view user, SequenceNumber seq, ValueType t) {
  std::string k;
  AppendInternalKey(&k, user, seq, t);
  return k;
}

struct InternalLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return KeyComparator::Internal(BytewiseComparator()).Compare(a, b) < 0;
  }
};
using Model = std::map<std::string, std::string, InternalLess>;

// Table::Get of user at seq, with the filter; counts into *c if given.
Table::Lookup Get(const Table& t, std::string_view user, SequenceNumber seq,
                  std::string* value, TableReadCounters* c) {
  const std::string ikey = IKey(user, seq, kValueTypeForSeek);
  Table::Lookup l;
  l.key = ikey;
  l.hash = KeyHash(user);
  l.value = value;
  TableReadCounters ignored;
  t.Get(ReadOptions(), &l, c != nullptr ? c : &ignored);
  l.key = {};  // ikey dies here
  return l;
}

// block size, restart interval, compression, fp chance
using Param = std::tuple<size_t, int, Compression, double>;

class TableHarness : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    env_ = NewMemEnv();
    auto [block_size, restart, compression, fp] = GetParam();
    options_.block_size = block_size;
    options_.block_restart_interval = restart;
    options_.compression = compression;
    options_.bloom_filter_fp_chance = fp;
    cache_ = std::make_unique<BlockCache>(1 << 20);
  }

  // Several versions of some keys, and tombstones, like a compaction output.
  Model RandomModel(Random* rnd, int n) {
    Model m;
    for (int i = 0; i < n; ++i) {
      std::string user = "k" + std::to_string(rnd->Uniform(n * 2));
      if (rnd->OneIn(4)) user += std::string(rnd->Uniform(30), 'p');
      const SequenceNumber seq = rnd->Uniform(1000);
      const ValueType t = rnd->OneIn(5) ? kTypeDeletion : kTypeValue;
      std::string value;
      if (t == kTypeValue) rnd->RandomString(rnd->Uniform(300), &value);
      m[IKey(user, seq, t)] = value;
    }
    return m;
  }

  std::unique_ptr<Table> Build(const Model& m) {
    auto file = env_->NewWritableFile("/t.sst");
    EXPECT_TRUE(file.ok());
    TableBuilder b(options_, file->get());
    for (const auto& [k, v] : m) EXPECT_TRUE(b.Add(k, v).ok());
    EXPECT_TRUE(b.Finish().ok());
    EXPECT_TRUE((*file)->Close().ok());
    EXPECT_EQ(b.properties().num_entries, m.size());
    auto size = env_->GetFileSize("/t.sst");
    EXPECT_EQ(*size, b.FileSize());
    auto raf = env_->NewRandomAccessFile("/t.sst");
    auto table = Table::Open("/t.sst", std::move(*raf), *size, cache_.get(),
                             BytewiseComparator());
    EXPECT_TRUE(table.ok()) << table.status();
    return table.ok() ? std::move(*table) : nullptr;
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<BlockCache> cache_;
};

TEST_P(TableHarness, IteratesSeeksAndGetsLikeAMap) {
  const uint64_t seed = test::TestSeed(42);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  for (int n : {0, 1, 2, 300, 3000}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    const Model model = RandomModel(&rnd, n);
    std::unique_ptr<Table> table = Build(model);
    ASSERT_NE(table, nullptr);
    EXPECT_TRUE(table->VerifyChecksum().ok()) << table->VerifyChecksum();
    EXPECT_EQ(table->has_filter(), std::get<3>(GetParam()) < 1.0);

    std::unique_ptr<Iterator> it = table->NewIterator(ReadOptions());
    test::ExpectIteratesAs(it.get(), model);

    for (int i = 0; i < 200; ++i) {
      const std::string target =
          IKey("k" + std::to_string(rnd.Uniform(n * 2 + 1)), rnd.Uniform(1000),
               kValueTypeForSeek);
      it->Seek(target);
      auto want = model.lower_bound(target);
      ASSERT_EQ(it->Valid(), want != model.end());
      if (it->Valid()) {
        ASSERT_EQ(it->key(), want->first);
      }
    }

    // Get at the newest sequence sees each user key's newest entry.
    std::map<std::string, std::pair<ValueType, std::string>> newest;
    for (const auto& [k, v] : model) {
      ParsedInternalKey p;
      ASSERT_TRUE(ParseInternalKey(k, &p));
      newest.emplace(std::string(p.user_key), std::make_pair(p.type, v));
    }
    for (const auto& [user, entry] : newest) {
      EXPECT_TRUE(table->KeyMayMatch(KeyHash(user))) << "false negative";
      std::string value;
      const Table::Lookup l =
          Get(*table, user, kMaxSequenceNumber, &value, nullptr);
      ASSERT_TRUE(l.status.ok()) << l.status;
      if (entry.first == kTypeValue) {
        ASSERT_EQ(l.result, Table::LookupResult::kFound) << user;
        EXPECT_EQ(value, entry.second);
      } else {
        EXPECT_EQ(l.result, Table::LookupResult::kDeleted) << user;
      }
    }
    std::string value;
    const Table::Lookup l =
        Get(*table, "k-absent", kMaxSequenceNumber, &value, nullptr);
    ASSERT_TRUE(l.status.ok()) << l.status;
    EXPECT_TRUE(l.result == Table::LookupResult::kNotFound ||
                l.result == Table::LookupResult::kFilteredOut);
  }
}

// Table::Get decides with the filter itself: a key it rules out reads no
// block, and every lookup's answer is counted for the statistics.
TEST_P(TableHarness, GetAsksTheFilterAndCountsItsAnswers) {
  Model m;
  for (int i = 0; i < 200; ++i) {
    m[IKey("k" + std::to_string(i), 5, kTypeValue)] = "v";
  }
  std::unique_ptr<Table> table = Build(m);
  ASSERT_NE(table, nullptr);
  const bool filtered = table->has_filter();
  TableReadCounters c;
  std::string value;
  for (int i = 0; i < 200; ++i) {
    const Table::Lookup l =
        Get(*table, "k" + std::to_string(i), kMaxSequenceNumber, &value, &c);
    ASSERT_EQ(l.result, Table::LookupResult::kFound);
  }
  EXPECT_EQ(c.filter_checked, filtered ? 200u : 0u);
  EXPECT_EQ(c.filter_useful, 0u);
  EXPECT_EQ(c.filter_true_positive, filtered ? 200u : 0u);
  int ruled_out = 0;
  for (int i = 0; i < 1000; ++i) {
    TableReadCounters miss;
    const Table::Lookup l = Get(*table, "absent" + std::to_string(i),
                                kMaxSequenceNumber, &value, &miss);
    ASSERT_TRUE(l.status.ok());
    if (l.result == Table::LookupResult::kFilteredOut) {
      ++ruled_out;
      EXPECT_EQ(miss.filter_useful, 1u);
      EXPECT_EQ(
          miss.block_cache_hits + miss.block_cache_misses + miss.blocks_read,
          0u)
          << "a key the filter rules out reads no block";
    } else {
      EXPECT_EQ(l.result, Table::LookupResult::kNotFound);
      EXPECT_EQ(miss.filter_true_positive, 0u);
    }
  }
  if (filtered) {
    EXPECT_GT(ruled_out, 900);  // a 1% filter
  } else {
    EXPECT_EQ(ruled_out, 0);
  }
  // The same lookups in one MultiGet answer the same.
  std::vector<std::string> keys, values(50);
  for (int i = 0; i < 50; ++i) {
    keys.push_back(IKey("k" + std::to_string(i * 4), kMaxSequenceNumber,
                        kValueTypeForSeek));
  }
  std::sort(keys.begin(), keys.end(), InternalLess());
  std::vector<Table::Lookup> batch(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    batch[i].key = keys[i];
    batch[i].hash = KeyHash(ExtractUserKey(keys[i]));
    batch[i].value = &values[i];
  }
  TableReadCounters mc;
  table->MultiGet(ReadOptions(), absl::MakeSpan(batch), &mc);
  for (const Table::Lookup& l : batch) {
    EXPECT_TRUE(l.status.ok());
    EXPECT_EQ(l.result, Table::LookupResult::kFound);
  }
  EXPECT_EQ(mc.filter_checked, filtered ? keys.size() : 0u);
}

TEST_P(TableHarness, GetAtOlderSequenceSeesOlderVersion) {
  Model m;
  m[IKey("a", 30, kTypeValue)] = "a30";
  m[IKey("a", 20, kTypeDeletion)] = "";
  m[IKey("a", 10, kTypeValue)] = "a10";
  m[IKey("b", 5, kTypeValue)] = "b5";
  std::unique_ptr<Table> table = Build(m);
  ASSERT_NE(table, nullptr);
  auto get = [&](std::string_view user, SequenceNumber seq) {
    std::string value;
    const Table::Lookup l = Get(*table, user, seq, &value, nullptr);
    EXPECT_TRUE(l.status.ok()) << l.status;
    switch (l.result) {
      case Table::LookupResult::kFound:
        return value;
      case Table::LookupResult::kDeleted:
        return std::string("DELETED");
      default:
        return std::string("NOT_FOUND");
    }
  };
  EXPECT_EQ(get("a", 100), "a30");
  EXPECT_EQ(get("a", 30), "a30");
  EXPECT_EQ(get("a", 25), "DELETED");
  EXPECT_EQ(get("a", 15), "a10");
  EXPECT_EQ(get("a", 5), "NOT_FOUND");
  EXPECT_EQ(get("b", 5), "b5");
  EXPECT_EQ(get("b", 4), "NOT_FOUND");
  EXPECT_EQ(get("c", 100), "NOT_FOUND");
}

INSTANTIATE_TEST_SUITE_P(
    Options, TableHarness,
    ::testing::Combine(::testing::Values(64, 256, 4096),
                       ::testing::Values(1, 16),
                       ::testing::Values(Compression::kNone,
                                         Compression::kSnappy),
                       ::testing::Values(0.01, 1.0)));

TEST(TableBuilderTest, RejectsOutOfOrderKeysWithoutDamage) {
  auto env = NewMemEnv();
  auto file = env->NewWritableFile("/t.sst");
  ASSERT_TRUE(file.ok());
  TableBuilder b(Options(), file->get());
  ASSERT_TRUE(b.Add(IKey("b", 1, kTypeValue), "1").ok());
  const absl::Status s = b.Add(IKey("a", 1, kTypeValue), "2");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("increasing"), absl::string_view::npos) << s;
  EXPECT_EQ(b.Add(IKey("b", 1, kTypeValue), "dup").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b.Add("short", "x").code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(b.Add(IKey("c", 1, kTypeValue), "3").ok());
  ASSERT_TRUE(b.Finish().ok());
  EXPECT_EQ(b.properties().num_entries, 2u);
}

TEST(TableOptionsTest, ValidationNamesTheField) {
  Options o;
  EXPECT_TRUE(ValidateTableOptions(o).ok());
  o.block_size = 0;
  EXPECT_NE(ValidateTableOptions(o).message().find("block_size"),
            absl::string_view::npos);
  o = Options();
  o.block_restart_interval = 0;
  EXPECT_NE(ValidateTableOptions(o).message().find("block_restart_interval"),
            absl::string_view::npos);
  for (double bad :
       {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    o = Options();
    o.bloom_filter_fp_chance = bad;
    const absl::Status s = ValidateTableOptions(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("bloom_filter_fp_chance"),
              absl::string_view::npos);
  }
  o = Options();
  o.bloom_filter_fp_chance = 1.0;
  EXPECT_TRUE(ValidateTableOptions(o).ok());
}

}  // namespace
}  // namespace sift
