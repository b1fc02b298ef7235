// Histogram: the latency distribution db_bench prints, in RocksDB's layout.
//
// Values fall into buckets whose limits grow roughly geometrically (1, 2, 3,
// 4, 5, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30, ... 90, 100, 120, ... 9e18,
// 1e19, then one last bucket up to 1e200), so relative precision is about
// 10-20% at every scale with a few hundred counters. Percentiles interpolate
// linearly inside a bucket and are clamped to the observed [min, max].
//
// Not thread-safe: give each thread its own Histogram and Merge them.

#ifndef SIFT_UTIL_HISTOGRAM_H_
#define SIFT_UTIL_HISTOGRAM_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sift {

class Histogram {
 public:
  // 7 limits in [1, 10), 16 per decade from 10 to 9e18, then 1e19 and 1e200.
  static constexpr size_t kNumBuckets = 7 + 18 * 16 + 2;

  Histogram() { Clear(); }

  void Clear();
  // REQUIRES: value is not NaN. Values below 0 count in the first bucket,
  // values at or above the last limit in the last one.
  void Add(double value);
  // Adds every value recorded in other, as if Add had been called for each.
  void Merge(const Histogram& other);

  uint64_t count() const { return num_; }
  // 0 when empty.
  double min() const;
  double max() const;
  double Average() const;
  // Population standard deviation; 0 when empty.
  double StandardDeviation() const;
  // The value below which p percent of the values fall, estimated by linear
  // interpolation inside the bucket holding it. p in [0, 100]; 0 when empty.
  double Percentile(double p) const;
  double Median() const { return Percentile(50); }

  // Summary lines, then one line per non-empty bucket:
  //   Count: 1000 Average: 12.3400  StdDev: 3.21
  //   Min: 1.0000  Median: 11.9000  Max: 40.0000
  //   Percentiles: P50: 11.90 P75: 14.20 P99: 30.10 P99.9: 39.00 P99.99: 39.90
  //   ------------------------------------------------------
  //   [          10,          12 )       113  11.300%  40.700% ##
  // (count, percent of all values, cumulative percent, one '#' per 5%).
  std::string ToString() const;

  // Bucket b holds values in [BucketLimit(b - 1), BucketLimit(b)), bucket 0
  // those below BucketLimit(0) = 1.
  static double BucketLimit(size_t b);
  uint64_t BucketCount(size_t b) const { return buckets_[b]; }

 private:
  double min_;
  double max_;
  uint64_t num_;
  double sum_;
  double sum_squares_;
  std::array<uint64_t, kNumBuckets> buckets_;
};

}  // namespace sift

#endif  // SIFT_UTIL_HISTOGRAM_H_
