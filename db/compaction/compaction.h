// Compaction: which files one compaction merges. This folder holds all of
// compaction, in the order one runs (docs/DESIGN.md, "Flush and
// compaction"):
//   compaction.h/.cc        this class: the inputs, the output level, the
//                           grandparent overlap, trivial moves
//   compaction_picker.cc    ColumnFamilyData's part: which level and which
//   files
//                           are due (scores, compact pointers, CompactRange)
//   compaction_job.h/.cc    RunCompaction: the merge into new files, and
//                           DropRules: which entries it drops
//   compaction_range_del.h/.cc  range tombstones in a compaction: what they
//                           delete, which inputs they cover whole, what
//                           each output carries
//   db_impl_compaction.cc   DBImpl's part: the automatic and manual
//                           compactions it schedules, and installing the
//                           result in the MANIFEST
//
// A compaction reads its inputs at `level` (and overlapping files at the
// output level), merges them, drops what no reader can see any more, and
// writes new files cut at max_file_size -- each with a fresh filter built
// from exactly its own keys with the options in force now.

#ifndef SIFT_DB_COMPACTION_COMPACTION_H_
#define SIFT_DB_COMPACTION_COMPACTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "db/column_family.h"
#include "db/version_edit.h"

namespace sift {

class Compaction {
 public:
  // Of family's files (its edit names the family).
  Compaction(ColumnFamilyData* family, int level, int output_level,
             uint64_t max_output_file_size,
             std::shared_ptr<const Version> input_version);

  ColumnFamilyData* family() const { return family_; }

  int level() const { return level_; }
  int output_level() const { return output_level_; }
  uint64_t max_output_file_size() const { return max_output_file_size_; }
  const Version& input_version() const { return *input_version_; }

  // inputs(0): files at level(); inputs(1): files at output_level() (empty
  // when the two are the same level: a rewrite of bottom-level files).
  FileList& inputs(int which) { return inputs_[which]; }
  const FileList& inputs(int which) const { return inputs_[which]; }
  FileList& grandparents() { return grandparents_; }

  VersionEdit* edit() { return &edit_; }

  // One input file, nothing to merge with, little grandparent overlap, and
  // a filter already built with the current settings: move the file.
  bool IsTrivialMove(const Options& options) const;
  // The filter this compaction's outputs get: at output_level(), in the
  // tree as it will be once the inputs are replaced (their keys counted at
  // the output level). output_keys: a level-0 output's own keys (level 0
  // sizes each file; deeper levels size the level).
  FilterTarget OutputFilter(const Options& options,
                            uint64_t output_keys = 0) const;
  // Records the removal of every input in edit.
  void AddInputDeletions(VersionEdit* edit) const;

  // True if no level below the output holds user_key, so a tombstone for it
  // can go. REQUIRES: called with increasing user keys.
  bool IsBaseLevelForKey(std::string_view user_key);
  // True if no level below the output holds a key in [begin, end], so a
  // range tombstone over it can go (no ordering required).
  bool IsBaseLevelForRange(std::string_view begin, std::string_view end) const;
  // True when the current output file should end before ikey, to keep its
  // overlap with the grandparent level small. REQUIRES: increasing keys.
  bool ShouldStopBefore(std::string_view ikey);

  uint64_t InputBytes() const;
  // A copy with the same inputs and grandparents, and fresh cursors
  // (IsBaseLevelForKey, ShouldStopBefore), for one subcompaction: each
  // walks its own key range in increasing order.
  std::unique_ptr<Compaction> ForSubcompaction() const;
  // The output level and the user keys the inputs span: where the outputs
  // go.
  OutputRange output_range() const;

 private:
  ColumnFamilyData* const family_;
  const int level_;
  const int output_level_;
  const uint64_t max_output_file_size_;
  const std::shared_ptr<const Version> input_version_;
  VersionEdit edit_;
  FileList inputs_[2];
  FileList grandparents_;
  size_t grandparent_index_ = 0;
  bool seen_key_ = false;
  uint64_t overlapped_bytes_ = 0;
  size_t level_ptrs_[config::kNumLevels] = {};
};

}  // namespace sift

#endif  // SIFT_DB_COMPACTION_COMPACTION_H_
