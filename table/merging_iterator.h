// Merges several iterators over internal keys into one sorted stream
// (duplicates across children are all returned, in order).

#ifndef SIFT_TABLE_MERGING_ITERATOR_H_
#define SIFT_TABLE_MERGING_ITERATOR_H_

#include <memory>
#include <vector>

#include "sift/iterator.h"

namespace sift {

// Takes ownership of the children. Keys are ordered by CompareInternalKeys.
std::unique_ptr<Iterator> NewMergingIterator(
    std::vector<std::unique_ptr<Iterator>> children);

}  // namespace sift

#endif  // SIFT_TABLE_MERGING_ITERATOR_H_
