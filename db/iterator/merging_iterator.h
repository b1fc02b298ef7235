// Merges several iterators over internal keys into one sorted stream
// (duplicates across children are all returned, in order).

#ifndef SIFT_DB_ITERATOR_MERGING_ITERATOR_H_
#define SIFT_DB_ITERATOR_MERGING_ITERATOR_H_

#include <memory>
#include <vector>

#include "sift/iterator.h"
#include "table/internal_key.h"

namespace sift {

// Takes ownership of the children. Keys are ordered by icmp.
std::unique_ptr<Iterator> NewMergingIterator(
    KeyComparator icmp, std::vector<std::unique_ptr<Iterator>> children);

}  // namespace sift

#endif  // SIFT_DB_ITERATOR_MERGING_ITERATOR_H_
