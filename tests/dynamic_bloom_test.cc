// DynamicBloom (util/dynamic_bloom.h), the memtable's filter: no false
// negative, and a measured false-positive rate that the blocked model of
// util/bloom.h predicts, since it is the same layout.

#include "util/dynamic_bloom.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testutil/testutil.h"
#include "util/bloom.h"
#include "util/random.h"

namespace sift {
namespace {

TEST(DynamicBloomTest, OptimalProbesMinimizeTheModel) {
  for (double b : {4.0, 8.0, 10.0, 16.0, 24.0, 64.0}) {
    const int k = DynamicBloom::OptimalProbes(b);
    SCOPED_TRACE(testing::Message() << b << " bits/key, k " << k);
    ASSERT_GE(k, 1);
    ASSERT_LE(k, kBloomMaxProbes);
    if (k > 1) {
      EXPECT_LE(BlockedFpRate(b, k), BlockedFpRate(b, k - 1));
    }
    if (k < kBloomMaxProbes) {
      EXPECT_LE(BlockedFpRate(b, k), BlockedFpRate(b, k + 1));
    }
  }
}

TEST(DynamicBloomTest, NoFalseNegativeAndTheModelsRate) {
  const uint64_t seed = test::TestSeed(1301);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  auto hash = [&rnd] { return rnd.Next64(); };
  constexpr uint64_t kKeys = 100000;
  for (double bits_per_key : {8.0, 16.0}) {
    const int k = DynamicBloom::OptimalProbes(bits_per_key);
    DynamicBloom filter(static_cast<uint64_t>(bits_per_key * kKeys), k);
    const double b = static_cast<double>(filter.num_bits()) / kKeys;
    std::vector<uint64_t> added;
    for (uint64_t i = 0; i < kKeys; ++i) {
      added.push_back(hash());
      filter.AddHash(added.back());
    }
    for (uint64_t h : added) ASSERT_TRUE(filter.MayContainHash(h)) << h;
    constexpr int kProbes = 2000000;
    int fp = 0;
    for (int i = 0; i < kProbes; ++i) fp += filter.MayContainHash(hash());
    const double measured = static_cast<double>(fp) / kProbes;
    const double model = BlockedFpRate(b, k);
    std::printf("%.2f bits/key, k %d: measured %.6f, model %.6f\n", b, k,
                measured, model);
    // Random hashes never added are false positives only by chance of the
    // bits (a 2^-64 collision aside). 4 sigma of the count, plus 5%.
    const double sigma = std::sqrt(model * kProbes) / kProbes;
    EXPECT_NEAR(measured, model, 4 * sigma + 0.05 * model);
  }
}

TEST(DynamicBloomTest, NoBitsMeansNoFilter) {
  DynamicBloom filter(0, 6);
  EXPECT_EQ(filter.num_bits(), 0u);
  EXPECT_EQ(filter.MemoryUsage(), 0u);
  filter.AddHash(1);
  EXPECT_TRUE(filter.MayContainHash(2));
}

}  // namespace
}  // namespace sift
