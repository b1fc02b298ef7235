// Which filter each file should carry. With a fixed bloom_filter_fp_chance,
// every file the same; with Options::filter_bits_per_key_budget, the
// allocation of db/filter_budget.h over the tree's shape: each level-0
// file and each deeper level is one unit a missing-key Get probes, and
// gets an fp chance proportional to the keys it holds.
//
// The shape is taken when a file is made (a flush, a compaction output) or
// checked (a trivial move, CompactRange, RebuildFilters), so files made at
// different times were sized for slightly different trees; a filter within
// kBudgetDrift of its level's allocation counts as current.

#ifndef SIFT_DB_FILTER_ALLOCATION_H_
#define SIFT_DB_FILTER_ALLOCATION_H_

#include <cstdint>
#include <vector>

#include "db/dbformat.h"
#include "db/file_meta.h"
#include "sift/options.h"

namespace sift {

class Version;

// How far a budgeted file's fp chance may be from its level's allocation
// before the file's filter is no longer current: a factor of 2 either way.
// Tighter, and every flush would make old files stale (the allocation moves
// with the tree); looser, and false reads or memory drift from the optimum
// by more than the budget buys.
constexpr double kBudgetDrift = 2.0;

// Keys per unit a missing-key Get probes.
struct TreeKeys {
  std::vector<uint64_t> level0;             // per level-0 file
  uint64_t level[config::kNumLevels] = {};  // levels >= 1 ([0] unused)

  void Add(int at_level, uint64_t keys);
  // Removes one level-0 file of `keys` keys, or keys from a deeper level.
  void Remove(int at_level, uint64_t keys);
};

// The distinct keys of a file: its filter's count, or its entries when it
// has no filter.
uint64_t FileKeys(const FileMetaData& f);
// The keys of v's files, by unit.
TreeKeys KeysOf(const Version& v);

// The filter of a file at `level` holding file_keys keys, in a tree of the
// shape `tree` (which counts the file). Without a budget: the options' fp
// chance and the level's layout, exactly. Under Options::filter_policy: no
// built-in filter (fp chance 1.0).
FilterTarget TargetFilter(const Options& options, const TreeKeys& tree,
                          int level, uint64_t file_keys);

}  // namespace sift

#endif  // SIFT_DB_FILTER_ALLOCATION_H_
