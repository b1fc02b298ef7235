#include "db/filter_allocation.h"

#include <algorithm>

#include "db/filter_budget.h"
#include "db/version.h"
#include "table/table_builder.h"

namespace sift {

void TreeKeys::Add(int at_level, uint64_t keys) {
  if (at_level == 0) {
    level0.push_back(keys);
  } else {
    level[at_level] += keys;
  }
}

void TreeKeys::Remove(int at_level, uint64_t keys) {
  if (at_level == 0) {
    auto it = std::find(level0.begin(), level0.end(), keys);
    if (it != level0.end()) level0.erase(it);
  } else {
    level[at_level] -= std::min(level[at_level], keys);
  }
}

uint64_t FileKeys(const FileMetaData& f) {
  const FileFacts& facts = *f.facts;
  return facts.filter.fp_chance < 1.0 ? facts.filter.num_keys
                                      : facts.num_entries;
}

TreeKeys KeysOf(const Version& v) {
  TreeKeys tree;
  for (int level = 0; level < config::kNumLevels; ++level) {
    for (const auto& f : v.files[level]) tree.Add(level, FileKeys(*f));
  }
  return tree;
}

FilterTarget TargetFilter(const Options& options, const TreeKeys& tree,
                          int level, uint64_t file_keys) {
  FilterTarget target;
  target.layout = FilterLayoutForLevel(options, level);
  // A user policy's files carry no built-in filter (its own is not
  // tracked in the facts).
  if (options.filter_policy != nullptr) return target;
  if (!(options.filter_bits_per_key_budget > 0)) {
    target.fp_chance = options.bloom_filter_fp_chance;
    return target;
  }
  // Units: the level-0 files, then levels 1... A new level-0 file of
  // file_keys keys is sized as a unit of its own even if the tree does not
  // count it yet; at deeper levels the unit is the whole level.
  std::vector<FilterUnit> units;
  const FilterLayout layout0 = FilterLayoutForLevel(options, 0);
  for (uint64_t n : tree.level0) units.push_back({n, layout0});
  const size_t self0 = units.size();
  if (level == 0) units.push_back({file_keys, layout0});
  for (int l = 1; l < config::kNumLevels; ++l) {
    uint64_t n = tree.level[l];
    if (l == level) n = std::max(n, file_keys);
    units.push_back({n, FilterLayoutForLevel(options, l)});
  }
  if (level == 0 &&
      std::count(tree.level0.begin(), tree.level0.end(), file_keys) > 0) {
    units.erase(units.begin() + static_cast<ptrdiff_t>(self0));
  }
  const std::vector<double> p =
      AllocateFpChances(units, options.filter_bits_per_key_budget);
  size_t mine = 0;
  if (level == 0) {
    while (units[mine].num_keys != file_keys) ++mine;
  } else {
    mine = units.size() - (config::kNumLevels - level);
  }
  target.fp_chance = p[mine];
  target.tolerance = kBudgetDrift;
  return target;
}

}  // namespace sift
