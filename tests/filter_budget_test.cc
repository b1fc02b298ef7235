// The per-level filter allocation of db/filter_budget.h: a pure function
// of the units' key counts, layouts and the budget.

#include "db/filter_budget.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "tests/testutil/mem_db_test.h"
#include "util/bloom.h"

namespace sift {
namespace {

double BitsSpent(const std::vector<FilterUnit>& units,
                 const std::vector<double>& p) {
  double bits = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    bits += static_cast<double>(units[u].num_keys) *
            FilterBitsPerKey(units[u].layout, p[u]);
  }
  return bits;
}

double Keys(const std::vector<FilterUnit>& units) {
  double n = 0;
  for (const auto& u : units) n += static_cast<double>(u.num_keys);
  return n;
}

double Sum(const std::vector<double>& p) {
  double s = 0;
  for (double x : p) s += x;
  return s;
}

TEST(FilterBudgetTest, BitsPerKeyFollowsTheLayoutsSizing) {
  EXPECT_EQ(FilterBitsPerKey(FilterLayout::kBlocked, 1.0), 0);
  for (double p : {0.1, 0.01, 0.001, 0.0001}) {
    EXPECT_NEAR(FilterBitsPerKey(FilterLayout::kBlocked, p),
                ChooseBloomParams(FilterLayout::kBlocked, p).bits_per_key, 0.1)
        << p;
    EXPECT_NEAR(FilterBitsPerKey(FilterLayout::kStandard, p),
                ChooseBloomParams(FilterLayout::kStandard, p).bits_per_key, 0.1)
        << p;
    // Ribbon: within the bound the layout promises.
    const double bound = -std::log2(p);
    EXPECT_LT(FilterBitsPerKey(FilterLayout::kRibbon, p), 1.08 * bound + 0.1);
    EXPECT_GT(FilterBitsPerKey(FilterLayout::kRibbon, p), bound);
  }
}

TEST(FilterBudgetTest, WorkedExample) {
  // db/filter_budget.h's example: two level-0 files of 50k keys, level 1
  // of 1M, level 2 of 10M, 10 bits per key of blocked Bloom.
  const std::vector<FilterUnit> units = {{50'000, FilterLayout::kBlocked},
                                         {50'000, FilterLayout::kBlocked},
                                         {1'000'000, FilterLayout::kBlocked},
                                         {10'000'000, FilterLayout::kBlocked}};
  const std::vector<double> p = AllocateFpChances(units, 10.0);
  ASSERT_EQ(p.size(), 4u);
  for (size_t u = 0; u < p.size(); ++u) {
    std::printf("p = %.6f, %.1f bits/key\n", p[u],
                FilterBitsPerKey(FilterLayout::kBlocked, p[u]));
  }
  EXPECT_EQ(p[0], p[1]);
  // Proportional to the keys.
  EXPECT_NEAR(p[2] / p[0], 20.0, 1e-6);
  EXPECT_NEAR(p[3] / p[2], 10.0, 1e-6);
  EXPECT_NEAR(p[0], 0.000063, 0.000002);
  EXPECT_NEAR(p[2], 0.00126, 0.00003);
  EXPECT_NEAR(p[3], 0.0126, 0.0003);
  // Within the budget, and using it.
  const double bits_per_key = BitsSpent(units, p) / Keys(units);
  EXPECT_LE(bits_per_key, 10.0);
  EXPECT_GT(bits_per_key, 9.99);
  // Fewer false reads than uniform p at the same bits per key.
  double uniform = 1.0;
  for (double lo = 1e-6, hi = 1.0; hi - lo > 1e-9;) {
    uniform = (lo + hi) / 2;
    (FilterBitsPerKey(FilterLayout::kBlocked, uniform) > 10.0 ? lo : hi) =
        uniform;
  }
  std::printf("uniform p = %.6f, R = %.5f; allocated R = %.5f\n", uniform,
              4 * uniform, Sum(p));
  EXPECT_NEAR(uniform, 0.0096, 0.0002);
  EXPECT_NEAR(Sum(p), 0.0140, 0.0003);
}

TEST(FilterBudgetTest, CheaperLayoutGetsItsShare) {
  // A Ribbon bit buys more halvings of p than a Bloom bit: at the same
  // keys, the Ribbon unit's weight (keys times bits per halving) is lower,
  // so it gets the smaller p.
  const std::vector<FilterUnit> units = {{1'000'000, FilterLayout::kBlocked},
                                         {1'000'000, FilterLayout::kRibbon}};
  const std::vector<double> p = AllocateFpChances(units, 10.0);
  EXPECT_LT(p[1], p[0]);
  EXPECT_LE(BitsSpent(units, p) / Keys(units), 10.0);
}

TEST(FilterBudgetTest, TinyBudgetsLeaveLargeUnitsWeakFilters) {
  // At half a bit per key the large unit's filter is nearly useless, the
  // small one's still strong; with no bits at all, no unit gets one.
  const std::vector<FilterUnit> units = {{10'000, FilterLayout::kBlocked},
                                         {100'000'000, FilterLayout::kBlocked}};
  const std::vector<double> p = AllocateFpChances(units, 0.5);
  EXPECT_GT(p[1], 0.5);
  EXPECT_LT(p[0], 0.01);
  EXPECT_LE(BitsSpent(units, p) / Keys(units), 0.5);
}

TEST(FilterBudgetTest, HugeBudgetFloorsEveryUnit) {
  const std::vector<FilterUnit> units = {{10, FilterLayout::kBlocked},
                                         {1000, FilterLayout::kBlocked}};
  const std::vector<double> p = AllocateFpChances(units, 1000.0);
  EXPECT_EQ(p[0], kBloomMinFpChance);
  EXPECT_EQ(p[1], kBloomMinFpChance);
}

TEST(FilterBudgetTest, EmptyUnitsGetNoFilter) {
  EXPECT_TRUE(AllocateFpChances({}, 10.0).empty());
  const std::vector<double> p =
      AllocateFpChances({{0, FilterLayout::kBlocked}, {0}}, 10.0);
  EXPECT_EQ(p, (std::vector<double>{1.0, 1.0}));
  const std::vector<double> q = AllocateFpChances(
      {{0, FilterLayout::kBlocked}, {1000, FilterLayout::kBlocked}}, 10.0);
  EXPECT_EQ(q[0], 1.0);
  EXPECT_LT(q[1], 0.01);
}

// ---- On a DB --------------------------------------------------------------

class FilterBudgetDBTest : public test::MemDBTest {
 protected:
  FilterBudgetDBTest() {
    // A few dozen flushes into levels 0 to 2.
    options_.write_buffer_size = 64 << 10;
    options_.max_file_size = 64 << 10;
    options_.max_bytes_for_level_base = 64 << 10;
  }

  uint64_t Property(const char* name) {
    const std::optional<std::string> v = db_->GetProperty(name);
    uint64_t n = 0;
    EXPECT_TRUE(v.has_value() && absl::SimpleAtoi(*v, &n)) << name;
    return n;
  }

  // Per level, the largest and smallest fp chance its files' filters were
  // built for (from sift.levels); {0, 0} for an empty level.
  std::vector<std::pair<double, double>> LevelFpChances() {
    std::vector<std::pair<double, double>> out;
    const std::string levels = *db_->GetProperty("sift.levels");
    for (absl::string_view line : absl::StrSplit(levels, '\n')) {
      std::vector<absl::string_view> cols =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      int level;
      if (cols.size() != 5 || !absl::SimpleAtoi(cols[0], &level)) continue;
      double lo = 0, hi = 0;
      if (cols[4] != "-") {
        lo = 1;
        for (absl::string_view p : absl::StrSplit(cols[4], ',')) {
          double x;
          EXPECT_TRUE(absl::SimpleAtod(p, &x)) << p;
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
      }
      out.push_back({lo, hi});
    }
    return out;
  }
};

TEST_F(FilterBudgetDBTest, OptionsAreChecked) {
  options_.filter_bits_per_key_budget = -1;
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(absl::IsInvalidArgument(db.status()));
  EXPECT_NE(db.status().message().find("-1"), absl::string_view::npos)
      << db.status();
  options_.filter_bits_per_key_budget = std::nan("");
  EXPECT_TRUE(absl::IsInvalidArgument(DB::Open(options_, path_).status()));
  options_.filter_bits_per_key_budget = HUGE_VAL;
  EXPECT_TRUE(absl::IsInvalidArgument(DB::Open(options_, path_).status()));
  options_.filter_bits_per_key_budget = 8;
  options_.bloom_filter_fp_chance = 0.001;
  db = DB::Open(options_, path_);
  ASSERT_TRUE(absl::IsInvalidArgument(db.status()));
  EXPECT_NE(db.status().message().find("bloom_filter_fp_chance"),
            absl::string_view::npos)
      << db.status();
  options_.bloom_filter_fp_chance = Options().bloom_filter_fp_chance;
  EXPECT_TRUE(DB::Open(options_, path_).ok());
}

TEST_F(FilterBudgetDBTest, BudgetHoldsAndUpperLevelsGetSmallerChances) {
  options_.filter_bits_per_key_budget = 8;
  Open();
  constexpr int kKeys = 20000;
  PutScattered(0, kKeys);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  // A newer file above the rest: the tree's upper units.
  PutScattered(0, kKeys / 10);
  ASSERT_TRUE(db_->Flush().ok());
  const std::vector<std::pair<double, double>> p = LevelFpChances();
  int deepest = 0;
  for (int l = 0; l < static_cast<int>(p.size()); ++l) {
    if (p[l].second > 0) deepest = l;
  }
  std::printf("%s", db_->GetProperty("sift.levels")->c_str());
  ASSERT_GE(deepest, 2) << "the test wants at least three levels";
  int upper = 0;
  for (int l = 0; l < deepest; ++l) {
    if (p[l].second == 0) continue;
    ++upper;
    EXPECT_LT(p[l].second, p[deepest].first) << "level " << l;
  }
  EXPECT_GT(upper, 0) << "the test wants a file above the deepest level";
  const uint64_t bytes = Property("sift.filter-bytes");
  const uint64_t keys = Property("sift.filter-keys");
  ASSERT_GE(keys, kKeys);
  const double bits_per_key =
      8.0 * static_cast<double>(bytes) / static_cast<double>(keys);
  std::printf("filter bits per key %.3f (budget 8)\n", bits_per_key);
  // Files were sized for the tree as it was when each was written, and
  // at a few hundred keys per file trailers and whole blocks add ~0.3 bit.
  EXPECT_LE(bits_per_key, 8.0 * 1.15);
  EXPECT_GE(bits_per_key, 8.0 * 0.9);
  // And every key reads back, none that is absent does.
  for (int i = 0; i < kKeys; i += 97) {
    EXPECT_EQ(Get(test::NumberedKey(i)), test::NumberedValue(i));
    EXPECT_EQ(Get(test::NumberedKey(i) + "x"), "NOT_FOUND");
  }
}

}  // namespace
}  // namespace sift
