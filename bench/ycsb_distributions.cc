#include "bench/ycsb_distributions.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace sift::bench::ycsb {

uint64_t FnvHash64(uint64_t v) {
  constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325u;
  constexpr uint64_t kPrime = 0x100000001b3u;
  uint64_t h = kOffsetBasis;
  for (int i = 0; i < 8; ++i) {
    h ^= v & 0xff;
    h *= kPrime;
    v >>= 8;
  }
  // The absolute value of h read as a signed 64-bit number (2^63 stays
  // 2^63, as Java's Math.abs leaves Long.MIN_VALUE).
  return (h >> 63) != 0 ? ~h + 1 : h;
}

double UniformDouble(Random* rnd) {
  return static_cast<double>(rnd->Next64() >> 11) * 0x1.0p-53;
}

ZipfianGenerator::ZipfianGenerator(uint64_t items, double theta)
    : theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2_(1.0 + std::pow(2.0, -theta)),
      half_pow_theta_(std::pow(0.5, theta)) {
  assert(theta > 0 && theta < 1);
  prefix_[0] = 0;
  for (uint64_t k = 1; k <= kDirectZetaTerms; ++k) {
    prefix_[k] = prefix_[k - 1] + std::pow(static_cast<double>(k), -theta);
  }
  SetItems(items);
}

// Euler-Maclaurin: for f(x) = x^-theta and m < n,
//   sum_{i=m..n} f(i) = integral_m^n f + (f(m) + f(n)) / 2
//                       + (f'(n) - f'(m)) / 12 - (f'''(n) - f'''(m)) / 720
//                       + R,
// with f'(x) = -theta x^(-theta-1), f'''(x) = -theta (theta+1) (theta+2)
// x^(-theta-3). From m = 1000 the remainder R is below 10^-17.
double ZipfianGenerator::Zeta(uint64_t n) const {
  if (n <= kDirectZetaTerms) return prefix_[n];
  const double t = theta_;
  const double m = static_cast<double>(kDirectZetaTerms);
  const double x = static_cast<double>(n);
  auto f = [t](double v) { return std::pow(v, -t); };
  auto f1 = [t](double v) { return -t * std::pow(v, -t - 1); };
  auto f3 = [t](double v) {
    return -t * (t + 1) * (t + 2) * std::pow(v, -t - 3);
  };
  const double integral = (std::pow(x, 1 - t) - std::pow(m, 1 - t)) / (1 - t);
  const double tail = integral + (f(m) + f(x)) / 2 + (f1(x) - f1(m)) / 12 -
                      (f3(x) - f3(m)) / 720;
  return prefix_[kDirectZetaTerms - 1] + tail;
}

void ZipfianGenerator::SetItems(uint64_t items) {
  assert(items >= 1);
  if (items == items_) return;
  items_ = items;
  zetan_ = Zeta(items);
  const double n = static_cast<double>(items);
  // eta is undefined for n <= 2 (zeta(n) = zeta(2)); FromUniform never
  // reaches it there, since u * zeta(n) < 1 + 0.5^theta for every u.
  eta_ = items > 2 ? (1 - std::pow(2.0 / n, 1 - theta_)) / (1 - zeta2_ / zetan_)
                   : 0;
}

uint64_t ZipfianGenerator::FromUniform(double u) const {
  const double uz = u * zetan_;
  if (uz < 1.0 || items_ == 1) return 0;
  if (uz < 1.0 + half_pow_theta_) return 1;
  const double r =
      static_cast<double>(items_) * std::pow(eta_ * u - eta_ + 1, alpha_);
  return std::min(static_cast<uint64_t>(r), items_ - 1);
}

InsertSequence::InsertSequence(uint64_t first)
    : next_(first), last_acked_(first - 1) {
  assert(first >= 1);
}

void InsertSequence::Acknowledge(uint64_t n) {
  MutexLock l(&mu_);
  uint64_t last = last_acked_.load(std::memory_order_relaxed);
  if (n != last + 1) {
    pending_.insert(n);
    return;
  }
  last = n;
  // Numbers acknowledged early that now join the contiguous prefix.
  auto it = pending_.begin();
  while (it != pending_.end() && *it == last + 1) {
    last = *it;
    it = pending_.erase(it);
  }
  last_acked_.store(last, std::memory_order_release);
}

const char* DistributionName(Distribution d) {
  switch (d) {
    case Distribution::kUniform:
      return "uniform";
    case Distribution::kZipfian:
      return "zipfian";
    case Distribution::kLatest:
      return "latest";
  }
  return "?";
}

bool ParseDistribution(std::string_view name, Distribution* d) {
  for (Distribution c : {Distribution::kUniform, Distribution::kZipfian,
                         Distribution::kLatest}) {
    if (name == DistributionName(c)) {
      *d = c;
      return true;
    }
  }
  return false;
}

KeyChooser::KeyChooser(Distribution d, uint64_t record_count,
                       uint64_t expected_inserts, const InsertSequence* inserts)
    : distribution_(d),
      record_count_(std::max<uint64_t>(record_count, 1)),
      // YCSB sizes the zipfian domain for the loaded records and twice the
      // inserts expected (a fudge factor), plus one.
      zipfian_items_(record_count_ + 2 * expected_inserts + 1),
      inserts_(inserts) {
  switch (d) {
    case Distribution::kUniform:
      break;
    case Distribution::kZipfian:
      zipfian_ = std::make_unique<ZipfianGenerator>(kScrambledItemCount);
      break;
    case Distribution::kLatest:
      zipfian_ =
          std::make_unique<ZipfianGenerator>(inserts->LastAcknowledged() + 1);
      break;
  }
}

uint64_t KeyChooser::Next(Random* rnd) {
  const uint64_t last = inserts_->LastAcknowledged();
  switch (distribution_) {
    case Distribution::kUniform:
      return static_cast<uint64_t>(UniformDouble(rnd) *
                                   static_cast<double>(record_count_));
    case Distribution::kZipfian:
      while (true) {
        const uint64_t n = FnvHash64(zipfian_->Next(rnd)) % zipfian_items_;
        if (n <= last) return n;  // else not inserted yet: draw again
      }
    case Distribution::kLatest:
      zipfian_->SetItems(last + 1);
      return last - zipfian_->Next(rnd);
  }
  return 0;
}

}  // namespace sift::bench::ycsb
