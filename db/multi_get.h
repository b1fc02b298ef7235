// MultiGet: many point reads through one read view at one sequence
// (docs/DESIGN.md, "MultiGet"). DBImpl::MultiGet asks the memtables key by
// key, then hands the keys they did not decide, sorted, to Version::MultiGet,
// which goes a level at a time: it prefetches the filter cache line of
// every key in every file of the level it falls in, then visits each such
// file once for all its keys; the keys the filter lets through share each
// data block they need.

#ifndef SIFT_DB_MULTI_GET_H_
#define SIFT_DB_MULTI_GET_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "table/internal_key.h"

namespace sift {

// One key of a batch on its way through the read view.
struct MultiGetKey {
  std::string_view user_key;
  uint64_t prefix = 0;  // UserKeyPrefix(user_key): orders most bytewise pairs
  // user_key at the batch's sequence, as a table lookup key (LookupKey's
  // internal_key); set once the memtables have missed.
  std::string_view internal_key;
  uint64_t hash = 0;  // KeyHash(user_key), computed once for the batch
  std::string* value = nullptr;
  absl::Status* status = nullptr;  // set only on an error
  // Found, deleted or failed: no later file is asked.
  bool done = false;
  bool found = false;
  // The newest visible range tombstone covering the key among the sources
  // asked so far (0: none); an entry found older than it is deleted. Kept
  // only when the view holds range tombstones (MultiGetKey::covering of
  // Version::MultiGet's `range_dels`).
  SequenceNumber covering = 0;
};

}  // namespace sift

#endif  // SIFT_DB_MULTI_GET_H_
