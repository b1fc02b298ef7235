// Filter memory under a budget: which false-positive chance each part of an
// LSM tree's filters should get so that a missing key costs the fewest
// wasted file reads for a given number of filter bits.
//
// ---- The problem (Monkey: N. Dayan, M. Athanassoulis, S. Idreos, "Monkey:
// Optimal Navigable Key-Value Store", SIGMOD 2017) -------------------------
// A Get for a key that is nowhere probes one filter per "unit": each level-0
// file (they overlap, so every one is probed), and one file per deeper level
// (levels >= 1 are sorted runs). A unit u holding n_u keys with false-
// positive chance p_u costs, in expectation, p_u wasted file reads, so a miss
// costs
//     R = sum_u p_u
// while the filters take
//     M = sum_u n_u * b_u(p_u)  bits,
// where b_u(p) is the bits per key of u's layout at chance p. With the
// asymptotic b(p) = a * log2(1/p) (a = 1.44 for Bloom, ~1.05 for Ribbon;
// util/bloom.h, util/ribbon.h), minimizing R subject to M <= budget gives, by
// a Lagrange multiplier mu,
//     d/dp_u [p_u + mu * n_u * a_u * log2(1/p_u)] = 0
//     =>  p_u = mu * n_u * a_u / ln 2,
// i.e. every unit's chance is proportional to the keys it holds (times its
// layout's bits per halving), capped at 1 (a unit so large that its chance
// would pass 1 gets no filter). Uniform p, what every engine ships, spends as
// many bits per key on a level-0 file holding 0.5% of the keys as on a
// bottom level holding 90%, though a false read costs the same in either.
// Giving the small units tiny chances costs few bits in total (they hold few
// keys); the bottom level pays for them with a chance only a little above
// uniform.
//
// We solve for mu by bisection so that M computed with the layouts' real
// sizing (FilterBitsPerKey: tabled from ChooseBloomParams and RibbonShapeFor,
// which include blocked Bloom's extra bits at small p) meets the budget, and
// floor p at kBloomMinFpChance.
//
// ---- Worked example ------------------------------------------------------
// Budget 10 bits/key, blocked Bloom everywhere, a tree of 11.1M keys: two
// level-0 files of 50k keys, level 1 of 1M, level 2 of 10M. Uniform p at 10
// bits per key (blocked Bloom's sizing) is p = 0.0096 for every unit:
// R = 4 * 0.0096 = 0.0385. The allocation keeps the ratios 50k : 50k : 1M :
// 10M, and the bisection finds
//     p = 0.000063, 0.000063, 0.00126, 0.0126
//     bits per key 23.5, 23.5, 14.9, 9.4   (10.0 over all keys)
// so R = 0.0140, 0.36x uniform at the same memory: the bottom level gives up
// 0.6 bits per key, and the 9% of keys above it get half again as many
// bits or more. FilterBudgetTest.WorkedExample checks these numbers.
//
// With Ribbon below the flush level the bottom level's bits per halving drop
// from about 1.7 to about 1.05, so the same bits buy it a smaller p still.

#ifndef SIFT_DB_FILTER_BUDGET_H_
#define SIFT_DB_FILTER_BUDGET_H_

#include <cstdint>
#include <vector>

#include "sift/options.h"

namespace sift {

// One unit a missing-key Get probes once: a level-0 file, or a whole level
// below it.
struct FilterUnit {
  uint64_t num_keys = 0;
  FilterLayout layout = FilterLayout::kBlocked;
};

// The bits per key of a large filter of `layout` at fp_chance (0 at 1.0):
// the allocator's cost model, interpolated in log2(1/p) from a table of the
// layouts' own sizing made once per process. kRibbon: Ribbon's size for a
// large file (small files fall back to blocked Bloom; util/bloom.h).
double FilterBitsPerKey(FilterLayout layout, double fp_chance);

// The layout's bits per halving of p (the a above), for the allocation.
double FilterBitsPerHalving(FilterLayout layout);

// The fp chance for each unit (same order) minimizing the sum of the fp
// chances subject to sum(num_keys * FilterBitsPerKey) <= budget * sum(keys).
// Units with no keys get 1.0. REQUIRES: bits_per_key_budget > 0.
std::vector<double> AllocateFpChances(const std::vector<FilterUnit>& units,
                                      double bits_per_key_budget);

}  // namespace sift

#endif  // SIFT_DB_FILTER_BUDGET_H_
