// Range tombstones for iterators: the tombstones of a whole read view
// (memtables and every table of its Version), gathered and fragmented once
// when the iterator is made, so each entry it passes costs one binary
// search. Gets do not gather: they check each source's fragments as they
// pass it (MemTable::Get, Version::Get).

#ifndef SIFT_DB_ITERATOR_RANGE_DEL_READ_H_
#define SIFT_DB_ITERATOR_RANGE_DEL_READ_H_

#include <memory>

#include "absl/status/statusor.h"
#include "db/read_view.h"
#include "db/table_cache.h"
#include "table/range_tombstone.h"

namespace sift {

// Every range tombstone in view at or below seq, fragmented; null when
// there is none (then the view's flags are read and no table is opened).
// Tables are opened only when their facts count tombstones.
absl::StatusOr<std::shared_ptr<const FragmentedRangeTombstones>>
CollectRangeTombstones(const ReadView& view, TableCache* cache,
                       SequenceNumber seq);

}  // namespace sift

#endif  // SIFT_DB_ITERATOR_RANGE_DEL_READ_H_
