// The Bloom filters' false-positive model and the sizing built on it
// (util/bloom.h).

#include "util/bloom.h"

#include <math.h>  // lgamma_r (POSIX)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace sift {
namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr int kBlockBits = static_cast<int>(kBloomBlockBits);

// Draws t <= kMaxTabledDraws are tabled exactly; beyond, a block is so full
// (mean fill > 1 - e^-8) that the classic form is within a few ppm.
constexpr int kMaxTabledDraws = 4096;

// f[k][i] = E[(X_{k i} / B)^k] for k = 1..kBloomMaxProbes and k i <= 4096,
// X_t being the number of distinct bits set in one B-bit block by t uniform
// draws. Built once per process (about 4 ms), then read-only.
class BlockOccupancyTable {
 public:
  BlockOccupancyTable() : f_(kBloomMaxProbes + 1) {
    for (int k = 1; k <= kBloomMaxProbes; ++k) {
      f_[k].assign(kMaxTabledDraws / k + 1, 0.0);
    }
    // powers[k][x] = (x / B)^k.
    std::vector<std::vector<double>> powers(
        kBloomMaxProbes + 1, std::vector<double>(kBlockBits + 1));
    for (int x = 0; x <= kBlockBits; ++x) {
      double v = 1;
      for (int k = 1; k <= kBloomMaxProbes; ++k) {
        v *= static_cast<double>(x) / kBlockBits;
        powers[k][x] = v;
      }
    }
    // P_t(x) for x in [lo, hi]; outside the band it is below 1e-40 and
    // dropped (summed as 0), which also keeps denormals out of the loop.
    std::vector<double> p(kBlockBits + 2, 0.0);
    std::vector<double> next(kBlockBits + 2, 0.0);
    p[0] = 1;  // t = 0: no bit set
    int lo = 0;
    int hi = 0;
    for (int t = 1; t <= kMaxTabledDraws; ++t) {
      const int new_hi = std::min(hi + 1, kBlockBits);
      for (int x = lo; x <= new_hi; ++x) {
        const double stay = x <= hi ? p[x] * x / kBlockBits : 0.0;
        const double grow =
            x > lo ? p[x - 1] * (kBlockBits - x + 1) / kBlockBits : 0.0;
        next[x] = stay + grow;
      }
      hi = new_hi;
      p.swap(next);
      while (lo < hi && p[lo] < 1e-40) p[lo++] = 0;
      while (hi > lo && p[hi] < 1e-40) p[hi--] = 0;
      for (int k = 1; k <= kBloomMaxProbes && k <= t; ++k) {
        if (t % k != 0) continue;
        double sum = 0;
        for (int x = lo; x <= hi; ++x) sum += p[x] * powers[k][x];
        f_[k][t / k] = sum;
      }
    }
  }

  // REQUIRES: 1 <= k <= kBloomMaxProbes, i >= 0.
  double BlockFp(int k, uint64_t i) const {
    if (i < f_[k].size()) return f_[k][i];
    return ClassicBlockFp(k, i);
  }

  static double ClassicBlockFp(int k, uint64_t i) {
    const double t = static_cast<double>(k) * static_cast<double>(i);
    return std::pow(-std::expm1(t * std::log1p(-1.0 / kBlockBits)), k);
  }

 private:
  std::vector<std::vector<double>> f_;
};

const BlockOccupancyTable& Table() {
  static const BlockOccupancyTable* const table = new BlockOccupancyTable();
  return *table;
}

