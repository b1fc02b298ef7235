// Tests of the Bloom filter's sizing and false-positive rates (util/bloom.h).
// The damaged-filter and format tests are in bloom_format_test.cc, the public
// API's in filter_policy_test.cc.
//
// The statistical tests are deterministic: each prints its seed, and
// SIFT_TEST_SEED=<seed> replays (or varies) it. Bounds are +-15% of the
// target with at least 2000 expected false positives (about 7 standard
// deviations), so a failure means a real excess, not noise.
// SIFT_LONG_TESTS=1 adds the 10-million-key measurements quoted in
// util/bloom.h (about 2 minutes). A sanitizer build asserts no rate: it
// builds and probes every case for memory errors and false negatives.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/filter_policy.h"
#include "tests/bloom_test_keys.h"
#include "tests/testutil/testutil.h"
#include "util/filter.h"
#include "util/hash.h"

namespace sift {
namespace {

using bloom_test::ForEachKey;
using bloom_test::kLayouts;
using bloom_test::kShapes;
using bloom_test::LayoutName;
using bloom_test::Shape;
using bloom_test::ShapeName;

double Textbook(double p) { return -std::log(p) / (std::log(2) * std::log(2)); }

bool LongTests() {
  const char* env = std::getenv("SIFT_LONG_TESTS");
  return env != nullptr && std::string_view(env) == "1";
}

// ---- Building and measuring -------------------------------------------------

struct Built {
  std::string filter;
  FilterShape shape;
};

Built BuildFilter(FilterLayout layout, double p, Shape shape, uint64_t seed,
                  uint64_t n) {
  FilterBuilder builder(layout, p);
  ForEachKey(shape, seed, false, n,
             [&](std::string_view k) { builder.AddHash(KeyHash(k)); });
  Built built;
  builder.Finish(&built.filter);
  built.shape = builder.last_shape();
  return built;
}

// Number of added keys the filter misses (must be 0).
uint64_t CountFalseNegatives(const FilterReader& reader, Shape shape,
                             uint64_t seed, uint64_t n) {
  uint64_t misses = 0;
  ForEachKey(shape, seed, false, n, [&](std::string_view k) {
    misses += reader.MayContainHash(KeyHash(k)) ? 0 : 1;
  });
  return misses;
}

double MeasureFp(const FilterReader& reader, Shape shape, uint64_t seed,
                 uint64_t probes) {
  uint64_t hits = 0;
  ForEachKey(shape, seed, true, probes, [&](std::string_view k) {
    hits += reader.MayContainHash(KeyHash(k)) ? 1 : 0;
  });
  return static_cast<double>(hits) / static_cast<double>(probes);
}

// Enough probes for `expected_fps` false positives at rate p.
uint64_t ProbesFor(double p, double expected_fps, uint64_t minimum) {
  return std::max<uint64_t>(minimum,
                            static_cast<uint64_t>(std::ceil(expected_fps / p)));
}

struct FpCase {
  FilterLayout layout;
  double p;
  Shape shape;
  uint64_t n;
};

// Probes of a sanitized run: enough to take every probe path, no statistics.
constexpr uint64_t kSanitizerProbes = 20000;

// Builds, checks for false negatives, measures, prints one table row and
// checks the measured rate is within +-15% of p. A sanitizer build stops
// after a few probes: the rate is the plain build's to measure.
void CheckFpRate(const FpCase& c, uint64_t seed, double expected_fps) {
  const Built built = BuildFilter(c.layout, c.p, c.shape, seed, c.n);
  const FilterReader reader(built.filter);
  ASSERT_TRUE(reader.valid());
  EXPECT_EQ(CountFalseNegatives(reader, c.shape, seed, c.n), 0u);
  if (test::kSanitizerBuild) {
    MeasureFp(reader, c.shape, seed, kSanitizerProbes);
    return;
  }
  const uint64_t probes = ProbesFor(c.p, expected_fps, 1000000);
  const double fp = MeasureFp(reader, c.shape, seed, probes);
  const double bpk = 8.0 * built.filter.size() / c.n;
  std::printf(
      "  %-8s p=%-7g shape=%-9s n=%-9llu bits/key=%6.3f (%+5.1f%% vs "
      "textbook) k=%2d model=%.4g measured=%.4g (%+5.1f%%) probes=%llu "
      "seed=%llu\n",
      LayoutName(c.layout), c.p, ShapeName(c.shape),
      static_cast<unsigned long long>(c.n), bpk,
      100 * (bpk / Textbook(c.p) - 1), reader.num_probes(),
      reader.ExpectedFpRate(), fp, 100 * (fp / c.p - 1),
      static_cast<unsigned long long>(probes),
      static_cast<unsigned long long>(seed));
  EXPECT_GE(fp, 0.85 * c.p);
  EXPECT_LE(fp, 1.15 * c.p);
}

// ---- The model
// ----------------------------------------------------------------

TEST(BloomModelTest, StandardMatchesTextbookFormula) {
  // 10 bits per key, 7 probes: (1 - e^-0.7)^7 = 0.8194%.
  EXPECT_NEAR(StandardFpRate(10, 7), 0.008194, 1e-6);
  EXPECT_NEAR(StandardFpRate(Textbook(0.01), 7), 0.01, 0.0001);
  EXPECT_EQ(StandardFpRate(0, 3), 1.0);
}

TEST(BloomModelTest, BlockedCostsMoreThanStandard) {
  for (double b : {2.0, 5.0, 10.0, 15.0, 22.0, 40.0}) {
    for (int k : {1, 2, 3, 6, 9, 12, 20}) {
      const double standard = StandardFpRate(b, k);
      const double putze = BlockedFpRatePutze(b, k);
      const double blocked = BlockedFpRate(b, k);
      // Averaging over blocks raises the rate where it is convex in the
      // keys per block, which is wherever a filter is useful.
      if (standard < 0.2) {
        EXPECT_LE(standard, putze * (1 + 1e-9)) << b << " " << k;
      }
      EXPECT_LE(putze, blocked * (1 + 1e-9)) << b << " " << k;
    }
    // One probe: every model is exactly 1 - e^(-1/b).
    EXPECT_NEAR(BlockedFpRate(b, 1), -std::expm1(-1 / b), 1e-9);
  }
}

TEST(BloomModelTest, ChosenParamsMeetTarget) {
  for (FilterLayout layout : kLayouts) {
    for (double p :
         {0.9, 0.5, 0.3, 0.1, 0.037, 0.01, 0.001, 1e-4, 1e-6, 1e-9, 1e-12}) {
      const BloomParams params = ChooseBloomParams(layout, p);
      const double fp =
          ModelFpRate(layout, params.bits_per_key, params.num_probes);
      EXPECT_LE(fp, p * (1 + 1e-6)) << LayoutName(layout) << " " << p;
      EXPECT_GE(params.num_probes, 1);
      EXPECT_LE(params.num_probes, kBloomMaxProbes);
      if (layout == FilterLayout::kBlocked) {
        // Least bits: 0.5% fewer misses p with every k.
        for (int k = 1; k <= kBloomMaxProbes; ++k) {
          EXPECT_GT(BlockedFpRate(params.bits_per_key * 0.995, k), p) << p;
        }
      } else if (p <= 0.5) {
        EXPECT_NEAR(params.bits_per_key / Textbook(p), 1.0, 0.01) << p;
      }
    }
  }
  // Below the floor, the floor.
  EXPECT_EQ(ChooseBloomParams(FilterLayout::kBlocked, 1e-20).bits_per_key,
            ChooseBloomParams(FilterLayout::kBlocked, 1e-12).bits_per_key);
}

TEST(BloomModelTest, BlockedOverheadOverTextbook) {
  // Expected: about +1%, +3.5%, +8%, +15% (util/bloom.h); never over 20%.
  const struct {
    double p, lo, hi;
  } cases[] = {{0.1, 0.005, 0.015},
               {0.01, 0.025, 0.045},
               {0.001, 0.07, 0.095},
               {0.0001, 0.135, 0.165}};
  for (const auto& c : cases) {
    const BloomParams params = ChooseBloomParams(FilterLayout::kBlocked, c.p);
    const double overhead = params.bits_per_key / Textbook(c.p) - 1;
    std::printf("  p=%g blocked bits/key=%.3f (%+.2f%%) k=%d\n", c.p,
                params.bits_per_key, 100 * overhead, params.num_probes);
    EXPECT_GE(overhead, c.lo) << c.p;
    EXPECT_LE(overhead, c.hi) << c.p;
  }
}

// ---- Sizes ------------------------------------------------------------------

TEST(BloomShapeTest, BitsPerKeyOfLargeFilters) {
  constexpr uint64_t kN = 1000000;
  for (double p : {0.1, 0.01, 0.001, 0.0001}) {
    for (FilterLayout layout : kLayouts) {
      const Built built = BuildFilter(layout, p, Shape::kRandom, 1, kN);
      // Everything counted, trailer included.
      const double bpk = 8.0 * built.filter.size() / kN;
      const double overhead = bpk / Textbook(p) - 1;
      if (layout == FilterLayout::kStandard) {
        EXPECT_LT(std::abs(overhead), 0.05) << p;
        EXPECT_LT(overhead, 0.005) << p;  // in fact within rounding
      } else {
        const BloomParams params = ChooseBloomParams(layout, p);
        EXPECT_NEAR(bpk, params.bits_per_key, 0.001) << p;
        EXPECT_LT(overhead, 0.20) << p;
      }
      EXPECT_EQ(built.shape.num_keys, kN);
      EXPECT_EQ(built.filter.size(),
                built.shape.num_bits / 8 + kBloomTrailerSize);
    }
  }
}

TEST(BloomShapeTest, StandardProbesFollowTextbook) {
  // k = round((m / n) ln 2).
  const struct {
    double p;
    int k;
  } cases[] = {{0.1, 3}, {0.01, 7}, {0.001, 10}, {0.0001, 13}};
  for (const auto& c : cases) {
    FilterBuilder builder(FilterLayout::kStandard, c.p);
    const FilterShape shape = builder.ShapeFor(1000000);
    EXPECT_EQ(shape.num_probes, c.k) << c.p;
    EXPECT_NEAR(shape.bits_per_key(), Textbook(c.p), 0.01 * Textbook(c.p));
  }
}

TEST(BloomShapeTest, SmallFiltersHaveMinimumSize) {
  for (FilterLayout layout : kLayouts) {
    FilterBuilder builder(layout, 0.01);
    const uint64_t min_bits =
        layout == FilterLayout::kBlocked ? 512 : kBloomMinStandardBits;
    for (uint64_t n : {0, 1, 2, 3}) {
      EXPECT_EQ(builder.ShapeFor(n).num_bits, min_bits) << n;
    }
    // Growth is monotone in n and never below the asymptotic bits per key.
    uint64_t last = 0;
    for (uint64_t n = 1; n < 5000; n += 7) {
      const FilterShape shape = builder.ShapeFor(n);
      EXPECT_GE(shape.num_bits, last);
      EXPECT_GE(shape.bits_per_key(), builder.params().bits_per_key * 0.999);
      last = shape.num_bits;
    }
  }
}

// ---- False-positive rates ------------------------------------------------

class BloomFpTest
    : public testing::TestWithParam<std::tuple<FilterLayout, double>> {};

TEST_P(BloomFpTest, MeasuredRateMatchesTarget) {
  const auto [layout, p] = GetParam();
  const uint64_t seed = test::TestSeed(301);
  CheckFpRate({layout, p, Shape::kUrl, 200000}, seed, 2000);
}

INSTANTIATE_TEST_SUITE_P(
    LayoutsAndTargets, BloomFpTest,
    testing::Combine(testing::ValuesIn(kLayouts),
                     testing::Values(0.1, 0.01, 0.001, 0.0001)),
    [](const auto& info) {
      return absl::StrCat(
          LayoutName(std::get<0>(info.param)), "_p",
          static_cast<int>(std::lround(-std::log10(std::get<1>(info.param)))));
    });

// Key shapes that defeat weak hashing (rocksdb#3780: integer keys).
class BloomKeyShapeTest
    : public testing::TestWithParam<std::tuple<FilterLayout, Shape>> {};

TEST_P(BloomKeyShapeTest, MeasuredRateMatchesTarget) {
  const auto [layout, shape] = GetParam();
  const uint64_t seed = test::TestSeed(302);
  for (double p : {0.01, 0.001}) {
    CheckFpRate({layout, p, shape, 100000}, seed, 2000);
  }
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndShapes, BloomKeyShapeTest,
                         testing::Combine(testing::ValuesIn(kLayouts),
                                          testing::ValuesIn(kShapes)),
                         [](const auto& info) {
                           return absl::StrCat(
                               LayoutName(std::get<0>(info.param)), "_",
                               ShapeName(std::get<1>(info.param)));
                         });

TEST(BloomFpLargeTest, MillionKeys) {
  const uint64_t seed = test::TestSeed(303);
  for (FilterLayout layout : kLayouts) {
    CheckFpRate({layout, 0.001, Shape::kBigEndian, 1000000}, seed, 3000);
  }
}

// The measurements recorded in util/bloom.h (about 4 minutes).
TEST(BloomFpLargeTest, TenMillionKeys) {
  if (!LongTests()) GTEST_SKIP() << "set SIFT_LONG_TESTS=1";
  const uint64_t seed = test::TestSeed(304);
  for (FilterLayout layout : kLayouts) {
    for (double p : {0.1, 0.01, 0.001, 0.0001}) {
      CheckFpRate({layout, p, Shape::kRandom, 10000000}, seed, 4000);
    }
  }
}

// Many small filters: rounding must never let the rate exceed p.
TEST(BloomFpSmallTest, SmallFiltersStayBelowTarget) {
  const uint64_t seed = test::TestSeed(305);
  std::printf("  seed=%llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (FilterLayout layout : kLayouts) {
    for (double p : {0.1, 0.01}) {
      for (uint64_t n : {1, 2, 3, 5, 8, 13, 30, 64, 100, 300, 1000, 5000}) {
        FilterBuilder builder(layout, p);
        // One small filter's rate varies a lot with its own layout of bits
        // (+-40% at n = 8), so average over many filters.
        // A sanitizer build checks a few filters' false negatives only.
        const uint64_t probes_per_filter = 1000;
        const uint64_t filters =
            test::kSanitizerBuild ? 10 : (n <= 300 ? 3000 : 300);
        uint64_t hits = 0;
        std::string filter;
        std::vector<uint64_t> added(n);
        for (uint64_t f = 0; f < filters; ++f) {
          for (uint64_t& h : added) {
            h = rng();
            builder.AddHash(h);
          }
          filter.clear();
          builder.Finish(&filter);
          const FilterReader reader(filter);
          ASSERT_TRUE(reader.valid());
          for (uint64_t h : added) ASSERT_TRUE(reader.MayContainHash(h));
          for (uint64_t i = 0; i < probes_per_filter; ++i) {
            hits += reader.MayContainHash(rng()) ? 1 : 0;
          }
        }
        const double fp = static_cast<double>(hits) /
                          static_cast<double>(filters * probes_per_filter);
        std::printf("  %-8s p=%-5g n=%-5llu bits/key=%7.2f measured=%.4g\n",
                    LayoutName(layout), p, static_cast<unsigned long long>(n),
                    builder.last_shape().bits_per_key(), fp);
        if (!test::kSanitizerBuild) {
          EXPECT_LE(fp, 1.05 * p) << LayoutName(layout) << " n=" << n;
        }
      }
    }
  }
}

// ---- Exactness: no false negatives, n = 0, 1, 2, duplicates ---------------

TEST(BloomBuildTest, EmptyFilterMatchesNothing) {
  for (FilterLayout layout : kLayouts) {
    FilterBuilder builder(layout, 0.01);
    std::string filter;
    builder.Finish(&filter);
    const FilterReader reader(filter);
    ASSERT_TRUE(reader.valid());
    EXPECT_EQ(reader.num_keys(), 0u);
    EXPECT_EQ(reader.layout(), layout);
    EXPECT_EQ(reader.ExpectedFpRate(), 0.0);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10000; ++i) EXPECT_FALSE(reader.MayContainHash(rng()));
  }
}

TEST(BloomBuildTest, OneAndTwoKeys) {
  for (FilterLayout layout : kLayouts) {
    for (double p : {0.5, 0.1, 0.01, 1e-6}) {
      FilterBuilder builder(layout, p);
      std::string one, two;
      builder.AddHash(KeyHash("alpha"));
      builder.Finish(&one);
      builder.AddHash(KeyHash("alpha"));
      builder.AddHash(KeyHash("beta"));
      builder.Finish(&two);
      const FilterReader r1(one), r2(two);
      ASSERT_TRUE(r1.valid() && r2.valid());
      EXPECT_EQ(r1.num_keys(), 1u);
      EXPECT_EQ(r2.num_keys(), 2u);
      EXPECT_TRUE(r1.MayContainHash(KeyHash("alpha")));
      EXPECT_TRUE(r2.MayContainHash(KeyHash("alpha")));
      EXPECT_TRUE(r2.MayContainHash(KeyHash("beta")));
    }
  }
}

TEST(BloomBuildTest, NoFalseNegatives) {
  const uint64_t seed = test::TestSeed(306);
  std::printf("  seed=%llu\n", static_cast<unsigned long long>(seed));
  for (FilterLayout layout : kLayouts) {
    for (double p : {0.9, 0.3, 0.01, 1e-5, 1e-12}) {
      for (Shape shape : kShapes) {
        for (uint64_t n : {1, 10, 1000, 30000}) {
          const Built built = BuildFilter(layout, p, shape, seed, n);
          const FilterReader reader(built.filter);
          ASSERT_TRUE(reader.valid());
          EXPECT_EQ(CountFalseNegatives(reader, shape, seed, n), 0u)
              << LayoutName(layout) << " p=" << p << " " << ShapeName(shape)
              << " n=" << n;
        }
      }
    }
  }
}

TEST(BloomBuildTest, DuplicatesCountOnce) {
  // 1000 x 3 hashes take the std::sort path, 5000 x 3 the radix sort.
  for (FilterLayout layout : kLayouts) {
    for (uint64_t distinct : {1000, 5000}) {
      FilterBuilder builder(layout, 0.01);
      for (int round = 0; round < 3; ++round) {
        for (uint64_t h = 0; h < distinct; ++h) {
          builder.AddHash(h * 0x9e3779b97f4a7c15ULL);
        }
      }
      EXPECT_EQ(builder.num_hashes(), 3 * distinct);
      std::string filter = "prefix";
      builder.Finish(&filter);  // appends
      EXPECT_EQ(builder.num_hashes(), 0u);
      EXPECT_EQ(builder.last_shape().num_keys, distinct);
      ASSERT_EQ(filter.substr(0, 6), "prefix");
      const FilterReader reader(std::string_view(filter).substr(6));
      ASSERT_TRUE(reader.valid());
      EXPECT_EQ(reader.num_keys(), distinct);
      EXPECT_EQ(reader.num_bits(), builder.ShapeFor(distinct).num_bits);
      for (uint64_t h = 0; h < distinct; ++h) {
        ASSERT_TRUE(reader.MayContainHash(h * 0x9e3779b97f4a7c15ULL));
      }
    }
  }
}

TEST(BloomBuildTest, ReaderReportsItsParameters) {
  for (FilterLayout layout : kLayouts) {
    const Built built = BuildFilter(layout, 0.001, Shape::kUrl, 7, 100000);
    const FilterReader reader(built.filter);
    ASSERT_TRUE(reader.valid());
    EXPECT_EQ(reader.layout(), layout);
    EXPECT_EQ(reader.num_keys(), 100000u);
    EXPECT_EQ(reader.num_bits(), built.shape.num_bits);
    EXPECT_EQ(reader.num_probes(), built.shape.num_probes);
    EXPECT_DOUBLE_EQ(reader.bits_per_key(), built.shape.bits_per_key());
    EXPECT_NEAR(reader.ExpectedFpRate(), 0.001, 0.00005);
    // Prefetch touches nothing observable; it must merely be safe.
    for (uint64_t h = 0; h < 1000; ++h)
      reader.Prefetch(h * 0x9e3779b97f4a7c15ULL);
  }
}

}  // namespace
}  // namespace sift
