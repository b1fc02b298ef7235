// MemTable: the in-memory, sorted buffer of recent writes (a skip list over
// an arena), plus a whole-key Bloom filter (util/dynamic_bloom.h, the table
// filters' blocked layout) so that a Get for a key the memtable does not
// hold usually skips the skip-list walk.
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

#include "db/dbformat.h"
#include "db/skiplist.h"
#include "db/statistics_impl.h"
#include "sift/iterator.h"
#include "util/arena.h"
#include "util/dynamic_bloom.h"

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

  enum class GetResult : uint8_t { kNotFound, kFound, kDeleted };
  // The newest entry for key.user_key() at or below its sequence. hash is
  // KeyHash(user key), shared with the table filters' probes. The filter's
  // answer is counted in stats (sift.memtable.filter.*).
  GetResult Get(const LookupKey& key, uint64_t hash, std::string* value,
                LocalStats* stats) const;

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
};

// A memtable for a write buffer of write_buffer_size bytes, its whole-key
// filter sized for it (memtable.cc says how).
std::shared_ptr<MemTable> NewMemTableForWriteBuffer(KeyComparator icmp,
                                                    size_t write_buffer_size);

}  // namespace sift

#endif  // SIFT_DB_MEMTABLE_H_