// sum_i Poisson(i; lambda) * block_fp(i) over lambda +- (12 sigma + 25),
// beyond which the Poisson mass is below 1e-30. For an absurd lambda (a
// target within 1e-6 of 1) the count is concentrated enough to use its mean.
template <typename BlockFp>
double PoissonMixture(double lambda, BlockFp&& block_fp) {
  if (!(lambda > 0)) return block_fp(0);
  // Past a million keys a block is all ones under any spread of the
  // Poisson: the mixture is block_fp(lambda). (Capped: a trailer may claim
  // 2^64 keys, and a double beyond uint64_t does not convert.)
  constexpr double kSaturatedKeysPerBlock = 1e6;
  constexpr double kMaxConvertibleKeys = 1e18;
  if (lambda > kSaturatedKeysPerBlock) {
    return block_fp(
        static_cast<uint64_t>(std::min(lambda, kMaxConvertibleKeys)));
  }
  // Sum over lambda +- (12 standard deviations + 25): the Poisson mass
  // left out is below 1e-30, far under the precision of the sum; the fixed
  // 25 covers small lambda, where the distribution is skewed right.
  constexpr double kTailSigmas = 12;
  constexpr double kTailMinWidth = 25;
  const double spread = kTailSigmas * std::sqrt(lambda) + kTailMinWidth;
  const double first = std::max(0.0, std::floor(lambda - spread));
  const double last = std::ceil(lambda + spread);
  // lgamma_r, not std::lgamma: std::lgamma also stores the sign in the
  // global `signgam`, a data race between threads building filters at
  // once (a flush beside RebuildFilters).
  int sign;
  double pmf =
      std::exp(first * std::log(lambda) - lambda - lgamma_r(first + 1, &sign));
  double sum = 0;
  for (double i = first; i <= last; ++i) {
    sum += pmf * block_fp(static_cast<uint64_t>(i));
    pmf *= lambda / (i + 1);  // Poisson(i + 1) from Poisson(i)
  }
  return std::min(sum, 1.0);
}

// Least bits per key reaching model(b, k) <= p for some k, and the best k
// there. model is decreasing in b for each k.
template <typename Model>
BloomParams LeastBitsPerKey(double p, double start, Model&& model) {
  // min over k of model(b, k); model is unimodal in k, so scan up from 1
  // and stop after it rises twice in a row.
  auto best = [&](double b, int* best_k) {
    double best_fp = 2;
    int rises = 0;
    for (int k = 1; k <= kBloomMaxProbes && rises < 2; ++k) {
      const double fp = model(b, k);
      if (fp < best_fp) {
        best_fp = fp;
        *best_k = k;
        rises = 0;
      } else {
        ++rises;
      }
    }
    return best_fp;
  };
  int k = 1;
  double lo = start;  // the textbook value: no layout does better
  while (best(lo, &k) <= p) lo /= 2;
  double hi = start;
  while (best(hi, &k) > p) hi *= 1.5;
  // Bisect to a relative width of 1e-9.
  while (hi - lo > 1e-9 * hi) {
    const double mid = (lo + hi) / 2;
    (best(mid, &k) > p ? lo : hi) = mid;
  }
  best(hi, &k);
  return BloomParams{hi, k};
}

double TextbookBitsPerKey(double p) { return -std::log(p) / (kLn2 * kLn2); }

// Bits per key a kStandard filter with k probes needs to reach p.
double StandardBitsPerKeyFor(double p, int k) {
  return -k / std::log1p(-std::pow(p, 1.0 / k));
}

double ClampFpChance(double p) { return std::max(p, kBloomMinFpChance); }

}  // namespace

double StandardFpRate(double bits_per_key, int num_probes) {
  if (!(bits_per_key > 0)) return 1.0;
  return std::pow(-std::expm1(-num_probes / bits_per_key), num_probes);
}

double StandardFpRateFinite(uint64_t num_bits, uint64_t num_keys,
                            int num_probes) {
  if (num_keys == 0) return 0.0;
  if (num_bits == 0) return 1.0;
  const double m = static_cast<double>(num_bits);
  const double t = static_cast<double>(num_keys) * num_probes;
  const double k = num_probes;
  // a = P(a given bit is clear), b = P(two given bits are clear).
  const double a = std::exp(t * std::log1p(-1 / m));
  const double b = m >= 2 ? std::exp(t * std::log1p(-2 / m)) : 0.0;
  const double mean = m * (1 - a);
  if (!(mean > 0)) return 0.0;
  const double var =
      std::max(0.0, m * (m - 1) * (1 - 2 * a + b) + mean - mean * mean);
  const double fp =
      std::pow(mean / m, k) * (1 + k * (k - 1) / 2 * var / (mean * mean));
  return std::min(fp, 1.0);
}

double BlockedFpRate(double bits_per_key, int num_probes) {
  if (!(bits_per_key > 0)) return 1.0;
  const BlockOccupancyTable& table = Table();
  return PoissonMixture(kBlockBits / bits_per_key, [&](uint64_t i) {
    return table.BlockFp(num_probes, i);
  });
}

double BlockedFpRatePutze(double bits_per_key, int num_probes) {
  if (!(bits_per_key > 0)) return 1.0;
  return PoissonMixture(kBlockBits / bits_per_key, [&](uint64_t i) {
    return BlockOccupancyTable::ClassicBlockFp(num_probes, i);
  });
}

