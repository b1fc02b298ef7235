#include "db/filter_budget.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "util/bloom.h"
#include "util/ribbon.h"

namespace sift {
namespace {

// The sizing table: bits per key at p = 2^-(i * kStep), i < kPoints, down to
// 2^-40 (about 1e-12, kBloomMinFpChance). Half a bit of log2(1/p) apart,
// linear interpolation between points is within 0.1 bit of the sizing.
constexpr double kStep = 0.5;
constexpr int kPoints = 81;
constexpr int kLayouts = 3;  // kStandard, kBlocked, kRibbon
// A key count large enough that Ribbon pays and rounding is nil.
constexpr uint64_t kLargeFile = uint64_t{1} << 20;

using SizingTable = std::array<std::array<double, kPoints>, kLayouts>;

double SizedBitsPerKey(FilterLayout layout, double p) {
  if (layout == FilterLayout::kRibbon) {
    const FilterShape shape = RibbonShapeFor(p, kLargeFile);
    return static_cast<double>(shape.num_bits) / kLargeFile;
  }
  return ChooseBloomParams(layout, p).bits_per_key;
}

const SizingTable& Sizing() {
  static const SizingTable table = [] {
    SizingTable t;
    for (int l = 0; l < kLayouts; ++l) {
      t[l][0] = 0;  // p = 1: no filter
      for (int i = 1; i < kPoints; ++i) {
        t[l][i] = SizedBitsPerKey(static_cast<FilterLayout>(l),
                                  std::exp2(-i * kStep));
      }
    }
    return t;
  }();
  return table;
}

int LayoutIndex(FilterLayout layout) {
  const int l = static_cast<int>(layout);
  return l < kLayouts ? l : static_cast<int>(FilterLayout::kBlocked);
}

}  // namespace

double FilterBitsPerKey(FilterLayout layout, double fp_chance) {
  if (!(fp_chance < 1.0)) return 0;
  const auto& row = Sizing()[LayoutIndex(layout)];
  const double x = std::clamp(-std::log2(fp_chance) / kStep, 0.0,
                              static_cast<double>(kPoints - 1));
  const int i = std::min(static_cast<int>(x), kPoints - 2);
  return row[i] + (x - i) * (row[i + 1] - row[i]);
}

double FilterBitsPerHalving(FilterLayout layout) {
  // The slope between p = 2^-4 and 2^-14, the range budgets land in.
  return (FilterBitsPerKey(layout, std::exp2(-14)) -
          FilterBitsPerKey(layout, std::exp2(-4))) /
         10;
}

std::vector<double> AllocateFpChances(const std::vector<FilterUnit>& units,
                                      double bits_per_key_budget) {
  std::vector<double> p(units.size(), 1.0);
  double total_keys = 0;
  double max_weight = 0, min_weight = HUGE_VAL;
  std::vector<double> weight(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    const double n = static_cast<double>(units[u].num_keys);
    weight[u] = n * FilterBitsPerHalving(units[u].layout);
    total_keys += n;
    if (n > 0) {
      max_weight = std::max(max_weight, weight[u]);
      min_weight = std::min(min_weight, weight[u]);
    }
  }
  if (total_keys == 0) return p;
  const double budget_bits = bits_per_key_budget * total_keys;
  // p_u = min(1, max(floor, mu * weight_u)); the bits spent fall as mu
  // grows. Bisect log(mu) between "every unit at the floor" and "every
  // unit at 1".
  auto fill = [&](double log_mu) {
    double bits = 0;
    for (size_t u = 0; u < units.size(); ++u) {
      if (units[u].num_keys == 0) continue;
      p[u] = std::clamp(std::exp(log_mu) * weight[u], kBloomMinFpChance, 1.0);
      bits += static_cast<double>(units[u].num_keys) *
              FilterBitsPerKey(units[u].layout, p[u]);
    }
    return bits;
  };
  double lo = std::log(kBloomMinFpChance / max_weight);  // all at the floor
  double hi = std::log(1.0 / min_weight);                // all at 1
  if (fill(lo) <= budget_bits) return p;
  for (int i = 0; i < 100 && hi - lo > 1e-9; ++i) {
    const double mid = (lo + hi) / 2;
    (fill(mid) > budget_bits ? lo : hi) = mid;
  }
  fill(hi);  // the least mu found within budget
  return p;
}

}  // namespace sift
