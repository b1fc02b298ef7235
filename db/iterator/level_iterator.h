// An iterator over the internal keys of one sorted, disjoint level: a
// two-level iterator (table/two_level_iterator.h) whose index is the level's
// file list and whose second levels are the files' tables, each opened
// through the table cache when reached.

#ifndef SIFT_DB_ITERATOR_LEVEL_ITERATOR_H_
#define SIFT_DB_ITERATOR_LEVEL_ITERATOR_H_

#include <memory>

#include "db/table_cache.h"
#include "db/version.h"
#include "sift/iterator.h"
#include "sift/options.h"

namespace sift {

// Keeps the files (and so their tables) alive while it exists. Block reads
// are reported to sink, if not null (e.g. the DB's statistics for the
// level); cache and sink must outlive the iterator. icmp orders the
// files' keys.
std::unique_ptr<Iterator> NewLevelIterator(KeyComparator icmp,
                                           const ReadOptions& options,
                                           TableCache* cache, FileList files,
                                           ReadCounterSink* sink = nullptr);

}  // namespace sift

#endif  // SIFT_DB_ITERATOR_LEVEL_ITERATOR_H_
