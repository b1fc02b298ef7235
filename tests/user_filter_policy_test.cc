// User filter policies (Options::filter_policy, LevelDB's contract): the
// filter a table carries is built by the policy in force and probed only
// by a policy of the same name; "no" really skips the file.

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/filter_policy.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "sift/statistics.h"
#include "util/coding.h"

namespace sift {
namespace {

// Answers "absent" for every key: a Get through it never reads a file, so
// a key that is in the file is not found (LevelDB's c_test relies on this).
class NeverMatchPolicy final : public FilterPolicy {
 public:
  const char* Name() const override { return "test.NeverMatch"; }
  void CreateFilter(absl::Span<const std::string_view> keys,
                    std::string* dst) const override {
    ++filters_built;
    keys_seen += keys.size();
    dst->assign("never");
  }
  bool KeyMayMatch(std::string_view, std::string_view filter) const override {
    ++probes;
    EXPECT_EQ(filter, "never");
    return false;
  }
  mutable std::atomic<int> filters_built{0};
  mutable std::atomic<size_t> keys_seen{0};
  mutable std::atomic<int> probes{0};
};

// An exact filter: the keys themselves, length-prefixed.
class ExactSetPolicy final : public FilterPolicy {
 public:
  const char* Name() const override { return "test.ExactSet"; }
  void CreateFilter(absl::Span<const std::string_view> keys,
                    std::string* dst) const override {
    dst->clear();
    for (std::string_view k : keys) PutLengthPrefixed(dst, k);
  }
  bool KeyMayMatch(std::string_view key,
                   std::string_view filter) const override {
    ++probes;
    std::string_view k;
    while (GetLengthPrefixed(&filter, &k)) {
      if (k == key) return true;
    }
    return false;
  }
  mutable std::atomic<int> probes{0};
};

std::string Key(int i) { return absl::StrFormat("key%05d", i); }

class UserFilterPolicyTest : public ::testing::Test {
 protected:
  UserFilterPolicyTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  // Writes keys [0, n) and flushes them to a table.
  void Fill(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "v").ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
  }

  // How many of keys [0, n) Get finds.
  int Found(int n) {
    int found = 0;
    std::string v;
    for (int i = 0; i < n; ++i)
      found += db_->Get(ReadOptions(), Key(i), &v).ok();
    return found;
  }

  uint64_t BlockReads() {
    const Statistics s = db_->GetStatistics();
    return s.Get(kDataBlocksRead) + s.Get(kBlockCacheDataHit);
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(UserFilterPolicyTest, NoFromThePolicySkipsTheFile) {
  auto policy = std::make_shared<NeverMatchPolicy>();
  options_.filter_policy = policy;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(100));
  EXPECT_EQ(policy->filters_built, 1);
  EXPECT_EQ(policy->keys_seen, 100u);
  const uint64_t reads = BlockReads();
  std::string v;
  EXPECT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(7), &v)));
  EXPECT_GT(policy->probes, 0);
  EXPECT_EQ(BlockReads(), reads);
  // Iterators do not consult filters.
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->Seek(Key(7));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(7));
}

TEST_F(UserFilterPolicyTest, AFilterIsTrustedOnlyByItsOwnPolicy) {
  auto never = std::make_shared<NeverMatchPolicy>();
  auto exact = std::make_shared<ExactSetPolicy>();
  // Written with built-in filters, read under a user policy: the built-in
  // filter is not used, nor is the policy applied to a file it did not
  // build.
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(50));
  options_.filter_policy = never;
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Found(50), 50);
  EXPECT_EQ(never->probes, 0);
  // Compaction rebuilds the filter with the policy in force: now the file
  // carries a NeverMatch filter, and its "no" hides every key.
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_GT(never->filters_built, 0);
  EXPECT_EQ(Found(50), 0);
  // Another policy's name, or no policy: the file reads whole again.
  options_.filter_policy = exact;
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Found(50), 50);
  EXPECT_EQ(exact->probes, 0);
  options_.filter_policy = nullptr;
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Found(50), 50);
}

TEST_F(UserFilterPolicyTest, AnExactPolicyAnswersMisses) {
  auto exact = std::make_shared<ExactSetPolicy>();
  options_.filter_policy = exact;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(200));
  EXPECT_EQ(Found(200), 200);
  // Misses inside the file's key range, so only the filter can skip it.
  const uint64_t reads = BlockReads();
  const int probes = exact->probes;
  std::string v;
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), Key(i) + "x", &v)));
  }
  EXPECT_EQ(exact->probes, probes + 100);
  EXPECT_EQ(BlockReads(), reads);
  EXPECT_EQ(db_->GetStatistics().Get(kBloomFilterUseful), 100u);
  // MultiGet asks the same filter: the miss reads nothing, the hit does.
  const std::string hit = Key(5), miss = Key(5) + "x";
  const std::vector<std::string_view> keys = {miss, hit};
  std::vector<std::string> values;
  const std::vector<absl::Status> s =
      db_->MultiGet(ReadOptions(), keys, &values);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(absl::IsNotFound(s[0])) << s[0];
  EXPECT_TRUE(s[1].ok()) << s[1];
  EXPECT_EQ(values[1], "v");
  EXPECT_EQ(db_->GetStatistics().Get(kBloomFilterUseful), 101u);
  EXPECT_GT(BlockReads(), reads);
}

TEST_F(UserFilterPolicyTest, SstFilesRecordThePolicy) {
  auto exact = std::make_shared<ExactSetPolicy>();
  options_.filter_policy = exact;
  SstFileWriter w(options_);
  ASSERT_TRUE(w.Open("/f.sst").ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(w.Put(Key(i), "v").ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.GetProperties().filter_policy, "test.ExactSet");
  EXPECT_EQ(w.GetProperties().filter_num_keys, 10u);
  EXPECT_DOUBLE_EQ(w.GetProperties().bloom_filter_fp_chance, 1.0);

  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/f.sst").ok());
  ASSERT_TRUE(r.VerifyChecksum().ok());
  EXPECT_EQ(r.GetProperties().filter_policy, "test.ExactSet");
  EXPECT_TRUE(r.KeyMayMatch(Key(3)));
  EXPECT_FALSE(r.KeyMayMatch(Key(30)));
  // Without the policy the file has no filter it can use.
  Options plain = options_;
  plain.filter_policy = nullptr;
  SstFileReader r2(plain);
  ASSERT_TRUE(r2.Open("/f.sst").ok());
  EXPECT_TRUE(r2.KeyMayMatch(Key(30)));
  std::string v;
  EXPECT_TRUE(r2.Get(ReadOptions(), Key(3), &v).ok());
}

}  // namespace
}  // namespace sift
