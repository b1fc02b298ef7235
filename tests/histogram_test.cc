#include "util/histogram.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using ::testing::HasSubstr;

TEST(HistogramTest, EmptyIsAllZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.Average(), 0);
  EXPECT_EQ(h.StandardDeviation(), 0);
  EXPECT_EQ(h.Median(), 0);
  EXPECT_THAT(h.ToString(), HasSubstr("Count: 0 "));
}

TEST(HistogramTest, BucketLimitsMatchTheDocumentedSequence) {
  const double kFirst[] = {1,  2,  3,  4,   5,   6,   8,   10,  12,  14,
                           16, 18, 20, 25,  30,  35,  40,  45,  50,  60,
                           70, 80, 90, 100, 120, 140, 160, 180, 200, 250};
  for (size_t b = 0; b < std::size(kFirst); ++b) {
    EXPECT_EQ(Histogram::BucketLimit(b), kFirst[b]) << b;
  }
  for (size_t b = 1; b < Histogram::kNumBuckets; ++b) {
    ASSERT_LT(Histogram::BucketLimit(b - 1), Histogram::BucketLimit(b));
    // Geometric-ish growth: neighbours at most 2x apart below 1e19.
    if (Histogram::BucketLimit(b) <= 1e19) {
      ASSERT_LE(Histogram::BucketLimit(b), 2 * Histogram::BucketLimit(b - 1));
    }
  }
  EXPECT_EQ(Histogram::BucketLimit(Histogram::kNumBuckets - 1), 1e200);
}

TEST(HistogramTest, ValuesLandInTheirBucket) {
  Histogram h;
  h.Add(0.5);    // [0, 1)
  h.Add(1);      // [1, 2): limits are exclusive upper bounds
  h.Add(11.9);   // [10, 12), bucket 8
  h.Add(12);     // [12, 14), bucket 9
  h.Add(1e300);  // past the last limit: last bucket
  EXPECT_EQ(h.BucketCount(0), 1u);
  EXPECT_EQ(h.BucketCount(1), 1u);
  EXPECT_EQ(h.BucketCount(8), 1u);
  EXPECT_EQ(h.BucketCount(9), 1u);
  EXPECT_EQ(h.BucketCount(7), 0u);  // [8, 10)
  EXPECT_EQ(h.BucketCount(Histogram::kNumBuckets - 1), 1u);
}

TEST(HistogramTest, BasicStatistics) {
  Histogram h;
  for (double v : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) h.Add(v);
  EXPECT_EQ(h.count(), 8u);
  EXPECT_EQ(h.min(), 2);
  EXPECT_EQ(h.max(), 9);
  EXPECT_DOUBLE_EQ(h.Average(), 5);
  EXPECT_DOUBLE_EQ(h.StandardDeviation(), 2);  // the textbook example
}

TEST(HistogramTest, SingleValueHasEveryPercentileEqualToIt) {
  Histogram h;
  h.Add(42);
  for (double p : {0.0, 1.0, 50.0, 99.0, 100.0}) {
    EXPECT_EQ(h.Percentile(p), 42) << p;
  }
  EXPECT_EQ(h.StandardDeviation(), 0);
}

TEST(HistogramTest, PercentilesOfUniformDistribution) {
  Histogram h;
  for (int i = 0; i < 10000; ++i) h.Add(i);
  // Linear interpolation is exact for evenly spread values, up to the
  // one-value granularity of the data.
  EXPECT_NEAR(h.Median(), 5000, 2);
  EXPECT_NEAR(h.Percentile(75), 7500, 2);
  EXPECT_NEAR(h.Percentile(99), 9900, 2);
  EXPECT_NEAR(h.Percentile(10), 1000, 2);
  EXPECT_EQ(h.Percentile(0), 0);
  EXPECT_EQ(h.Percentile(100), 9999);
}

TEST(HistogramTest, PercentilesOfExponentialDistributionWithinBucketError) {
  uint64_t seed = test::TestSeed(501);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  Histogram h;
  constexpr double kMean = 1000;
  for (int i = 0; i < 200000; ++i) {
    double u = (rnd.Next() + 0.5) / 4294967296.0;
    h.Add(-kMean * std::log(u));
  }
  // Quantile of Exp(1/mean): -mean * ln(1 - p). Buckets are <= 25% wide, and
  // interpolation inside them is much better than that.
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    double want = -kMean * std::log(1 - p / 100);
    EXPECT_NEAR(h.Percentile(p), want, want * 0.05) << "P" << p;
  }
  EXPECT_NEAR(h.Average(), kMean, kMean * 0.02);
  EXPECT_NEAR(h.StandardDeviation(), kMean, kMean * 0.03);
}

TEST(HistogramTest, PercentileIsMonotonic) {
  Random rnd(test::TestSeed(502));
  Histogram h;
  for (int i = 0; i < 1000; ++i) h.Add(rnd.Skewed(20));
  double last = h.Percentile(0);
  for (double p = 0.5; p <= 100; p += 0.5) {
    double v = h.Percentile(p);
    ASSERT_GE(v, last) << p;
    last = v;
  }
}

TEST(HistogramTest, MergeEqualsAddingEverything) {
  Random rnd(test::TestSeed(503));
  Histogram a, b, all;
  for (int i = 0; i < 5000; ++i) {
    double v = rnd.Uniform(100000) / 10.0;
    (rnd.OneIn(3) ? a : b).Add(v);
    all.Add(v);
  }
  Histogram merged;
  merged.Merge(a);  // merging into an empty histogram takes min/max over
  merged.Merge(b);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  // Sums are added in a different order, so only nearly equal.
  EXPECT_NEAR(merged.Average(), all.Average(), 1e-9);
  EXPECT_NEAR(merged.StandardDeviation(), all.StandardDeviation(), 1e-6);
  for (double p : {1.0, 50.0, 99.0, 99.99}) {
    EXPECT_DOUBLE_EQ(merged.Percentile(p), all.Percentile(p)) << p;
  }
  EXPECT_EQ(merged.ToString(), all.ToString());

  Histogram empty;
  merged.Merge(empty);
  EXPECT_EQ(merged.ToString(), all.ToString());
}

TEST(HistogramTest, ClearForgetsEverything) {
  Histogram h;
  h.Add(5);
  h.Add(500);
  h.Clear();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.max(), 0);
  h.Add(3);
  EXPECT_EQ(h.min(), 3);
  EXPECT_EQ(h.max(), 3);
}

TEST(HistogramTest, ToStringHasRocksDbLayout) {
  Histogram h;
  for (int i = 1; i <= 100; ++i) h.Add(i);
  std::string s = h.ToString();
  EXPECT_THAT(s, HasSubstr("Count: 100 Average: 50.5000  StdDev: 28.87\n"));
  // Interpolation: the median lies 1/10 into [50, 60), which holds 50..59.
  EXPECT_THAT(s, HasSubstr("Min: 1.0000  Median: 51.0000  Max: 100.0000\n"));
  EXPECT_THAT(s, HasSubstr("Percentiles: P50: 51.00 P75: 76.00 P99: 100.00"));
  // The [90, 100) bucket holds 90..99: 10% of the values, 99% cumulative.
  EXPECT_THAT(s, HasSubstr("[          90,         100 )        10  "
                           "10.000%  99.000% ##\n"));
  // Empty buckets are not printed.
  EXPECT_THAT(s, ::testing::Not(HasSubstr("[           0,           1 )")));
}

}  // namespace
}  // namespace sift
