// BloomStore: the BF.* filters of sift-server, in memory and in siftdb.
//
// Every filter lives in memory (a ScalableBloomFilter per key), so BF.EXISTS
// and BF.MEXISTS never read the database, and in the database, as records
// of server/FORMAT.md ("Filter records"): a header (the filter's options and
// counts), the sub-filters' bits in 64 KiB pieces, and one delta record per
// write -- the hashes a BF.ADD / BF.MADD / BF.INSERT added and the
// sub-filter each went to. So an add writes a few dozen bytes, never a
// sub-filter: a scalable filter's last sub-filter holds half its bits, and
// rewriting it per add (as a store that keeps a filter as one value must)
// makes each add cost the filter's size in writes. The deltas are folded
// into the pieces once they outweigh the sub-filters they touched: the fold
// rewrites those sub-filters' pieces and the header and deletes the deltas,
// all in the batch of the add that crossed the line. Writes per add stay
// within about twice the delta's bytes, and a restart replays at most
// about one filter's worth of deltas. (With a merge operator the deltas
// become merge operands of the piece they touch and compaction folds them:
// server/FORMAT.md, "Moving to the merge operator".)
//
// Writes go into the caller's WriteBatch (the server's pending batch), so
// a command's records are written atomically, together with whatever else
// the pipeline batched, and acknowledged only once written. If that write
// fails, Reload puts the filters it touched back as the database has them.
//
// Not thread-safe: the server runs commands on one thread.

#ifndef SIFT_SERVER_BLOOM_STORE_H_
#define SIFT_SERVER_BLOOM_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sift/db.h"
#include "sift/scalable_filter.h"
#include "sift/write_batch.h"

namespace sift::server {

class BloomStore {
 public:
  struct Entry {
    explicit Entry(ScalableBloomFilter f) : filter(std::move(f)) {}
    ScalableBloomFilter filter;
    // Delta records with sequence in [first_seq, next_seq) are live.
    uint64_t first_seq = 0;
    uint64_t next_seq = 0;
    // Bytes of those deltas, and the sub-filters they touched.
    uint64_t delta_bytes = 0;
    std::vector<bool> dirty;
  };
  using Map = absl::btree_map<std::string, Entry, std::less<>>;

  // Reads every filter of db. DataLoss naming the key whose records do not
  // decode.
  absl::Status Load(DB* db);

  // The filter of key, or nullptr.
  Entry* Find(std::string_view key);
  // Every filter, in key order (SCAN, INFO).
  const Map& filters() const { return filters_; }
  size_t size() const { return filters_.size(); }
  // Bytes of all filters' bits.
  uint64_t bytes() const;

  // Adds a new filter (key must have none) and writes its header.
  Entry* Create(std::string_view key, ScalableBloomFilter filter,
                WriteBatch* batch);
  // Records adds already made to e->filter: (sub-filter, hash) per item
  // added. One delta record; folds when due.
  void RecordAdds(std::string_view key, Entry* e,
                  absl::Span<const std::pair<size_t, uint64_t>> adds,
                  WriteBatch* batch);
  // Records that sub-filter `sub` of e->filter was overwritten in place
  // (BF.LOADCHUNK): folds, writing its pieces.
  void RecordRewrite(std::string_view key, Entry* e, size_t sub,
                     WriteBatch* batch);
  // Deletes key's filter (memory and records).
  void Erase(std::string_view key, WriteBatch* batch);
  // Forgets every filter without writing (FLUSHDB writes the range
  // deletion itself).
  void Clear() { filters_.clear(); }
  // Puts key's filter back as db holds it (after a failed write).
  absl::Status Reload(DB* db, std::string_view key);

  // Folds every filter's deltas (graceful shutdown leaves none to replay).
  void FoldAll(WriteBatch* batch);

  // How many folds ran (INFO).
  uint64_t folds() const { return folds_; }

 private:
  void Fold(std::string_view key, Entry* e, WriteBatch* batch);
  absl::Status LoadOne(std::string_view key, Iterator* it,
                       std::string_view prefix);

  Map filters_;
  uint64_t folds_ = 0;
};

}  // namespace sift::server

#endif  // SIFT_SERVER_BLOOM_STORE_H_
