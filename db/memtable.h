// MemTable: the in-memory, sorted buffer of recent writes (a skip list over
// an arena), plus a whole-key Bloom filter (util/dynamic_bloom.h, the table
// filters' blocked layout) so that a Get for a key the memtable does not
// hold usually skips the skip-list walk. Range tombstones are kept apart
// from the skip list, in a list fragmented on demand
// (table/range_tombstone.h), so point entries and iterators over them are
// unchanged and a memtable without tombstones pays one flag load.
//
// Thread safety: one writer (Add) at a time, externally serialized; any
// number of concurrent readers (Get, iterators) without locks. Shared by
// std::shared_ptr: the DB, readers and iterators each hold a reference.

#ifndef SIFT_DB_MEMTABLE_H_
#define SIFT_DB_MEMTABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "db/dbformat.h"
#include "db/skiplist.h"
#include "db/statistics_impl.h"
#include "sift/iterator.h"
#include "table/range_tombstone.h"
#include "util/arena.h"
#include "util/dynamic_bloom.h"
#include "util/mutex.h"

namespace sift {

class MemTable {
 public:
  // icmp orders the entries; filter_bits: size of the whole-key filter (0:
  // none), rounded up to whole 512-bit blocks; filter_probes: its probes
  // per key.
  MemTable(KeyComparator icmp, size_t filter_bits, int filter_probes);
  ~MemTable();

  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  // Bytes of memory used (arena + filter). Safe to call concurrently.
  size_t ApproximateMemoryUsage() const;
  size_t FilterMemory() const { return filter_.MemoryUsage(); }

  // REQUIRES: external serialization of writers; sequences strictly
  // increase across calls.
  void Add(SequenceNumber seq, ValueType type, std::string_view key,
           std::string_view value);

  // Records DeleteRange(begin, end) at seq. REQUIRES: as Add.
  void AddRangeTombstone(SequenceNumber seq, std::string_view begin,
                         std::string_view end);
  // True once a range tombstone was added. Readers see every tombstone
  // with a sequence they may read (published like the point entries).
  bool has_range_tombstones() const {
    return has_range_tombstones_.load(std::memory_order_acquire);
  }
  // The range tombstones added so far, fragmented (empty when none). The
  // first call after an add fragments them again, under a lock readers of
  // a memtable with tombstones share.
  std::shared_ptr<const FragmentedRangeTombstones> RangeTombstones() const;
  // The range tombstones as added, for writing them to a table.
  std::vector<RangeTombstone> RangeTombstoneList() const;

  enum class GetResult : uint8_t { kNotFound, kFound, kDeleted };
  // The newest entry for key.user_key() at or below its sequence. hash is
  // KeyHash(user key), shared with the table filters' probes. The filter's
  // answer is counted in stats (sift.memtable.filter.*). With covering
  // null, range tombstones are not consulted (the caller knows there are
  // none). Otherwise *covering is raised to the newest visible tombstone
  // here covering the key (MaxCoveringSeq), and an entry older than
  // *covering reads as kDeleted.
  GetResult Get(const LookupKey& key, uint64_t hash, std::string* value,
                LocalStats* stats, SequenceNumber* covering = nullptr) const;

  // Iterates internal keys. REQUIRES: the MemTable outlives the iterator.
  std::unique_ptr<Iterator> NewIterator() const;

  uint64_t num_entries() const {
    return num_entries_.load(std::memory_order_relaxed);
  }
  bool empty() const { return num_entries() == 0; }

 private:
  struct EntryComparator {
    // Entries and lookup keys both start with a varint32-prefixed
    // internal key.
    int operator()(const char* a, const char* b) const;
    KeyComparator icmp;
  };
  using Table = SkipList<const char*, EntryComparator>;
  class Iter;

  const KeyComparator icmp_;
  Arena arena_;
  Table table_;
  std::atomic<uint64_t> num_entries_{0};
  // The user-key hashes of every entry. A reader only consults it for
  // sequences already published by the DB (with release/acquire on the
  // last sequence), so it sees every bit it needs.
  DynamicBloom filter_;

  std::atomic<bool> has_range_tombstones_{false};
  std::atomic<size_t> range_tombstone_bytes_{0};
  mutable Mutex range_mu_;
  std::vector<RangeTombstone> range_list_ ABSL_GUARDED_BY(range_mu_);
  // range_list_ fragmented, or null when stale (an add since).
  mutable std::shared_ptr<const FragmentedRangeTombstones> range_fragments_
      ABSL_GUARDED_BY(range_mu_);
};

// A memtable for a write buffer of write_buffer_size bytes, its whole-key
// filter sized for it (memtable.cc says how).
std::shared_ptr<MemTable> NewMemTableForWriteBuffer(KeyComparator icmp,
                                                    size_t write_buffer_size);

}  // namespace sift

#endif  // SIFT_DB_MEMTABLE_H_
