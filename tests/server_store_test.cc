// Tests of sift-server's storage rules (server/store.h, server/bloom_store.h,
// the records of server/FORMAT.md) and of its RESP parser and replies, on
// a real database, below the network.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/keys.h"
#include "server/reply.h"
#include "server/resp_parser.h"
#include "server/store.h"
#include "sift/db.h"
#include "sift/scalable_filter.h"
#include "tests/testutil/testutil.h"

namespace sift::server {
namespace {

std::string Hex(std::string_view s) {
  return absl::BytesToHexString(absl::string_view(s.data(), s.size()));
}

class StoreTest : public testing::Test {
 protected:
  void SetUp() override {
    config_.db =
        test::TempDir(
            testing::UnitTest::GetInstance()->current_test_info()->name()) +
        "/db";
    Open();
  }
  void Open() {
    store_.reset();
    absl::StatusOr<std::unique_ptr<Store>> s = Store::Open(config_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = *std::move(s);
  }
  // Every record of the database, in key order.
  std::vector<std::pair<std::string, std::string>> Records() {
    std::vector<std::pair<std::string, std::string>> out;
    std::unique_ptr<Iterator> it = store_->db()->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out.emplace_back(std::string(it->key()), std::string(it->value()));
    }
    return out;
  }
  // Adds items to key's filter (created with `o` if missing) as BF.MADD
  // does, and writes the batch.
  void Add(std::string_view key, const std::vector<std::string>& items,
           const ScalableFilterOptions& o = {}) {
    BloomStore::Entry* e = store_->blooms().Find(key);
    if (e == nullptr) {
      e = store_->blooms().Create(key, *ScalableBloomFilter::Create(o),
                                  store_->batch());
    }
    std::vector<std::pair<size_t, uint64_t>> added;
    for (const std::string& item : items) {
      const uint64_t h = ScalableBloomFilter::Hash(item);
      size_t sub;
      if (e->filter.AddHash(h, &sub) == FilterAdd::kAdded) {
        added.emplace_back(sub, h);
      }
    }
    store_->blooms().RecordAdds(key, e, added, store_->batch());
    ASSERT_TRUE(store_->Commit().ok());
  }

