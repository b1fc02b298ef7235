// Tests of sift::FilterPolicy (include/sift/filter_policy.h), the public
// face of util/bloom.h.

#include "sift/filter_policy.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "tests/bloom_test_keys.h"
#include "tests/testutil/testutil.h"
#include "util/filter.h"

namespace sift {
namespace {

using bloom_test::ForEachKey;
using bloom_test::kLayouts;
using bloom_test::LayoutName;
using bloom_test::Shape;

TEST(FilterPolicyTest, RejectsBadFpChance) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    double p;
    const char* shown;
  } cases[] = {{0.0, "got 0"},   {-0.0, "got -0"},  {-0.5, "got -0.5"},
               {1.0, "got 1"},   {1.5, "got 1.5"},  {nan, "got nan"},
               {inf, "got inf"}, {-inf, "got -inf"}};
  for (FilterLayout layout : kLayouts) {
    for (const auto& c : cases) {
      auto policy = FilterPolicy::Create(c.p, layout);
      ASSERT_FALSE(policy.ok()) << c.p;
      EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(policy.status().message().find(c.shown),
                absl::string_view::npos)
          << policy.status();
    }
  }
  auto bad_layout = FilterPolicy::Create(0.01, static_cast<FilterLayout>(7));
  ASSERT_FALSE(bad_layout.ok());
  EXPECT_EQ(bad_layout.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_layout.status().message().find("layout 7"),
            absl::string_view::npos);
  // Tiny but valid targets are accepted (and built at the 1e-12 floor).
  EXPECT_TRUE(FilterPolicy::Create(1e-300).ok());
  EXPECT_TRUE(FilterPolicy::Create(0.999999).ok());
}

TEST(FilterPolicyTest, RoundTrip) {
  const uint64_t seed = test::TestSeed(308);
  std::printf("  seed=%llu\n", static_cast<unsigned long long>(seed));
  std::vector<std::string> storage;
  ForEachKey(Shape::kUrl, seed, false, 50000,
             [&](std::string_view k) { storage.emplace_back(k); });
  std::vector<std::string_view> keys(storage.begin(), storage.end());
  keys.push_back(keys.front());  // a duplicate

  for (FilterLayout layout : kLayouts) {
    auto created = FilterPolicy::Create(0.01, layout);
    ASSERT_TRUE(created.ok()) << created.status();
    const FilterPolicy& policy = **created;
    EXPECT_EQ(policy.fp_chance(), 0.01);
    EXPECT_EQ(policy.layout(), layout);

    std::string filter = "stale contents that must disappear";
    policy.CreateFilter(keys, &filter);
    const FilterReader reader(filter);
    ASSERT_TRUE(reader.valid()) << LayoutName(layout);
    EXPECT_EQ(reader.layout(), layout);
    EXPECT_EQ(reader.num_keys(), 50000u);
    const FilterShape shape = policy.ShapeFor(50000);
    EXPECT_EQ(reader.num_bits(), shape.num_bits);
    EXPECT_EQ(reader.num_probes(), shape.num_probes);
    EXPECT_EQ(filter.size(), shape.num_bits / 8 + kBloomTrailerSize);

    for (std::string_view k : keys) ASSERT_TRUE(policy.KeyMayMatch(k, filter));
    uint64_t hits = 0;
    constexpr uint64_t kProbes = 200000;
    ForEachKey(Shape::kUrl, seed, true, kProbes, [&](std::string_view k) {
      hits += policy.KeyMayMatch(k, filter) ? 1 : 0;
    });
    const double fp = static_cast<double>(hits) / kProbes;
    EXPECT_GT(fp, 0.0085);
    EXPECT_LT(fp, 0.0115);

    // Filters describe themselves: any policy reads any filter.
    auto other = FilterPolicy::Create(0.3, layout == FilterLayout::kBlocked
                                               ? FilterLayout::kStandard
                                               : FilterLayout::kBlocked);
    ASSERT_TRUE(other.ok());
    for (std::string_view k : keys)
      ASSERT_TRUE((*other)->KeyMayMatch(k, filter));
    // And a damaged filter is never trusted to say "absent".
    const std::string truncated = filter.substr(0, filter.size() - 1);
    for (std::string_view k : storage) ASSERT_TRUE(policy.KeyMayMatch(k, "x"));
    EXPECT_TRUE(policy.KeyMayMatch("anything", truncated));
    EXPECT_TRUE(policy.KeyMayMatch("anything", ""));

    // No keys: a valid filter that matches nothing.
    policy.CreateFilter({}, &filter);
    EXPECT_TRUE(FilterReader(filter).valid());
    EXPECT_FALSE(policy.KeyMayMatch("anything", filter));
  }
}

TEST(FilterPolicyTest, ConcurrentUse) {
  auto created = FilterPolicy::Create(0.01);
  ASSERT_TRUE(created.ok());
  const FilterPolicy& policy = **created;
  std::vector<std::string> storage;
  ForEachKey(Shape::kRandom, 5, false, 2000,
             [&](std::string_view k) { storage.emplace_back(k); });
  const std::vector<std::string_view> keys(storage.begin(), storage.end());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        std::string filter;
        policy.CreateFilter(keys, &filter);
        for (std::string_view k : keys) {
          if (!policy.KeyMayMatch(k, filter)) failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace sift
