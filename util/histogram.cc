#include "util/histogram.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sift {
namespace {

using Limits = std::array<double, Histogram::kNumBuckets>;

// Mantissas (in tenths) of the limits inside one decade from 10 up: steps of
// 2 up to 20, of 5 up to 50, then of 10 -- roughly 10-20% apart.
constexpr int kDecadeTenths[16] = {10, 12, 14, 16, 18, 20, 25, 30,
                                   35, 40, 45, 50, 60, 70, 80, 90};

constexpr Limits MakeLimits() {
  Limits limits{};
  size_t i = 0;
  // Below 10 only integers make sense as latency limits in microseconds.
  for (double v : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0}) limits[i++] = v;
  double scale = 1;  // exact: every power of ten up to 1e22 is a double
  for (int decade = 1; decade <= 18; ++decade) {
    for (int tenths : kDecadeTenths) limits[i++] = tenths * scale;
    scale *= 10;
  }
  limits[i++] = 1e19;
  limits[i++] = 1e200;
  return limits;
}

constexpr Limits kLimits = MakeLimits();

std::string FormatLimit(double v) {
  return v < 1e15 ? absl::StrFormat("%.0f", v) : absl::StrFormat("%.0e", v);
}

}  // namespace

double Histogram::BucketLimit(size_t b) {
  assert(b < kNumBuckets);
  return kLimits[b];
}

void Histogram::Clear() {
  min_ = std::numeric_limits<double>::infinity();
  max_ = -std::numeric_limits<double>::infinity();
  num_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  buckets_.fill(0);
}

void Histogram::Add(double value) {
  assert(!std::isnan(value));
  // First limit strictly above value: limits are exclusive upper bounds.
  size_t b =
      std::upper_bound(kLimits.begin(), kLimits.end(), value) - kLimits.begin();
  if (b == kNumBuckets) b = kNumBuckets - 1;
  buckets_[b]++;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_++;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::Merge(const Histogram& other) {
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  num_ += other.num_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  for (size_t b = 0; b < kNumBuckets; ++b) buckets_[b] += other.buckets_[b];
}

double Histogram::min() const { return num_ == 0 ? 0 : min_; }
double Histogram::max() const { return num_ == 0 ? 0 : max_; }

double Histogram::Average() const {
  return num_ == 0 ? 0 : sum_ / static_cast<double>(num_);
}

double Histogram::StandardDeviation() const {
  if (num_ == 0) return 0;
  const double n = static_cast<double>(num_);
  // E[x^2] - E[x]^2, which rounding can push slightly below zero.
  const double variance = (sum_squares_ * n - sum_ * sum_) / (n * n);
  return variance <= 0 ? 0 : std::sqrt(variance);
}

double Histogram::Percentile(double p) const {
  if (num_ == 0) return 0;
  const double threshold = static_cast<double>(num_) * (p / 100.0);
  double cumulative = 0;
  for (size_t b = 0; b < kNumBuckets; ++b) {
    const double in_bucket = static_cast<double>(buckets_[b]);
    cumulative += in_bucket;
    if (cumulative >= threshold && in_bucket > 0) {
      // Assume the bucket's values are spread evenly across its range.
      const double left = b == 0 ? 0 : kLimits[b - 1];
      const double right = kLimits[b];
      const double before = cumulative - in_bucket;
      const double pos = std::max(0.0, (threshold - before) / in_bucket);
      const double r = left + (right - left) * pos;
      return std::clamp(r, min_, max_);
    }
  }
  return max_;
}

std::string Histogram::ToString() const {
  std::string r = absl::StrFormat(
      "Count: %d Average: %.4f  StdDev: %.2f\n"
      "Min: %.4f  Median: %.4f  Max: %.4f\n"
      "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f\n"
      "------------------------------------------------------\n",
      num_, Average(), StandardDeviation(), min(), Median(), max(),
      Percentile(50), Percentile(75), Percentile(99), Percentile(99.9),
      Percentile(99.99));
  if (num_ == 0) return r;
  const double mult = 100.0 / static_cast<double>(num_);
  uint64_t cumulative = 0;
  for (size_t b = 0; b < kNumBuckets; ++b) {
    if (buckets_[b] == 0) continue;
    cumulative += buckets_[b];
    const double pct = mult * static_cast<double>(buckets_[b]);
    const int marks = static_cast<int>(std::lround(pct / 5));
    absl::StrAppendFormat(&r, "[ %11s, %11s ) %9d %7.3f%% %7.3f%%",
                          FormatLimit(b == 0 ? 0 : kLimits[b - 1]),
                          FormatLimit(kLimits[b]), buckets_[b], pct,
                          mult * static_cast<double>(cumulative));
    if (marks > 0) absl::StrAppend(&r, " ", std::string(marks, '#'));
    r.push_back('\n');
  }
  return r;
}

}  // namespace sift