  ServerConfig config_;
  std::unique_ptr<Store> store_;
};

// The worked example of server/FORMAT.md ("Filter records").
TEST_F(StoreTest, FormatWorkedExample) {
  store_->PutString("k1", "v1");
  Add("f", {"item"}, {.error_rate = 0.01, .capacity = 100});
  const auto records = Records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(Hex(records[0].first),
            "620000000166"
            "01");
  EXPECT_EQ(Hex(records[1].first),
            "620000000166"
            "03"
            "0000000000000000");
  const uint64_t h = ScalableBloomFilter::Hash("item");
  std::string want;
  AppendBigEndian(&want, 0, 4);
  AppendBigEndian(&want, h, 8);
  EXPECT_EQ(Hex(records[1].second), Hex(want));
  EXPECT_EQ(records[2].first, "kk1");
  EXPECT_EQ(records[2].second, "v1");
  // The header is ScanDump(0) of the filter as created.
  const std::string& header = records[0].second;
  EXPECT_EQ(header.size(), 37u + 25 + 4);
  EXPECT_EQ(Hex(header),
            "53424631"          // "SBF1"
            "7b14ae47e17a843f"  // error rate 0.01
            "6400000000000000"
            "02000000"
            "00"  // capacity, expansion
            "0000000000000000"
            "01000000"  // items, sub-filters
            "6400000000000000"
            "0000000000000000"
            "0006000000000000"
            "07"
            "fc570035");  // crc32c
  std::printf("header %s\ndelta value %s (hash of \"item\" %016llx)\n",
              Hex(header).c_str(), Hex(records[1].second).c_str(),
              static_cast<unsigned long long>(h));
}

// An add writes one small delta record; deltas fold into pieces once they
// outweigh the sub-filters they touched, so the records stay bounded and
// the bytes written per item stay a small multiple of the delta's 12.
TEST_F(StoreTest, AddsWriteDeltasAndFoldWithBoundedWrites) {
  const ScalableFilterOptions o{.error_rate = 0.01, .capacity = 1000000};
  Add("big", {"first"}, o);
  const uint64_t sub_bytes =
      store_->blooms().Find("big")->filter.sub_filter(0).bits.size();
  ASSERT_GT(sub_bytes, 1000000u);
  const auto wal_bytes = [&] {
    return store_->db()->GetStatistics().Get(kBytesWritten);
  };
  const auto count = [&](char tag) {
    size_t n = 0;
    for (const auto& [k, v] : Records()) {
      n += k[0] == kBloomPrefix && k.size() > 9 && k[k.size() - 9] == tag;
    }
    return n;
  };
  // One add per write: a few dozen bytes each, where rewriting the
  // sub-filter would write sub_bytes.
  uint64_t before = wal_bytes();
  constexpr int kSingles = 2000;
  for (int i = 0; i < kSingles; ++i) Add("big", {absl::StrCat("one", i)});
  const double per_add = static_cast<double>(wal_bytes() - before) / kSingles;
  std::printf("single adds: %.1f WAL bytes each (sub-filter: %llu bytes)\n",
              per_add, static_cast<unsigned long long>(sub_bytes));
  EXPECT_LT(per_add, 100);
  EXPECT_EQ(count(kBloomDeltaTag), size_t{kSingles} + 1);
  EXPECT_EQ(count(kBloomPieceTag), 0u);
  EXPECT_EQ(store_->blooms().folds(), 0u);
  // Batches of 1000 until the deltas outweigh the sub-filter and fold.
  before = wal_bytes();
  int items = 0;
  while (store_->blooms().folds() == 0 && items < 400000) {
    std::vector<std::string> batch;
    for (int i = 0; i < 1000; ++i) batch.push_back(absl::StrCat("b", items++));
    Add("big", batch);
  }
  ASSERT_EQ(store_->blooms().folds(), 1u);
  const double per_item = static_cast<double>(wal_bytes() - before) / items;
  std::printf("%d batched items to the first fold: %.1f WAL bytes each\n",
              items, per_item);
  EXPECT_LT(per_item, 40);  // 12 per delta, 12 per item of the fold
  EXPECT_EQ(count(kBloomDeltaTag), 0u);
  EXPECT_EQ(count(kBloomPieceTag),
            (sub_bytes + kBloomPieceBytes - 1) / kBloomPieceBytes);
  // Reopening rebuilds the same filter from header, pieces and deltas.
  Add("big", {"after the fold"});
  const ScalableBloomFilter was = store_->blooms().Find("big")->filter;
  Open();
  const ScalableBloomFilter& now = store_->blooms().Find("big")->filter;
  ASSERT_EQ(now.num_filters(), was.num_filters());
  EXPECT_EQ(now.size(), was.size());
  for (size_t i = 0; i < now.num_filters(); ++i) {
    EXPECT_EQ(now.sub_filter(i).bits, was.sub_filter(i).bits);
  }
}

TEST_F(StoreTest, GrowingFilterReloadsAcrossSubFilters) {
  std::vector<std::string> items;
  for (int i = 0; i < 5000; ++i) items.push_back(absl::StrCat("u", i));
  for (size_t i = 0; i < items.size(); i += 100) {
    Add("g", {items.begin() + i, items.begin() + i + 100},
        {.capacity = 50, .expansion = 2});
  }
  const ScalableBloomFilter was = store_->blooms().Find("g")->filter;
  ASSERT_GE(was.num_filters(), 6u);
  Open();
  const ScalableBloomFilter& now = store_->blooms().Find("g")->filter;
  ASSERT_EQ(now.num_filters(), was.num_filters());
  EXPECT_EQ(now.size(), was.size());
  for (const std::string& item : items) ASSERT_TRUE(now.MayContain(item));
}

TEST_F(StoreTest, SetReplacesAndDeleteRemovesAFilter) {
  Add("x", {"a"});
  store_->PutString("x", "str");
  ASSERT_TRUE(store_->Commit().ok());
  EXPECT_EQ(store_->blooms().Find("x"), nullptr);
  Add("y", {"a"});
  ASSERT_TRUE(*store_->Delete("y"));
  ASSERT_TRUE(store_->Commit().ok());
  Open();
  EXPECT_EQ(store_->blooms().Find("x"), nullptr);
  EXPECT_EQ(store_->blooms().Find("y"), nullptr);
  std::string v;
  EXPECT_TRUE(store_->GetString("x", &v).ok());
  EXPECT_EQ(v, "str");
  for (const auto& [k, val] : Records()) EXPECT_NE(k[0], kBloomPrefix) << k;
}

TEST_F(StoreTest, ScanMergesStringsAndFiltersInOrder) {
  for (const char* k : {"a", "c", "e"}) store_->PutString(k, "1");
  ASSERT_TRUE(store_->Commit().ok());
  Add("b", {"x"});
  Add("d", {"x"});
  std::vector<std::string> all, keys;
  std::string after, next;
  do {
    ASSERT_TRUE(store_->Scan(after, 2, &keys, &next).ok());
    all.insert(all.end(), keys.begin(), keys.end());
    after = next;
  } while (!next.empty());
  EXPECT_EQ(all, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(*store_->CountKeys(), 5u);
}

TEST_F(StoreTest, DamagedFilterRecordsFailOpenNamingTheKey) {
  Add("broken", {"a"});
  ASSERT_TRUE(store_->db()
                  ->Put(WriteOptions(), BloomHeaderKey("broken"), "garbage")
                  .ok());
  store_.reset();
  absl::StatusOr<std::unique_ptr<Store>> s = Store::Open(config_);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsDataLoss(s.status()));
  EXPECT_NE(std::string(s.status().message()).find("'broken'"),
            std::string::npos)
      << s.status();
}

TEST(RespParserTest, ParsesPipelinedAndPartialCommands) {
  RespParser p(1 << 20);
  const std::string stream =
      "*2\r\n$3\r\nGET\r\n$1\r\nk\r\nPING\r\n*1\r\n$4\r\nQUIT\r\n";
  std::vector<std::string_view> args;
  std::string error;
  size_t consumed = 0, at = 0;
  std::vector<std::vector<std::string>> got;
  while (at < stream.size()) {
    const auto r =
        p.Parse(std::string_view(stream).substr(at), &consumed, &args, &error);
    ASSERT_EQ(r, RespParser::Result::kCommand);
    got.emplace_back(args.begin(), args.end());
    at += consumed;
  }
  EXPECT_EQ(got, (std::vector<std::vector<std::string>>{
                     {"GET", "k"}, {"PING"}, {"QUIT"}}));
  // Byte by byte: kNeedMore until the last byte.
  RespParser q(1 << 20);
  const std::string one = "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n";
  for (size_t n = 1; n < one.size(); ++n) {
    ASSERT_EQ(
        q.Parse(std::string_view(one).substr(0, n), &consumed, &args, &error),
        RespParser::Result::kNeedMore)
        << n;
  }
  ASSERT_EQ(q.Parse(one, &consumed, &args, &error),
            RespParser::Result::kCommand);
  EXPECT_EQ(consumed, one.size());
  EXPECT_EQ(args[1], "hello");
  // A waiting bulk tells how many bytes the command needs.
  RespParser b(1 << 20);
  EXPECT_EQ(b.Parse("*1\r\n$1000\r\nab", &consumed, &args, &error),
            RespParser::Result::kNeedMore);
  EXPECT_EQ(b.bytes_wanted(), 11u + 1000 + 2);
}

TEST(RespParserTest, ErrorsAreRedisTexts) {
  const struct {
    std::string in;
    const char* error;
  } cases[] = {
      {"*x\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\n+x\r\n", "Protocol error: expected '$', got '+'"},
      {"*1\r\n$2000\r\n", "Protocol error: invalid bulk length"},
      {"*2000000\r\n", "Protocol error: invalid multibulk length"},
      {"SET 'a\r\n", "Protocol error: unbalanced quotes in request"},
      {std::string(70000, 'a'), "Protocol error: too big inline request"},
  };
  for (const auto& c : cases) {
    RespParser p(1024);
    std::vector<std::string_view> args;
    std::string error;
    size_t consumed;
    EXPECT_EQ(p.Parse(c.in, &consumed, &args, &error),
              RespParser::Result::kError)
        << c.in.substr(0, 20);
    EXPECT_EQ(error, c.error);
  }
}

TEST(ReplyTest, Resp2AndResp3Forms) {
  std::string out;
  Reply r(&out);
  r.Map(1);
  r.Bool(true);
  r.Null();
  r.Double(1.5);
  EXPECT_EQ(out, "*2\r\n:1\r\n$-1\r\n$3\r\n1.5\r\n");
  out.clear();
  r.set_resp3(true);
  r.Map(1);
  r.Bool(false);
  r.Null();
  r.Double(1.5);
  r.Verbatim("x");
  r.Error("ERR a\r\nb");
  EXPECT_EQ(out, "%1\r\n#f\r\n_\r\n,1.5\r\n=5\r\ntxt:x\r\n-ERR a  b\r\n");
}

}  // namespace
}  // namespace sift::server
