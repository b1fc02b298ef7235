// An iterator over the internal keys of one sorted, disjoint level: the
// files' tables one after another, each opened when reached.

#ifndef SIFT_DB_LEVEL_ITERATOR_H_
#define SIFT_DB_LEVEL_ITERATOR_H_

#include <memory>

#include "db/table_cache.h"
#include "db/version_set.h"
#include "sift/iterator.h"
#include "sift/options.h"

namespace sift {

// Keeps the files (and so their tables) alive while it exists.
std::unique_ptr<Iterator> NewLevelIterator(const ReadOptions& options,
                                           TableCache* cache, FileList files);

}  // namespace sift

#endif  // SIFT_DB_LEVEL_ITERATOR_H_
