// A two-level iterator: an index iterator whose values name second-level
// iterators, walked one after another as if they were one. It serves both
// a table (index block -> data blocks, table/table.cc) and a level
// of the DB (file list -> tables, db/iterator/level_iterator.cc).
//
// Error policy (the one every siftdb iterator keeps, include/sift/iterator.h):
// an error -- a second level that cannot be opened, or one that reports an
// error -- stops the iterator: it is not Valid() and status() returns the
// error until the next Seek, SeekToFirst or SeekToLast, which starts afresh.
// Going on past a damaged block would let a merge above show an older
// version of the keys that block holds.

#ifndef SIFT_TABLE_TWO_LEVEL_ITERATOR_H_
#define SIFT_TABLE_TWO_LEVEL_ITERATOR_H_

#include <functional>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "sift/iterator.h"

namespace sift {

// Opens the second-level iterator an index entry's value names. The
// iterator it returns must keep alive what it reads (e.g. by holding the
// block or table, or a registered cleanup).
using SecondLevelOpener =
    std::function<absl::StatusOr<std::unique_ptr<Iterator>>(
        std::string_view index_value)>;

// REQUIRES: the index is ordered like the second levels, and an index
// entry's key is >= every key of its second level and < every key of the
// next one (so Seek(target) on the index finds the only candidate).
std::unique_ptr<Iterator> NewTwoLevelIterator(std::unique_ptr<Iterator> index,
                                              SecondLevelOpener open);

}  // namespace sift

#endif  // SIFT_TABLE_TWO_LEVEL_ITERATOR_H_
