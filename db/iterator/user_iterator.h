// Turns an iterator over internal keys (a table, or the DB's merge of
// memtables and tables) into the user's view at a sequence number: user keys
// in order, each with its newest value at or below the sequence; keys whose
// newest entry is a tombstone are hidden. Both directions are supported.

#ifndef SIFT_DB_ITERATOR_USER_ITERATOR_H_
#define SIFT_DB_ITERATOR_USER_ITERATOR_H_

#include <memory>
#include <optional>
#include <string>

#include "sift/iterator.h"
#include "sift/options.h"
#include "table/internal_key.h"
#include "table/range_tombstone.h"

namespace sift {

// User-key bounds: lower inclusive, upper exclusive; nullopt: none.
struct UserKeyBounds {
  std::optional<std::string> lower;
  std::optional<std::string> upper;

  // ReadOptions' iterate_lower_bound and iterate_upper_bound.
  static UserKeyBounds Of(const ReadOptions& options) {
    return {options.iterate_lower_bound, options.iterate_upper_bound};
  }
};

// Entries newer than `sequence` are invisible. icmp orders the internal
// iterator's keys. With range_tombstones (not null), an entry older than a
// tombstone covering its key, at or below `sequence`, is hidden as if
// deleted. The iterator shows no key outside `bounds` (ReadOptions'
// iterate_lower_bound and iterate_upper_bound), and reads the internal
// iterator no further than the first entry beyond them.
std::unique_ptr<Iterator> NewUserIterator(
    KeyComparator icmp, std::unique_ptr<Iterator> internal,
    SequenceNumber sequence,
    std::shared_ptr<const FragmentedRangeTombstones> range_tombstones = nullptr,
    UserKeyBounds bounds = {});

}  // namespace sift

#endif  // SIFT_DB_ITERATOR_USER_ITERATOR_H_
