// Tests of sift::ScalableBloomFilter (include/sift/scalable_filter.h) and of
// merging filters (FilterPolicy::MergeFilters, util/bloom.h's BloomOrMerge).

#include "sift/scalable_filter.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "sift/filter_policy.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

std::string Item(uint64_t i) { return absl::StrCat("item:", i); }
std::string Absent(uint64_t i) { return absl::StrCat("absent:", i); }

ScalableBloomFilter Make(const ScalableFilterOptions& o) {
  absl::StatusOr<ScalableBloomFilter> f = ScalableBloomFilter::Create(o);
  EXPECT_TRUE(f.ok()) << f.status();
  return *std::move(f);
}

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

TEST(ScalableFilterTest, RejectsBadOptions) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    ScalableFilterOptions o;
    const char* names;
  };
  const Case cases[] = {
      {{.error_rate = 0}, "error_rate must be in (0, 1), got 0"},
      {{.error_rate = 1}, "error_rate must be in (0, 1), got 1"},
      {{.error_rate = nan}, "error_rate"},
      {{.capacity = 0}, "capacity must be in [1, 1073741824], got 0"},
      {{.capacity = (uint64_t{1} << 30) + 1}, "capacity"},
      {{.expansion = 0}, "expansion must be in [1, 32768], got 0"},
      {{.expansion = 40000}, "expansion"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ScalableBloomFilter> f = ScalableBloomFilter::Create(c.o);
    ASSERT_FALSE(f.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(f.status()));
    EXPECT_NE(Msg(f.status()).find(c.names), std::string::npos) << f.status();
  }
}

// RedisBloom's add: 1 for a new item, 0 for one that may be there; the
// count grows only for new items.
TEST(ScalableFilterTest, AddReportsNewItemsAndCounts) {
  ScalableBloomFilter f = Make({});
  EXPECT_EQ(f.Add("a"), FilterAdd::kAdded);
  EXPECT_EQ(f.Add("a"), FilterAdd::kExists);
  EXPECT_EQ(f.Add(""), FilterAdd::kAdded);
  EXPECT_EQ(f.Add(std::string("x\0y", 3)), FilterAdd::kAdded);
  EXPECT_EQ(f.size(), 3u);
  EXPECT_TRUE(f.MayContain("a"));
  EXPECT_TRUE(f.MayContain(""));
  EXPECT_EQ(f.num_filters(), 1u);
  EXPECT_EQ(f.capacity(), 100u);
}

// Sub-filters open expansion times larger with half the rate, and every
// item added stays found.
TEST(ScalableFilterTest, GrowsByExpansionWithTightenedRates) {
  ScalableBloomFilter f =
      Make({.error_rate = 0.01, .capacity = 100, .expansion = 3});
  uint64_t added = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    if (f.Add(Item(i)) == FilterAdd::kAdded) ++added;
  }
  EXPECT_EQ(f.size(), added);
  // 100 + 300 + 900 < 2000 <= 100 + 300 + 900 + 2700.
  ASSERT_EQ(f.num_filters(), 4u);
  EXPECT_EQ(f.capacity(), 100u + 300 + 900 + 2700);
  for (size_t i = 0; i < f.num_filters(); ++i) {
    EXPECT_EQ(f.sub_filter(i).capacity,
              100 * static_cast<uint64_t>(std::pow(3, i)));
    EXPECT_DOUBLE_EQ(f.sub_filter(i).error_rate, 0.01 * std::pow(0.5, i + 1));
    if (i + 1 < f.num_filters()) {
      EXPECT_EQ(f.sub_filter(i).count, f.sub_filter(i).capacity);
    }
  }
  for (uint64_t i = 0; i < 2000; ++i) ASSERT_TRUE(f.MayContain(Item(i))) << i;
}

