#include "util/random.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

TEST(RandomTest, SameSeedSameSequence) {
  Random a(42), b(42);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.Next64(), b.Next64());
    ASSERT_EQ(a.Uniform(1000), b.Uniform(1000));
  }
}

TEST(RandomTest, DifferentSeedsDiffer) {
  Random a(1), b(2);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += (a.Next64() == b.Next64());
  EXPECT_EQ(same, 0);
}

TEST(RandomTest, ZeroSeedIsUsable) {
  Random r(0);
  std::set<uint64_t> seen;
  for (int i = 0; i < 100; ++i) seen.insert(r.Next64());
  EXPECT_EQ(seen.size(), 100u);
}

TEST(RandomTest, SequenceIsPinnedAcrossPlatforms) {
  // Seeds recorded in bug reports must replay the same everywhere and after
  // refactors, so the first outputs are pinned. The values come from an
  // independent (Python) transcription of SplitMix64 seeding + xoshiro256**.
  Random zero(0);
  EXPECT_EQ(zero.Next64(), 0x99ec5f36cb75f2b4u);
  EXPECT_EQ(zero.Next64(), 0xbf6e1f784956452au);
  EXPECT_EQ(zero.Next64(), 0x1a5f849d4933e6e0u);
  Random r42(42);
  EXPECT_EQ(r42.Next64(), 0x15780b2e0c2ec716u);
  EXPECT_EQ(r42.Next64(), 0x6104d9866d113a7eu);
  EXPECT_EQ(r42.Next(), 0xae175332u);  // high half of the third output
}

TEST(RandomTest, UniformStaysInRangeAndCoversIt) {
  uint64_t seed = test::TestSeed(7);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random r(seed);
  for (uint32_t n : {1u, 2u, 3u, 10u, 1000u, 0x80000001u, 0xffffffffu}) {
    for (int i = 0; i < 10000; ++i) ASSERT_LT(r.Uniform(n), n);
  }
  std::vector<int> hits(10);
  for (int i = 0; i < 1000; ++i) hits[r.Uniform(10)]++;
  for (int h : hits) EXPECT_GT(h, 0);
}

TEST(RandomTest, UniformIsRoughlyUniform) {
  uint64_t seed = test::TestSeed(8);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random r(seed);
  constexpr int kBuckets = 20;
  constexpr int kDraws = 200000;
  std::vector<int> count(kBuckets);
  for (int i = 0; i < kDraws; ++i) count[r.Uniform(kBuckets)]++;
  // Chi-square with 19 degrees of freedom: P(X > 43.8) = 0.001.
  double expected = static_cast<double>(kDraws) / kBuckets;
  double chi2 = 0;
  for (int c : count) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 43.8);
}

TEST(RandomTest, BitsAreBalanced) {
  Random r(test::TestSeed(9));
  constexpr int kDraws = 20000;
  std::vector<int> ones(64);
  for (int i = 0; i < kDraws; ++i) {
    uint64_t v = r.Next64();
    for (int b = 0; b < 64; ++b) ones[b] += (v >> b) & 1;
  }
  // Each bit: mean 10000, sd ~71; 6 sd is never hit by a sound generator.
  for (int b = 0; b < 64; ++b) EXPECT_NEAR(ones[b], kDraws / 2, 430) << b;
}

TEST(RandomTest, OneInMatchesProbability) {
  Random r(test::TestSeed(10));
  int hits = 0;
  for (int i = 0; i < 100000; ++i) hits += r.OneIn(10);
  EXPECT_NEAR(hits, 10000, 600);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(r.OneIn(1));
}

TEST(RandomTest, SkewedFavorsSmallValues) {
  Random r(test::TestSeed(11));
  constexpr int kMaxLog = 10;
  int small = 0, large = 0;
  for (int i = 0; i < 100000; ++i) {
    uint32_t v = r.Skewed(kMaxLog);
    ASSERT_LT(v, 1u << kMaxLog);
    if (v < 2) small++;
    if (v >= 512) large++;
  }
  // P(v < 2) = (1 + 1 + 2/4 + 2/8 + ... + 2/1024) / 11 = 0.2725;
  // P(v >= 512) needs base 10 and the top half: 1/22 ~ 0.045.
  EXPECT_NEAR(small / 100000.0, 0.2725, 0.01);
  EXPECT_NEAR(large / 100000.0, 1.0 / 22, 0.01);
  EXPECT_EQ(r.Skewed(0), 0u);
}

TEST(RandomTest, RandomStringIsPrintableAndReplacesDst) {
  Random r(test::TestSeed(12));
  std::string s = "previous contents";
  r.RandomString(1000, &s);
  ASSERT_EQ(s.size(), 1000u);
  std::set<char> distinct;
  for (char c : s) {
    EXPECT_GE(c, ' ');
    EXPECT_LE(c, '~');
    distinct.insert(c);
  }
  EXPECT_GT(distinct.size(), 80u);
  r.RandomString(0, &s);
  EXPECT_TRUE(s.empty());
}

}  // namespace
}  // namespace sift
