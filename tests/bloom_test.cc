// Tests of the Bloom filter (util/bloom.h) and sift::FilterPolicy.
//
// The statistical tests are deterministic: each prints its seed, and
// SIFT_TEST_SEED=<seed> replays (or varies) it. Bounds are +-15% of the
// target with at least 2000 expected false positives (about 7 standard
// deviations), so a failure means a real excess, not noise.
// SIFT_LONG_TESTS=1 adds the 10-million-key measurements quoted in
// util/bloom.h.

#include "util/bloom.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "sift/filter_policy.h"
#include "tests/testutil/testutil.h"
#include "util/coding.h"
#include "util/hash.h"

namespace sift {
namespace {

constexpr FilterLayout kLayouts[] = {FilterLayout::kStandard,
                                     FilterLayout::kBlocked};

const char* LayoutName(FilterLayout layout) {
  return layout == FilterLayout::kBlocked ? "blocked" : "standard";
}

double Textbook(double p) { return -std::log(p) / (std::log(2) * std::log(2)); }

bool LongTests() {
  const char* env = std::getenv("SIFT_LONG_TESTS");
  return env != nullptr && std::string_view(env) == "1";
}

// ---- Key shapes -------------------------------------------------------------

enum class Shape { kUrl, kBigEndian, kLastByte, kRandom };
constexpr Shape kShapes[] = {Shape::kUrl, Shape::kBigEndian, Shape::kLastByte,
                             Shape::kRandom};

const char* ShapeName(Shape shape) {
  switch (shape) {
    case Shape::kUrl:
      return "url";
    case Shape::kBigEndian:
      return "bigendian";
    case Shape::kLastByte:
      return "lastbyte";
    case Shape::kRandom:
      return "random";
  }
  return "?";
}

// Calls fn(key) for keys i = 0..count-1 of one shape. Added keys
// (probe = false) and probe keys (probe = true) never coincide:
//   kUrl       URL-like strings with the index in the path
//   kBigEndian 8-byte big-endian integers: consecutive for added keys,
//              consecutive from 2^40 for probes (rocksdb#3780's case)
//   kLastByte  groups of 128 keys sharing a 24-byte random prefix; added
//              keys end in an even byte, probes in an odd one, so every probe
//              differs from an added key in its last byte only
//   kRandom    12..31 random bytes (96+ random bits: no collisions)
template <typename Fn>
void ForEachKey(Shape shape, uint64_t seed, bool probe, uint64_t count,
                Fn&& fn) {
  std::mt19937_64 rng(seed * 2 + (probe ? 1 : 0));
  std::string key;
  for (uint64_t i = 0; i < count; ++i) {
    switch (shape) {
      case Shape::kUrl:
        key =
            absl::StrCat("https://www.example.com/", probe ? "p" : "a",
                         "/users/", i, "/profile?tab=", i % 7, "&seed=", seed);
        break;
      case Shape::kBigEndian: {
        const uint64_t v =
            (probe ? (uint64_t{1} << 40) : 0) + i + ((seed & 0xff) << 48);
        key.resize(8);
        for (int b = 0; b < 8; ++b)
          key[b] = static_cast<char>(v >> (56 - 8 * b));
        break;
      }
      case Shape::kLastByte: {
        const uint64_t group = i / 128;
        if (i % 128 == 0) {
          std::mt19937_64 prefix_rng(seed ^ (group * 0x9e3779b97f4a7c15ULL));
          key.resize(25);
          for (int b = 0; b < 24; ++b) key[b] = static_cast<char>(prefix_rng());
        }
        key[24] = static_cast<char>(2 * (i % 128) + (probe ? 1 : 0));
        break;
      }
      case Shape::kRandom: {
        key.resize(12 + rng() % 20);
        for (char& c : key) c = static_cast<char>(rng());
        break;
      }
    }
    fn(std::string_view(key));
  }
}

// ---- Building and measuring -------------------------------------------------

struct Built {
  std::string filter;
  FilterShape shape;
};

Built BuildFilter(FilterLayout layout, double p, Shape shape, uint64_t seed,
                  uint64_t n) {
  BloomFilterBuilder builder(layout, p);
  ForEachKey(shape, seed, false, n,
             [&](std::string_view k) { builder.AddHash(KeyHash(k)); });
  Built built;
  builder.Finish(&built.filter);
  built.shape = builder.last_shape();
  return built;
}

// Number of added keys the filter misses (must be 0).
uint64_t CountFalseNegatives(const BloomFilterReader& reader, Shape shape,
                             uint64_t seed, uint64_t n) {
  uint64_t misses = 0;
  ForEachKey(shape, seed, false, n, [&](std::string_view k) {
    misses += reader.MayContainHash(KeyHash(k)) ? 0 : 1;
  });
  return misses;
}

double MeasureFp(const BloomFilterReader& reader, Shape shape, uint64_t seed,
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

// Builds, checks for false negatives, measures, prints one table row and
// checks the measured rate is within +-15% of p.
void CheckFpRate(const FpCase& c, uint64_t seed, double expected_fps) {
  const Built built = BuildFilter(c.layout, c.p, c.shape, seed, c.n);
  const BloomFilterReader reader(built.filter);
  ASSERT_TRUE(reader.valid());
  EXPECT_EQ(CountFalseNegatives(reader, c.shape, seed, c.n), 0u);
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
    BloomFilterBuilder builder(FilterLayout::kStandard, c.p);
    const FilterShape shape = builder.ShapeFor(1000000);
    EXPECT_EQ(shape.num_probes, c.k) << c.p;
    EXPECT_NEAR(shape.bits_per_key(), Textbook(c.p), 0.01 * Textbook(c.p));
  }
}

TEST(BloomShapeTest, SmallFiltersHaveMinimumSize) {
  for (FilterLayout layout : kLayouts) {
    BloomFilterBuilder builder(layout, 0.01);
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
        BloomFilterBuilder builder(layout, p);
        // One small filter's rate varies a lot with its own layout of bits
        // (+-40% at n = 8), so average over many filters.
        const uint64_t probes_per_filter = 1000;
        const uint64_t filters = n <= 300 ? 3000 : 300;
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
          const BloomFilterReader reader(filter);
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
        EXPECT_LE(fp, 1.05 * p) << LayoutName(layout) << " n=" << n;
      }
    }
  }
}