TEST(ScalableFilterTest, NonscalingRefusesWhenFull) {
  ScalableBloomFilter f =
      Make({.error_rate = 0.001, .capacity = 10, .nonscaling = true});
  size_t added = 0, i = 0;
  while (added < 10) added += f.Add(Item(i++)) == FilterAdd::kAdded;
  EXPECT_EQ(f.Add("one more"), FilterAdd::kFull);
  EXPECT_EQ(f.Add(Item(0)), FilterAdd::kExists);  // a present item is fine
  EXPECT_EQ(f.num_filters(), 1u);
  EXPECT_EQ(f.size(), 10u);
  EXPECT_DOUBLE_EQ(f.sub_filter(0).error_rate, 0.001);  // not tightened
  const std::vector<std::string_view> batch = {"n1", "n2", "n3"};
  const std::vector<FilterAdd> r = f.AddMulti(batch);
  ASSERT_EQ(r.size(), 1u);  // stops at the first refusal, as BF.MADD
  EXPECT_EQ(r[0], FilterAdd::kFull);
}

// The promise: a filter grown to 10x its capacity still measures at most
// its error rate.
TEST(ScalableFilterTest, ScaledFilterMeetsItsErrorRate) {
  for (double p : {0.01, 0.001}) {
    const uint64_t capacity = test::kSanitizerBuild ? 1000 : 10000;
    ScalableBloomFilter f = Make({.error_rate = p, .capacity = capacity});
    for (uint64_t i = 0; i < 10 * capacity; ++i) f.Add(Item(i));
    EXPECT_GE(f.num_filters(), 4u);
    const uint64_t probes = test::kSanitizerBuild ? 200000 : 1000000;
    uint64_t fp = 0;
    for (uint64_t i = 0; i < probes; ++i) fp += f.MayContain(Absent(i));
    const double rate = static_cast<double>(fp) / static_cast<double>(probes);
    std::printf("p=%g: %zu sub-filters, measured %.5f\n", p, f.num_filters(),
                rate);
    EXPECT_LE(rate, p) << p;
    for (uint64_t i = 0; i < 10 * capacity; ++i) {
      ASSERT_TRUE(f.MayContain(Item(i)));
    }
  }
}

TEST(ScalableFilterTest, MayContainMultiMatchesMayContain) {
  ScalableBloomFilter f = Make({.capacity = 50});
  for (uint64_t i = 0; i < 400; ++i) f.Add(Item(i));
  std::vector<std::string> items;
  for (uint64_t i = 0; i < 300; ++i)
    items.push_back(i % 2 ? Item(i) : Absent(i));
  const std::vector<std::string_view> views(items.begin(), items.end());
  const std::vector<bool> got = f.MayContainMulti(views);
  ASSERT_EQ(got.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(got[i], f.MayContain(items[i])) << items[i];
  }
}

// ScanDump / FromHeader / LoadChunk round-trip, in small pieces.
TEST(ScalableFilterTest, ChunkedDumpRoundTrips) {
  ScalableBloomFilter f = Make({.error_rate = 0.01, .capacity = 64});
  for (uint64_t i = 0; i < 1000; ++i) f.Add(Item(i));
  ScalableBloomFilter::Chunk h = f.ScanDump(0);
  ASSERT_EQ(h.cursor, 1u);
  absl::StatusOr<ScalableBloomFilter> g =
      ScalableBloomFilter::FromHeader(h.data);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->size(), f.size());
  EXPECT_EQ(g->num_filters(), f.num_filters());
  uint64_t cursor = 1;
  int pieces = 0;
  while (true) {
    ScalableBloomFilter::Chunk c = f.ScanDump(cursor, 100);
    if (c.cursor == 0) {
      EXPECT_TRUE(c.data.empty());
      break;
    }
    ASSERT_TRUE(g->LoadChunk(c.cursor, c.data).ok());
    cursor = c.cursor;
    ++pieces;
  }
  EXPECT_GT(pieces, 10);
  for (size_t i = 0; i < f.num_filters(); ++i) {
    EXPECT_EQ(g->sub_filter(i).bits, f.sub_filter(i).bits);
  }
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(g->MayContain(Item(i)));
}

