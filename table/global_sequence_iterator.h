// An iterator over a table whose entries all take one sequence number
// given from outside the file: an ingested table (db/FORMAT.md, "File
// facts", global_sequence). Its entries are stored with sequence 0; this
// iterator shows each with the global sequence instead, type unchanged,
// so the table sorts and reads as if written with that sequence.

#ifndef SIFT_TABLE_GLOBAL_SEQUENCE_ITERATOR_H_
#define SIFT_TABLE_GLOBAL_SEQUENCE_ITERATOR_H_

#include <memory>

#include "sift/iterator.h"
#include "table/internal_key.h"

namespace sift {

// REQUIRES: base yields internal keys, ordered by icmp, with sequence 0
// and distinct user keys (as SstFileWriter writes them);
// global_sequence > 0.
std::unique_ptr<Iterator> NewGlobalSequenceIterator(
    std::unique_ptr<Iterator> base, const KeyComparator& icmp,
    SequenceNumber global_sequence);

}  // namespace sift

#endif  // SIFT_TABLE_GLOBAL_SEQUENCE_ITERATOR_H_