// ---- Exactness: no false negatives, n = 0, 1, 2, duplicates ---------------

TEST(BloomBuildTest, EmptyFilterMatchesNothing) {
  for (FilterLayout layout : kLayouts) {
    BloomFilterBuilder builder(layout, 0.01);
    std::string filter;
    builder.Finish(&filter);
    const BloomFilterReader reader(filter);
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
      BloomFilterBuilder builder(layout, p);
      std::string one, two;
      builder.AddHash(KeyHash("alpha"));
      builder.Finish(&one);
      builder.AddHash(KeyHash("alpha"));
      builder.AddHash(KeyHash("beta"));
      builder.Finish(&two);
      const BloomFilterReader r1(one), r2(two);
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
          const BloomFilterReader reader(built.filter);
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
      BloomFilterBuilder builder(layout, 0.01);
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
      const BloomFilterReader reader(std::string_view(filter).substr(6));
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
    const BloomFilterReader reader(built.filter);
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

// ---- Damaged and foreign filters ----------------------------------------

// A reader over `filter` that must be invalid, and so match everything.
void ExpectDistrusted(std::string_view filter, const std::string& what) {
  const BloomFilterReader reader(filter);
  EXPECT_FALSE(reader.valid()) << what;
  EXPECT_EQ(reader.ExpectedFpRate(), 1.0) << what;
  for (uint64_t h = 0; h < 64; ++h) {
    EXPECT_TRUE(reader.MayContainHash(h * 0x9e3779b97f4a7c15ULL)) << what;
    reader.Prefetch(h);
  }
}

// A real filter of 1000 URL keys, and the keys' hashes.
struct Sample {
  std::string filter;
  std::vector<uint64_t> hashes;
};

Sample MakeSample(FilterLayout layout, uint64_t n = 1000) {
  Sample s;
  BloomFilterBuilder builder(layout, 0.01);
  ForEachKey(Shape::kUrl, 11, false, n, [&](std::string_view k) {
    s.hashes.push_back(KeyHash(k));
    builder.AddHash(s.hashes.back());
  });
  builder.Finish(&s.filter);
  return s;
}

TEST(BloomCorruptionTest, DefaultReaderMatchesEverything) {
  ExpectDistrusted(std::string_view(), "empty");
  const BloomFilterReader reader;
  EXPECT_FALSE(reader.valid());
  EXPECT_TRUE(reader.MayContainHash(0));
}

TEST(BloomCorruptionTest, EveryTruncationIsDistrusted) {
  for (FilterLayout layout : kLayouts) {
    for (uint64_t n : {0, 1, 2, 1000}) {
      const Sample s = MakeSample(layout, n);
      const std::string_view full(s.filter);
      ASSERT_TRUE(BloomFilterReader(full).valid());
      for (size_t len = 0; len < full.size(); ++len) {
        const std::string what =
            absl::StrCat(LayoutName(layout), " n=", n, " length ", len);
        // Only a heap copy of exactly `len` bytes lets ASan catch any read
        // past the end.
        const std::string copy(full.substr(0, len));
        const BloomFilterReader prefix(copy);
        ASSERT_FALSE(prefix.valid()) << what;
        for (uint64_t h : s.hashes) ASSERT_TRUE(prefix.MayContainHash(h));
        // Dropping leading bytes instead leaves a well-formed trailer over
        // too short a body.
        const std::string suffix(full.substr(full.size() - len));
        ASSERT_FALSE(BloomFilterReader(suffix).valid()) << what;
      }
    }
  }
}

TEST(BloomCorruptionTest, TrailingBytesAreDistrusted) {
  for (FilterLayout layout : kLayouts) {
    const Sample s = MakeSample(layout);
    for (std::string_view extra :
         {std::string_view("\0", 1), std::string_view("x"),
          std::string_view("12345678")}) {
      ExpectDistrusted(s.filter + std::string(extra), "extra bytes");
    }
  }
}

// Rewrites one trailer field of a copy of `filter`.
std::string WithTrailerByte(std::string filter, size_t offset, uint8_t v) {
  filter[filter.size() - kBloomTrailerSize + offset] = static_cast<char>(v);
  return filter;
}
std::string WithTrailerFixed64(std::string filter, size_t offset, uint64_t v) {
  EncodeFixed64(&filter[filter.size() - kBloomTrailerSize + offset], v);
  return filter;
}

TEST(BloomCorruptionTest, InconsistentTrailersAreDistrusted) {
  for (FilterLayout layout : kLayouts) {
    const Sample s = MakeSample(layout);
    const BloomFilterReader good(s.filter);
    ASSERT_TRUE(good.valid());
    const uint64_t bits = good.num_bits();
    // Unknown layout tags, e.g. a future format.
    for (int tag = 2; tag < 256; ++tag) {
      ExpectDistrusted(WithTrailerByte(s.filter, 17, tag), "tag");
    }
    // Probes out of range.
    for (int probes : {0, kBloomMaxProbes + 1, 200, 255}) {
      ExpectDistrusted(WithTrailerByte(s.filter, 16, probes), "probes");
    }
    // Sizes that disagree with the byte length.
    for (uint64_t b :
         {uint64_t{0}, bits - 8, bits - 1, bits + 1, bits + 8, bits + 512,
          bits * 2, bits << 3, bits >> 3, std::numeric_limits<uint64_t>::max(),
          std::numeric_limits<uint64_t>::max() - 7}) {
      ExpectDistrusted(WithTrailerFixed64(s.filter, 0, b),
                       absl::StrCat("num_bits ", b));
    }
    // A key-less filter is always the minimum size.
    ExpectDistrusted(WithTrailerFixed64(s.filter, 8, 0), "no keys");
    // Wrong magic.
    ExpectDistrusted(WithTrailerByte(s.filter, 18, 0x7F), "magic");
    ExpectDistrusted(WithTrailerByte(s.filter, 19, 0x00), "magic");
  }
  // A kStandard body whose size is not a whole number of blocks cannot be
  // read as kBlocked.
  const Sample s = MakeSample(FilterLayout::kStandard);
  ASSERT_NE(BloomFilterReader(s.filter).num_bits() % 512, 0u);
  ExpectDistrusted(WithTrailerByte(s.filter, 17, 1), "relabelled");
}

// Flipping any single trailer bit must never crash or read out of bounds;
// the flips that touch structure must be caught. (Flips inside a well-formed
// filter are the SSTable block checksum's business.)
TEST(BloomCorruptionTest, TrailerBitFlips) {
  for (FilterLayout layout : kLayouts) {
    const Sample s = MakeSample(layout);
    const BloomFilterReader good(s.filter);
    for (size_t byte = 0; byte < kBloomTrailerSize; ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string bad = s.filter;
        bad[bad.size() - kBloomTrailerSize + byte] ^=
            static_cast<char>(1 << bit);
        const BloomFilterReader reader(bad);
        const std::string what = absl::StrCat("byte ", byte, " bit ", bit);
        uint64_t matched = 0;
        for (uint64_t h : s.hashes) matched += reader.MayContainHash(h);
        if (byte < 8 || byte >= 18) {
          EXPECT_FALSE(reader.valid()) << what;  // num_bits, magic
        } else if (byte < 16) {
          // num_keys is descriptive only: same answers.
          EXPECT_TRUE(reader.valid()) << what;
          EXPECT_EQ(matched, s.hashes.size()) << what;
        } else if (byte == 16 && reader.valid() &&
                   reader.num_probes() < good.num_probes()) {
          EXPECT_EQ(matched, s.hashes.size()) << what;  // fewer probes
        }
      }
    }
  }
}

TEST(BloomCorruptionTest, GarbageIsDistrusted) {
  const uint64_t seed = test::TestSeed(307);
  std::printf("  seed=%llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (size_t len = 0; len <= 600; ++len) {
    ExpectDistrusted(std::string(len, '\0'), absl::StrCat("zeros ", len));
    ExpectDistrusted(std::string(len, '\xff'), absl::StrCat("ones ", len));
    for (int round = 0; round < 20; ++round) {
      std::string junk(len, '\0');
      for (char& c : junk) c = static_cast<char>(rng());
      ExpectDistrusted(junk, absl::StrCat("random ", len));
    }
  }
}

// ---- The format
// ---------------------------------------------------------------

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// The worked examples of util/BLOOM_FORMAT.md. If this test fails, the
// on-disk format changed: old files would answer wrongly. Do not "fix" the
// expected bytes; fix the code.
TEST(BloomFormatTest, WorkedExamples) {
  auto policy_filter = [](FilterLayout layout,
                          std::vector<std::string_view> keys) {
    auto policy = FilterPolicy::Create(0.01, layout);
    EXPECT_TRUE(policy.ok());
    std::string filter;
    (*policy)->CreateFilter(keys, &filter);
    return filter;
  };
  EXPECT_EQ(Hex(policy_filter(FilterLayout::kStandard, {})),
            "00 00 00 00 00 00 00 00 "
            "40 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 07 00 7e f1");
  const std::string blocked_empty = policy_filter(FilterLayout::kBlocked, {});
  EXPECT_EQ(blocked_empty.size(), 64 + kBloomTrailerSize);
  EXPECT_EQ(Hex(std::string_view(blocked_empty).substr(64)),
            "00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 06 01 7e f1");
  EXPECT_EQ(Hex(policy_filter(FilterLayout::kStandard, {"siftdb", "bloom"})),
            "40 04 02 40 10 54 a8 00 "
            "40 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 07 00 7e f1");
  const std::string blocked =
      policy_filter(FilterLayout::kBlocked, {"siftdb", "bloom"});
  ASSERT_EQ(blocked.size(), 64 + kBloomTrailerSize);
  EXPECT_EQ(Hex(std::string_view(blocked).substr(0, 32)),
            "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 "
            "00 00 00 00 00 00 00 00 00 88 00 00 00 00 00 00");
  EXPECT_EQ(Hex(std::string_view(blocked).substr(32)),
            "00 01 00 00 00 10 00 00 00 00 00 00 00 03 00 00 "
            "05 00 00 00 00 00 08 02 00 00 00 00 00 00 01 00 "
            "00 02 00 00 00 00 00 00 02 00 00 00 00 00 00 00 06 01 7e f1");
  // The hashes the examples start from.
  EXPECT_EQ(KeyHash("siftdb"), 0xb982bc7be93ae287ULL);
  EXPECT_EQ(KeyHash("bloom"), 0x7a5daa5b0153bb29ULL);
}

// ---- sift::FilterPolicy
// -------------------------------------------------------

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
    const BloomFilterReader reader(filter);
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
    EXPECT_TRUE(BloomFilterReader(filter).valid());
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