TEST(ScalableFilterTest, BadDumpsAreRefused) {
  ScalableBloomFilter f = Make({});
  f.Add("x");
  const std::string header = f.ScanDump(0).data;
  for (size_t len : {size_t{0}, size_t{4}, header.size() - 1}) {
    EXPECT_FALSE(ScalableBloomFilter::FromHeader(header.substr(0, len)).ok());
  }
  for (size_t i = 0; i < header.size(); ++i) {
    std::string bad = header;
    bad[i] ^= 0x40;
    absl::StatusOr<ScalableBloomFilter> g =
        ScalableBloomFilter::FromHeader(bad);
    ASSERT_FALSE(g.ok()) << "byte " << i;
    EXPECT_NE(Msg(g.status()).find("received bad data"), std::string::npos);
  }
  ScalableBloomFilter g = *ScalableBloomFilter::FromHeader(header);
  const ScalableBloomFilter::Chunk body = f.ScanDump(1);
  EXPECT_FALSE(g.LoadChunk(0, body.data).ok());
  EXPECT_FALSE(g.LoadChunk(body.cursor + 1, body.data).ok());  // past the end
  std::string trailer_broken = body.data;
  trailer_broken.back() ^= 1;  // the magic
  EXPECT_FALSE(g.LoadChunk(body.cursor, trailer_broken).ok());
  EXPECT_FALSE(g.MayContain("x"));  // refused pieces changed nothing
  EXPECT_TRUE(g.LoadChunk(body.cursor, body.data).ok());
  EXPECT_TRUE(g.MayContain("x"));
}

TEST(ScalableFilterTest, ReplayAddRebuildsTheSameBits) {
  ScalableBloomFilter f = Make({.capacity = 20});
  ScalableBloomFilter g = Make({.capacity = 20});
  for (uint64_t i = 0; i < 200; ++i) {
    const uint64_t h = ScalableBloomFilter::Hash(Item(i));
    size_t sub = 99;
    if (f.AddHash(h, &sub) == FilterAdd::kAdded) {
      ASSERT_TRUE(g.ReplayAdd(sub, h).ok());
    }
  }
  ASSERT_EQ(g.num_filters(), f.num_filters());
  EXPECT_EQ(g.size(), f.size());
  for (size_t i = 0; i < f.num_filters(); ++i) {
    EXPECT_EQ(g.sub_filter(i).bits, f.sub_filter(i).bits);
    EXPECT_EQ(g.sub_filter(i).count, f.sub_filter(i).count);
  }
  ScalableBloomFilter n = Make({.nonscaling = true});
  EXPECT_TRUE(absl::IsInvalidArgument(n.ReplayAdd(1, 42)));
}

// Two nodes de-duplicate their parts of a stream, each with a filter sized
// for the whole stream; the merged filter knows every item and meets the
// rate, since its sub-filter holds no more than its capacity.
TEST(ScalableFilterTest, MergeHoldsTheUnion) {
  const ScalableFilterOptions o{.error_rate = 0.01, .capacity = 10000};
  ScalableBloomFilter a = Make(o), b = Make(o);
  for (uint64_t i = 0; i < 3000; ++i) a.Add(Item(i));
  for (uint64_t i = 3000; i < 10000; ++i) b.Add(Item(i));
  const uint64_t a_size = a.size();
  ASSERT_TRUE(a.Merge(b).ok());
  EXPECT_EQ(a.num_filters(), 1u);
  EXPECT_EQ(a.size(), a_size + b.size());
  EXPECT_EQ(a.sub_filter(0).count, a.size());
  for (uint64_t i = 0; i < 10000; ++i) ASSERT_TRUE(a.MayContain(Item(i))) << i;
  uint64_t fp = 0;
  for (uint64_t i = 0; i < 200000; ++i) fp += a.MayContain(Absent(i));
  EXPECT_LE(fp, 2000u);  // 1%
  // Sub-filters only one side opened are copied.
  ScalableBloomFilter c = Make({.capacity = 10}), d = Make({.capacity = 10});
  for (uint64_t i = 0; i < 100; ++i) d.Add(Item(i));
  ASSERT_TRUE(c.Merge(d).ok());
  EXPECT_EQ(c.num_filters(), d.num_filters());
  for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(c.MayContain(Item(i)));
}

