// Range tombstones: DeleteRange(begin, end) at sequence s hides every entry
// of a user key in [begin, end) whose sequence is below s, for reads at
// sequences >= s.
//
// Tombstones may overlap. FragmentedRangeTombstones cuts them, as RocksDB
// and Pebble do, into non-overlapping fragments, each carrying the
// sequences of every tombstone covering it, so "which tombstones cover key
// k" is one binary search. The memtable, each open table and each compaction
// keep their tombstones in this form; tables store them in their
// range-deletion block (FORMAT.md, "Range-deletion block").
//
// Immutable once built; any number of threads may read one concurrently.

#ifndef SIFT_TABLE_RANGE_TOMBSTONE_H_
#define SIFT_TABLE_RANGE_TOMBSTONE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "table/internal_key.h"

namespace sift {

struct RangeTombstone {
  std::string begin;  // user keys: the range is [begin, end)
  std::string end;
  SequenceNumber seq = 0;

  bool operator==(const RangeTombstone&) const = default;
};

class FragmentedRangeTombstones {
 public:
  // [begin, end) with the sequences of the tombstones covering all of it,
  // newest first.
  struct Fragment {
    std::string begin, end;
    std::vector<SequenceNumber> seqs;
  };

  FragmentedRangeTombstones() = default;
  // Any order; overlapping and duplicate tombstones are fine. Empty ranges
  // (begin >= end) cover nothing and are left out.
  explicit FragmentedRangeTombstones(
      const std::vector<RangeTombstone>& tombstones);

  bool empty() const { return fragments_.empty(); }
  const std::vector<Fragment>& fragments() const { return fragments_; }

  // The newest sequence <= read_seq of a tombstone covering user_key, or 0
  // when none does. (Sequence 0 is never a tombstone's: every write gets a
  // sequence >= 1.) An entry of user_key with a smaller sequence is deleted
  // for a read at read_seq.
  SequenceNumber MaxCoveringSeq(std::string_view user_key,
                                SequenceNumber read_seq) const;
  // The oldest sequence > seq of a tombstone covering user_key, or 0: the
  // tombstone that deleted an entry (user_key, seq) first.
  SequenceNumber MinCoveringSeqAbove(std::string_view user_key,
                                     SequenceNumber seq) const;

  // The fragments as tombstones, one per (fragment, sequence), sorted by
  // begin then sequence descending: the order a range-deletion block holds.
  std::vector<RangeTombstone> ToTombstones() const;

  // Bytes held, for memory accounting.
  size_t MemoryUsage() const { return memory_; }

 private:
  // The fragment holding user_key, or null.
  const Fragment* Find(std::string_view user_key) const;

  std::vector<Fragment> fragments_;  // sorted by begin, disjoint
  size_t memory_ = 0;
};

}  // namespace sift

#endif  // SIFT_TABLE_RANGE_TOMBSTONE_H_
