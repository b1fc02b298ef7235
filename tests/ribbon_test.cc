// Tests of the Ribbon layout (util/ribbon.h) through the builder and reader
// the table uses (util/bloom.h) and through sift::FilterPolicy: no false
// negatives, the false-positive rate and bits per key it promises, the
// fallback to blocked Bloom, seeds and retries, and rejection of damaged
// filters. The byte-exact format is checked in tests/bloom_format_test.cc.

#include "util/ribbon.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "sift/filter_policy.h"
#include "tests/bloom_test_keys.h"
#include "tests/testutil/testutil.h"
#include "util/coding.h"
#include "util/filter.h"
#include "util/hash.h"

namespace sift {
namespace {

using bloom_test::ForEachKey;
using bloom_test::Shape;

// Builds a kRibbon filter (through FilterBuilder, as tables do) of n
// keys of one shape.
std::string BuildFilter(Shape shape, uint64_t seed, uint64_t n, double p) {
  FilterBuilder builder(FilterLayout::kRibbon, p);
  ForEachKey(shape, seed, /*probe=*/false, n,
             [&](std::string_view key) { builder.AddHash(KeyHash(key)); });
  std::string filter;
  builder.Finish(&filter);
  return filter;
}

// Fraction of `count` probe keys (never added) the filter says may match.
double MeasureFp(const FilterReader& reader, Shape shape, uint64_t seed,
                 uint64_t count) {
  uint64_t hits = 0;
  ForEachKey(shape, seed, /*probe=*/true, count, [&](std::string_view key) {
    hits += reader.MayContainHash(KeyHash(key)) ? 1 : 0;
  });
  return static_cast<double>(hits) / static_cast<double>(count);
}

uint64_t RandomHash(uint64_t* state) {
  *state += kGoldenGamma;
  return Remix(*state);
}

TEST(RibbonTest, ParamsSplitBetweenTwoWidths) {
  struct Case {
    double p;
    int r;
  };
  for (const Case& c : {Case{0.5, 0}, Case{0.1, 3}, Case{0.01, 6},
                        Case{0.001, 9}, Case{0.0001, 13}, Case{1.0 / 64, 5}}) {
    const RibbonParams params = ChooseRibbonParams(c.p);
    EXPECT_EQ(params.result_bits, c.r) << c.p;
    EXPECT_GE(params.narrow_fraction, 0.0) << c.p;
    EXPECT_LT(params.narrow_fraction, 1.0) << c.p;
    const double q = params.narrow_fraction;
    const double fp =
        q * std::ldexp(1.0, -c.r) + (1 - q) * std::ldexp(1.0, -(c.r + 1));
    EXPECT_NEAR(fp / c.p, 1.0, 1e-9) << c.p;
  }
}

TEST(RibbonTest, NoFalseNegatives) {
  const uint64_t seed = test::TestSeed(1501);
  std::printf("seed %llu (replay with SIFT_TEST_SEED)\n",
              static_cast<unsigned long long>(seed));
  for (Shape shape : bloom_test::kShapes) {
    for (double p : {0.3, 0.01, 0.0001}) {
      for (uint64_t n : {0, 1, 100, 150, 1000, 4321, 30000}) {
        const std::string filter = BuildFilter(shape, seed, n, p);
        const FilterReader reader(filter);
        ASSERT_TRUE(reader.valid());
        EXPECT_EQ(reader.num_keys(), n);
        uint64_t misses = 0;
        ForEachKey(shape, seed, false, n, [&](std::string_view key) {
          misses += reader.MayContainHash(KeyHash(key)) ? 0 : 1;
        });
        EXPECT_EQ(misses, 0u)
            << bloom_test::ShapeName(shape) << " p=" << p << " n=" << n;
      }
    }
  }
}

// The measured rate is within +-15% of p, on fixed seeds, with enough
// probes that 15% is over 5 standard deviations of the measurement. A
// sanitizer build probes a little and leaves the rate to the plain build.
TEST(RibbonTest, FalsePositiveRateMeetsTarget) {
  const uint64_t n = 100000;
  for (double p : {0.1, 0.01, 0.001, 0.0001}) {
    const uint64_t probes =
        test::kSanitizerBuild ? 20000 : static_cast<uint64_t>(1200 / p);
    for (Shape shape : {Shape::kRandom, Shape::kBigEndian}) {
      const std::string filter = BuildFilter(shape, 7, n, p);
      const FilterReader reader(filter);
      ASSERT_EQ(reader.layout(), FilterLayout::kRibbon);
      const double fp = MeasureFp(reader, shape, 7, probes);
      std::printf("p=%-7g %-9s bits/key %.3f model %.5g measured %.5g\n", p,
                  bloom_test::ShapeName(shape), reader.bits_per_key(),
                  reader.ExpectedFpRate(), fp);
      if (!test::kSanitizerBuild) {
        EXPECT_NEAR(fp / p, 1.0, 0.15) << p;
      }
      EXPECT_NEAR(reader.ExpectedFpRate() / p, 1.0, 0.01) << p;
    }
  }
}

// At n >= 100k: bits per key <= 1.08 log2(1/p) + 0.1, trailer included.
// The sizes depend on n only, so the shape is checked up to 1e8 keys (the
// slack grows by 0.36% per doubling: the bound holds to about 3e8) and
// compared with a built filter at 100k and 1M.
TEST(RibbonTest, BitsPerKeyNearTheBound) {
  for (double p : {0.1, 0.01, 0.001, 0.0001}) {
    const double bound = 1.08 * std::log2(1 / p) + 0.1;
    for (uint64_t n = 100000; n <= 100000000; n = n * 3 + 7) {
      const FilterShape shape = RibbonShapeFor(p, n);
      const double bits_per_key =
          static_cast<double>(shape.num_bits + 8 * kRibbonTrailerSize) /
          static_cast<double>(n);
      EXPECT_LE(bits_per_key, bound) << "p=" << p << " n=" << n;
    }
    for (uint64_t n : {100000, 1000000}) {
      const std::string filter = BuildFilter(Shape::kRandom, 3, n, p);
      EXPECT_EQ(8 * filter.size(),
                RibbonShapeFor(p, n).num_bits + 8 * kRibbonTrailerSize);
      EXPECT_LE(8.0 * static_cast<double>(filter.size()) / n, bound) << p;
    }
  }
}

TEST(RibbonTest, TinyFiltersFallBackToBlockedBloom) {
  const BloomParams blocked = ChooseBloomParams(FilterLayout::kBlocked, 0.01);
  uint64_t first_ribbon = 0;
  for (uint64_t n = 1; n < 2000 && first_ribbon == 0; ++n) {
    if (RibbonPays(0.01, blocked, n)) first_ribbon = n;
  }
  std::printf("Ribbon pays from %llu keys at p = 0.01\n",
              static_cast<unsigned long long>(first_ribbon));
  ASSERT_GT(first_ribbon, 1u);
  ASSERT_LT(first_ribbon, 1000u);
  for (uint64_t n : {uint64_t{1}, first_ribbon - 1, first_ribbon, 5000ul}) {
    const std::string filter = BuildFilter(Shape::kUrl, 5, n, 0.01);
    const FilterReader reader(filter);
    ASSERT_TRUE(reader.valid());
    EXPECT_EQ(reader.layout(),
              n < first_ribbon ? FilterLayout::kBlocked : FilterLayout::kRibbon)
        << n;
    FilterBuilder builder(FilterLayout::kRibbon, 0.01);
    EXPECT_EQ(reader.num_bits(), builder.ShapeFor(n).num_bits) << n;
  }
}

TEST(RibbonTest, EmptyFilterMatchesNothing) {
  const std::string filter = BuildFilter(Shape::kRandom, 1, 0, 0.01);
  EXPECT_EQ(filter.size(), kRibbonTrailerSize);
  const FilterReader reader(filter);
  ASSERT_TRUE(reader.valid());
  EXPECT_EQ(reader.layout(), FilterLayout::kRibbon);
  uint64_t state = 99;
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(reader.MayContainHash(RandomHash(&state)));
  }
}

// A filter of one section (all keys in section 1, c bits, b blocks), its
// body from BuildRibbonSection, in the format of table/FORMAT.md.
std::string OneSectionFilter(const std::vector<uint8_t>& body, uint64_t n,
                             int c, uint32_t blocks, int seed) {
  std::string f(body.begin(), body.end());
  f.resize(body.size() + kRibbonTrailerSize);
  char* t = f.data() + body.size();
  EncodeFixed64(t, n);
  EncodeFixed64(t + 8, 0);  // threshold 0: every key in section 1
  EncodeFixed32(t + 16, 0);
  EncodeFixed32(t + 20, blocks);
  t[24] = static_cast<char>(c - 1);
  t[25] = 0;
  t[26] = static_cast<char>(seed);
  t[27] = static_cast<char>(FilterLayout::kRibbon);
  t[28] = static_cast<char>(kBloomMagic & 0xff);
  t[29] = static_cast<char>(kBloomMagic >> 8);
  return f;
}

// A section that cannot band under any seed reports it; one that can
// records the seed that worked, and with little slack seeds > 0 occur and
// answer correctly.
TEST(RibbonTest, FailedBandingRetriesThenGivesUp) {
  uint64_t state = 4242;
  std::vector<uint64_t> hashes(300);
  for (uint64_t& h : hashes) h = RandomHash(&state);
  std::sort(hashes.begin(), hashes.end());
  std::vector<uint8_t> body(3 * 16 * 7);
  // More keys than slots: every seed fails.
  EXPECT_EQ(
      BuildRibbonSection(hashes.data(), hashes.data() + 300, 7, 2, body.data()),
      -1);
  EXPECT_EQ(
      BuildRibbonSection(hashes.data(), hashes.data() + 129, 7, 1, body.data()),
      -1);

  // 3000 keys in 3072 slots (2.4% slack, less than RibbonBlocksFor gives):
  // a few percent of first seeds fail.
  const uint64_t n = 3000;
  const uint32_t blocks = 24;
  int retried = 0;
  for (int f = 0; f < 200; ++f) {
    std::vector<uint64_t> keys(n);
    for (uint64_t& h : keys) h = RandomHash(&state);
    std::sort(keys.begin(), keys.end());
    std::vector<uint8_t> section(blocks * 16 * 7);
    const int seed = BuildRibbonSection(keys.data(), keys.data() + n, 7, blocks,
                                        section.data());
    ASSERT_GE(seed, 0);
    if (seed > 0) ++retried;
    const std::string filter = OneSectionFilter(section, n, 7, blocks, seed);
    const FilterReader reader(filter);
    ASSERT_EQ(reader.layout(), FilterLayout::kRibbon);
    for (uint64_t h : keys) ASSERT_TRUE(reader.MayContainHash(h)) << seed;
  }
  std::printf("%d of 200 sections needed a second seed\n", retried);
  EXPECT_GT(retried, 0);
  EXPECT_LT(retried, 200 / 4);
}

TEST(RibbonTest, DamagedFiltersMatchEverything) {
  const std::string good = BuildFilter(Shape::kRandom, 11, 2000, 0.01);
  ASSERT_EQ(FilterReader(good).layout(), FilterLayout::kRibbon);
  std::vector<std::string> bad = {
      good.substr(1),                   // truncated at the front
      good.substr(0, good.size() - 1),  // truncated at the end
      good.substr(0, kRibbonTrailerSize - 1),
      good.substr(good.size() - kRibbonTrailerSize + 1),
  };
  std::string unknown_tag = good;
  unknown_tag[unknown_tag.size() - 3] = 3;
  bad.push_back(unknown_tag);
  std::string too_many_bits = good;
  too_many_bits[too_many_bits.size() - kRibbonTrailerSize + 24] = 64;
  bad.push_back(too_many_bits);
  std::string more_blocks = good;
  ++more_blocks[more_blocks.size() - kRibbonTrailerSize + 16];
  bad.push_back(more_blocks);
  uint64_t state = 5;
  for (const std::string& f : bad) {
    const FilterReader reader(f);
    EXPECT_FALSE(reader.valid()) << f.size();
    for (int i = 0; i < 100; ++i) {
      EXPECT_TRUE(reader.MayContainHash(RandomHash(&state)));
    }
  }
}

TEST(RibbonTest, PolicyBuildsAndReadsRibbon) {
  auto created = FilterPolicy::Create(0.01, FilterLayout::kRibbon);
  ASSERT_TRUE(created.ok()) << created.status();
  const FilterPolicy& policy = **created;
  EXPECT_EQ(policy.layout(), FilterLayout::kRibbon);
  std::vector<std::string> keys;
  ForEachKey(Shape::kUrl, 8, false, 20000,
             [&](std::string_view k) { keys.emplace_back(k); });
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::string filter;
  policy.CreateFilter(views, &filter);
  EXPECT_EQ(8 * (filter.size() - kRibbonTrailerSize),
            policy.ShapeFor(20000).num_bits);
  for (const std::string& k : keys) ASSERT_TRUE(policy.KeyMayMatch(k, filter));
  uint64_t hits = 0;
  const uint64_t probes = 200000;
  ForEachKey(Shape::kUrl, 8, true, probes, [&](std::string_view k) {
    hits += policy.KeyMayMatch(k, filter) ? 1 : 0;
  });
  EXPECT_NEAR(static_cast<double>(hits) / probes / 0.01, 1.0, 0.15);
}

bool LongTests() {
  const char* env = std::getenv("SIFT_LONG_TESTS");
  return env != nullptr && std::string_view(env) == "1";
}

// SIFT_LONG_TESTS=1: the 10-million-key rows of util/ribbon.h's table.
TEST(RibbonTest, TenMillionKeys) {
  if (!LongTests()) GTEST_SKIP() << "set SIFT_LONG_TESTS=1";
  const uint64_t n = 10000000;
  for (double p : {0.1, 0.01, 0.001, 0.0001}) {
    const std::string filter = BuildFilter(Shape::kRandom, 21, n, p);
    const FilterReader reader(filter);
    ASSERT_EQ(reader.layout(), FilterLayout::kRibbon);
    const uint64_t probes = static_cast<uint64_t>(1000 / p);
    const double fp = MeasureFp(reader, Shape::kRandom, 21, probes);
    const double bits = 8.0 * static_cast<double>(filter.size()) / n;
    std::printf(
        "p=%-7g bits/key %.3f (%.4f x log2(1/p)) model %.5g "
        "measured %.5g over %llu\n",
        p, bits, bits / std::log2(1 / p), reader.ExpectedFpRate(), fp,
        static_cast<unsigned long long>(probes));
    EXPECT_NEAR(fp / p, 1.0, 0.15) << p;
    EXPECT_LE(bits, 1.08 * std::log2(1 / p) + 0.1) << p;
  }
}

// The hash whose row starts at slot `start` of a section of num_slots slots
// under seed 0: RowFor maps h to FastRange(h * SeedMultiplier(0), ...), and
// the multiplier is odd, so it has an inverse mod 2^64.
uint64_t HashStartingAt(uint64_t start, uint64_t num_slots) {
  const uint64_t mult = ribbon_internal::SeedMultiplier(0);
  uint64_t inverse = mult;  // Newton: each step doubles the correct bits
  for (int i = 0; i < 6; ++i) inverse *= 2 - mult * inverse;
  const uint64_t range = num_slots - kRibbonBlockSlots + 1;
  const auto x = static_cast<uint64_t>(
      ((static_cast<ribbon_internal::U128>(start) << 64) + range - 1) / range);
  return x * inverse;
}

// A query reads three 64-bit words per column, chosen by where its row
// starts in a block (offset 0 and 64 are the edges of that choice, and a
// row at the last start lies in the last block alone); keys starting at
// each of those places are all found.
TEST(RibbonTest, RowsAtBlockEdgesAreFound) {
  // p = 2^-7: one section (r + 1 = 7 bits) of every key.
  const double p = std::ldexp(1.0, -7);
  constexpr uint64_t kRandomKeys = 3000;
  const std::vector<uint64_t> offsets = {0, 1, 63, 64, 65, 127};
  const uint64_t n = kRandomKeys + 2 * offsets.size();
  const uint64_t num_slots = RibbonBlocksFor(n) * kRibbonBlockSlots;
  const uint64_t last = num_slots - kRibbonBlockSlots;
  std::vector<uint64_t> edges;
  for (uint64_t o : offsets) {
    edges.push_back(HashStartingAt(kRibbonBlockSlots + o, num_slots));
    edges.push_back(HashStartingAt(last - (o == 0 ? 0 : 128 - o), num_slots));
  }
  for (uint64_t h : edges) {
    const uint64_t start =
        ribbon_internal::RowFor(h, 0, num_slots).start % kRibbonBlockSlots;
    EXPECT_NE(std::find(offsets.begin(), offsets.end(), start), offsets.end());
  }
  uint64_t state = 2024;
  std::vector<uint64_t> hashes = edges;
  while (hashes.size() < n) hashes.push_back(RandomHash(&state));
  std::sort(hashes.begin(), hashes.end());
  ASSERT_EQ(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::string filter;
  ASSERT_TRUE(BuildRibbonFilter(hashes, p, &filter));
  RibbonFilterReader reader;
  ASSERT_TRUE(reader.Parse(filter));
  ASSERT_EQ(reader.num_probes(), 7);
  // The rows above assumed seed 0 for the one section (byte 26 of the
  // trailer); these fixed keys band with it.
  ASSERT_EQ(filter[filter.size() - kRibbonTrailerSize + 26], 0);
  ASSERT_EQ(8 * (filter.size() - kRibbonTrailerSize), num_slots * 7);
  for (uint64_t h : edges) EXPECT_TRUE(reader.MayContainHash(h)) << h;
}

// SIFT_LONG_TESTS=1: failure rate of the first seed by section size at the
// slack RibbonBlocksFor chooses (the data behind its constants).
TEST(RibbonTest, SlackKeepsFailuresRare) {
  if (!LongTests()) GTEST_SKIP() << "set SIFT_LONG_TESTS=1";
  uint64_t state = 77;
  for (uint64_t n : {100, 1000, 10000, 100000, 1000000, 10000000}) {
    const int trials = n >= 1000000 ? 10 : 100;
    const uint64_t blocks = RibbonBlocksFor(n);
    std::vector<uint64_t> hashes(n);
    std::vector<uint8_t> body(blocks * 16 * 7);
    int failed_attempts = 0;
    for (int t = 0; t < trials; ++t) {
      for (uint64_t& h : hashes) h = RandomHash(&state);
      std::sort(hashes.begin(), hashes.end());
      const int seed = BuildRibbonSection(hashes.data(), hashes.data() + n, 7,
                                          blocks, body.data());
      failed_attempts += seed < 0 ? kRibbonMaxAttempts : seed;
    }
    std::printf("n=%-9llu slots/key %.4f: %d failed of %d attempts\n",
                static_cast<unsigned long long>(n),
                static_cast<double>(blocks * kRibbonBlockSlots) / n,
                failed_attempts, trials + failed_attempts);
    EXPECT_LT(failed_attempts, trials / 4 + 1) << n;
  }
}

}  // namespace
}  // namespace sift