TEST(ScalableFilterTest, MergeOfMismatchedOptionsNamesThem) {
  ScalableBloomFilter a = Make({.error_rate = 0.01, .capacity = 100});
  ScalableBloomFilter b = Make({.error_rate = 0.02, .capacity = 200});
  a.Add("keep");
  const absl::Status s = a.Merge(b);
  ASSERT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(Msg(s).find("error_rate 0.01 vs 0.02"), std::string::npos) << s;
  EXPECT_NE(Msg(s).find("capacity 100 vs 200"), std::string::npos) << s;
  EXPECT_EQ(a.size(), 1u);
  ScalableBloomFilter c = Make({.expansion = 4});
  EXPECT_NE(Msg(Make({}).Merge(c)).find("expansion 2 vs 4"), std::string::npos);
}

TEST(FilterMergeTest, PolicyOrMergesFiltersOfOneShape) {
  auto policy = *FilterPolicy::Create(0.01);
  std::vector<std::string> left, right;
  for (uint64_t i = 0; i < 500; ++i) left.push_back(Item(i));
  for (uint64_t i = 500; i < 1000; ++i) right.push_back(Item(i));
  const std::vector<std::string_view> lv(left.begin(), left.end());
  const std::vector<std::string_view> rv(right.begin(), right.end());
  std::string a, b;
  policy->CreateFilter(lv, &a);
  policy->CreateFilter(rv, &b);
  ASSERT_TRUE(policy->MergeFilters(b, &a).ok());
  for (const std::string& k : left) ASSERT_TRUE(policy->KeyMayMatch(k, a));
  for (const std::string& k : right) ASSERT_TRUE(policy->KeyMayMatch(k, a));
}

TEST(FilterMergeTest, MismatchedFiltersAreRefusedByName) {
  auto p1 = *FilterPolicy::Create(0.01);
  auto p2 = *FilterPolicy::Create(0.001);
  auto standard = *FilterPolicy::Create(0.01, FilterLayout::kStandard);
  auto ribbon = *FilterPolicy::Create(0.01, FilterLayout::kRibbon);
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 1000; ++i) keys.push_back(Item(i));
  const std::vector<std::string_view> v(keys.begin(), keys.end());
  std::string a, b, c, d, r;
  p1->CreateFilter(v, &a);
  p2->CreateFilter(v, &b);
  standard->CreateFilter(v, &c);
  ribbon->CreateFilter(v, &r);
  p1->CreateFilter(absl::MakeConstSpan(v).subspan(0, 10), &d);
  const std::string before = a;
  absl::Status s = p1->MergeFilters(b, &a);
  ASSERT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(Msg(s).find("num_bits"), std::string::npos) << s;
  EXPECT_NE(Msg(s).find("num_probes"), std::string::npos) << s;
  s = p1->MergeFilters(c, &a);
  EXPECT_NE(Msg(s).find("layout blocked vs standard"), std::string::npos) << s;
  s = p1->MergeFilters(d, &a);
  EXPECT_NE(Msg(s).find("num_bits"), std::string::npos) << s;
  s = p1->MergeFilters(r, &a);
  EXPECT_NE(Msg(s).find("Ribbon"), std::string::npos) << s;
  s = p1->MergeFilters("garbage", &a);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_EQ(a, before);

  // A user policy cannot merge unless it says how.
  class Opaque : public FilterPolicy {
   public:
    const char* Name() const override { return "test.Opaque"; }
    void CreateFilter(absl::Span<const std::string_view>,
                      std::string* dst) const override {
      dst->assign("x");
    }
    bool KeyMayMatch(std::string_view, std::string_view) const override {
      return true;
    }
  };
  s = Opaque().MergeFilters("x", &a);
  EXPECT_TRUE(absl::IsUnimplemented(s));
  EXPECT_NE(Msg(s).find("test.Opaque"), std::string::npos);
}

}  // namespace
}  // namespace sift
