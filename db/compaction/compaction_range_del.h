// The range tombstones of one compaction: which entries they delete for
// every reader, which input files they cover whole (dropped unread), and
// which of them the outputs carry, cut to each output's key range.

#ifndef SIFT_DB_COMPACTION_COMPACTION_RANGE_DEL_H_
#define SIFT_DB_COMPACTION_COMPACTION_RANGE_DEL_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "db/compaction/compaction.h"
#include "db/table_cache.h"
#include "table/range_tombstone.h"

namespace sift {

class CompactionRangeDels {
 public:
  // Reads the tombstones of c's inputs, opening only the files whose facts
  // count some. snapshots: the live ones, ascending (CompactionContext).
  static absl::StatusOr<CompactionRangeDels> Load(
      const Compaction& c, TableCache* cache,
      const std::vector<SequenceNumber>& snapshots);

  bool empty() const { return all_.empty(); }

  // Input files covered whole by a newer tombstone with no snapshot
  // between them: the compaction drops them without reading a block.
  const std::set<uint64_t>& covered_files() const { return covered_files_; }

  // True if the entry (user_key, seq) is deleted by a range tombstone for
  // every reader: no snapshot sees it without also seeing the tombstone.
  bool Covers(std::string_view user_key, SequenceNumber seq) const;

  // The tombstones an output carries, cut to [lower, upper) (nullopt:
  // unbounded). Each output gets the pieces of its own key span, so the
  // outputs of one level stay disjoint.
  std::vector<RangeTombstone> ForOutput(
      std::optional<std::string_view> lower,
      std::optional<std::string_view> upper) const;

 private:
  CompactionRangeDels() = default;

  std::vector<SequenceNumber> snapshots_;
  FragmentedRangeTombstones all_;  // of the inputs not covered whole
  // What the outputs carry: tombstones some reader still needs, sorted by
  // begin (bottom-level ones no snapshot needs are gone).
  std::vector<RangeTombstone> kept_;
  std::set<uint64_t> covered_files_;
};

}  // namespace sift

#endif  // SIFT_DB_COMPACTION_COMPACTION_RANGE_DEL_H_