double ModelFpRate(FilterLayout layout, double bits_per_key, int num_probes) {
  return layout == FilterLayout::kBlocked
             ? BlockedFpRate(bits_per_key, num_probes)
             : StandardFpRate(bits_per_key, num_probes);
}

BloomParams ChooseBloomParams(FilterLayout layout, double fp_chance) {
  const double p = ClampFpChance(fp_chance);
  const double textbook = TextbookBitsPerKey(p);
  if (layout != FilterLayout::kStandard) {  // kBlocked, or kRibbon's fallback
    return LeastBitsPerKey(p, textbook,
                           [](double b, int k) { return BlockedFpRate(b, k); });
  }
  const int k = std::clamp(static_cast<int>(std::lround(textbook * kLn2)), 1,
                           kBloomMaxProbes);
  double b = textbook;
  if (StandardFpRate(b, k) > p) b = StandardBitsPerKeyFor(p, k);
  return BloomParams{b, k};
}

namespace {

// kStandard for n keys: m = ceil(n * textbook), k = round((m / n) ln 2),
// then the corrections of util/bloom.h (k's rounding, whole bytes, 64-bit
// minimum, finite-size fill).
FilterShape StandardShapeFor(double p, const BloomParams& params,
                             uint64_t num_keys) {
  FilterShape shape;
  shape.num_keys = num_keys;
  shape.num_probes = params.num_probes;
  const double n = static_cast<double>(num_keys);
  double m = std::ceil(n * TextbookBitsPerKey(p));
  if (num_keys > 0) {
    shape.num_probes = std::clamp(static_cast<int>(std::lround(m / n * kLn2)),
                                  1, kBloomMaxProbes);
    if (StandardFpRate(m / n, shape.num_probes) > p) {
      m = std::ceil(n * StandardBitsPerKeyFor(p, shape.num_probes));
    }
  }
  const uint64_t bits =
      std::max<uint64_t>(kBloomMinStandardBits, static_cast<uint64_t>(m));
  shape.num_bits = (bits + 7) / 8 * 8;
  if (num_keys == 0) return shape;

  // A small array does worse than the asymptotic formula (its fill varies
  // around a mean that is itself a little higher): grow to the least whole
  // byte count whose finite-size rate meets p. A few bytes at most.
  const auto too_small = [&](uint64_t b) {
    return StandardFpRateFinite(b, num_keys, shape.num_probes) > p;
  };
  if (!too_small(shape.num_bits)) return shape;
  uint64_t lo = shape.num_bits;  // too small
  uint64_t step = 8;
  while (too_small(lo + step)) {
    lo += step;
    step *= 2;
  }
  uint64_t hi = lo + step;  // large enough
  while (hi - lo > 8) {
    const uint64_t mid = lo + (hi - lo) / 16 * 8;
    (too_small(mid) ? lo : hi) = mid;
  }
  shape.num_bits = hi;
  return shape;
}

}  // namespace

FilterShape BloomShapeFor(FilterLayout layout, double fp_chance,
                          const BloomParams& params, uint64_t num_keys) {
  if (layout == FilterLayout::kStandard) {
    return StandardShapeFor(ClampFpChance(fp_chance), params, num_keys);
  }
  if (layout == FilterLayout::kRibbon &&
      RibbonPays(fp_chance, params, num_keys)) {
    return RibbonShapeFor(fp_chance, num_keys);
  }
  FilterShape shape;
  shape.num_keys = num_keys;
  const double blocks = std::ceil(static_cast<double>(num_keys) *
                                  params.bits_per_key / kBlockBits);
  shape.num_bits =
      std::max<uint64_t>(1, static_cast<uint64_t>(blocks)) * kBloomBlockBits;
  shape.num_probes = params.num_probes;
  return shape;
}

bool RibbonPays(double fp_chance, const BloomParams& params,
                uint64_t num_keys) {
  const uint64_t ribbon_bytes =
      RibbonShapeFor(fp_chance, num_keys).num_bits / 8 + kRibbonTrailerSize;
  const uint64_t bloom_bytes =
      BloomShapeFor(FilterLayout::kBlocked, fp_chance, params, num_keys)
              .num_bits /
          8 +
      kBloomTrailerSize;
  return ribbon_bytes < bloom_bytes;
}

}  // namespace sift
