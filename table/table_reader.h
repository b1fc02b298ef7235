// Table: an open, immutable SSTable (table/FORMAT.md).
//
// Open reads the footer, metaindex, properties, filter and index once; the
// filter and the index stay in memory for the life of the Table. Data blocks
// are read on demand through a shared block cache. A point lookup is one
// filter probe with the key's precomputed hash, then -- only on "maybe" --
// a binary search of the in-memory index and one data block.
//
// Thread-safe: any number of threads may read one Table concurrently.

#ifndef SIFT_TABLE_TABLE_READER_H_
#define SIFT_TABLE_TABLE_READER_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/table_properties.h"
#include "table/block.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "table/range_tombstone.h"
#include "util/bloom.h"
#include "util/cache.h"

namespace sift {

using BlockCache = LruCache<Block>;

// What one lookup cost; the caller adds these into its statistics.
struct TableReadCounters {
  uint64_t block_cache_hits = 0;
  uint64_t block_cache_misses = 0;
  uint64_t blocks_read = 0;  // data blocks read from the file
  uint64_t bytes_read = 0;
};

// Where a table iterator reports the cost of each data block it reads (the
// DB adds it to its statistics, at the table's level). Called from the
// iterator's thread; must outlive the iterator.
class ReadCounterSink {
 public:
  virtual void Add(const TableReadCounters& counters) = 0;

 protected:
  ~ReadCounterSink() = default;
};

class Table {
 public:
  // Opens the table in `file` (of file_size bytes). file_name is used in
  // error messages. block_cache may be null (no caching); it must outlive
  // the Table. comparator orders the keys: the one the table was written
  // with. A damaged or unknown-format filter does not fail Open: the
  // table is read without it (filter_status() says why).
  static absl::StatusOr<std::unique_ptr<Table>> Open(
      std::string file_name, std::unique_ptr<RandomAccessFile> file,
      uint64_t file_size, BlockCache* block_cache,
      const Comparator* comparator);

  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // The filter alone: false means the user key whose KeyHash is `hash` is
  // definitely not in this file. True when the file has no usable filter.
  bool KeyMayMatch(uint64_t hash) const { return filter_.MayContainHash(hash); }
  // Touches the filter's cache line for `hash`, ahead of KeyMayMatch.
  void PrefetchFilter(uint64_t hash) const { filter_.Prefetch(hash); }
  // True when the file carries a filter that Open could trust.
  bool has_filter() const { return filter_.valid(); }
  // Why a filter block present in the file is not used (OK otherwise).
  const absl::Status& filter_status() const { return filter_status_; }

  // The file's range tombstones (its range-deletion block), fragmented at
  // Open and kept in memory; empty for a file without them.
  const FragmentedRangeTombstones& range_tombstones() const {
    return range_tombstones_;
  }

  enum class LookupResult : uint8_t {
    kNotFound,  // no entry for the user key at or below the sequence
    kFound,     // *value holds the newest value at or below the sequence
    kDeleted,   // the newest entry at or below the sequence is a tombstone
  };

  // Looks up `lookup_key`, an internal key (user key, sequence,
  // kValueTypeForSeek), skipping the filter (callers probe it first with
  // KeyMayMatch so they can count). Reads at most one data block.
  // Range tombstones are not applied (see range_tombstones()). When found
  // (or deleted) and seq is not null, *seq is the entry's sequence.
  absl::Status Get(const ReadOptions& options, std::string_view lookup_key,
                   std::string* value, LookupResult* result,
                   TableReadCounters* counters,
                   SequenceNumber* seq = nullptr) const;

  // Iterates internal keys (a two-level iterator over the index and the
  // data blocks, table/two_level_iterator.h); reports damage through
  // status(). Block reads are reported to sink, if not null.
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options,
                                        ReadCounterSink* sink = nullptr) const;

  const TableProperties& properties() const { return properties_; }
  const std::string& file_name() const { return file_name_; }
  uint64_t file_size() const { return file_size_; }
  // Bytes pinned in memory: the filter and the index.
  size_t FilterMemory() const { return filter_size_; }
  size_t IndexMemory() const;
  // The parsed filter, for tools.
  const BloomFilterReader& filter() const { return filter_; }

  // Reads every block and checks its checksum, and that the blocks tile the
  // file (FORMAT.md): any damaged byte is reported as DataLoss naming the
  // file, the block and its offset.
  absl::Status VerifyChecksum() const;

  // For tools: the handles of every block, in file order, with a name.
  struct BlockInfo {
    // "data", "filter", "range_del", "properties", "metaindex", "index"
    std::string kind;
    BlockHandle handle;
  };
  std::vector<BlockInfo> Blocks() const;

  // Reads the data block at handle through the cache (for iterators).
  absl::StatusOr<std::shared_ptr<const Block>> ReadDataBlock(
      const ReadOptions& options, const BlockHandle& handle,
      TableReadCounters* counters) const;

 private:
  struct IndexEntry {
    std::string_view key;  // points into index_block_
    BlockHandle handle;
  };

  Table(std::string file_name, std::unique_ptr<RandomAccessFile> file,
        uint64_t file_size, BlockCache* cache, const Comparator* comparator);
  absl::Status ReadMeta(const BlockHandle& metaindex);
  absl::Status ParseIndex(const BlockHandle& handle);
  void LoadFilter(const BlockHandle& handle);
  absl::Status LoadRangeTombstones(const BlockHandle& handle);
  // Part of VerifyChecksum: data block i (index order), given the last key
  // of the blocks before it, which it updates.
  absl::Status VerifyDataBlock(size_t i, BlockContents contents,
                               std::string* last_key) const;
  // Index of the first block whose separator is >= ikey (== size: none).
  size_t FindBlock(std::string_view ikey) const;

  class IndexIter;

  const std::string file_name_;
  const std::unique_ptr<RandomAccessFile> file_;
  const uint64_t file_size_;
  BlockCache* const cache_;
  const uint64_t cache_id_;
  const KeyComparator icmp_;

  TableProperties properties_;
  std::unique_ptr<Block> index_block_;
  std::vector<IndexEntry> index_;
  BlockHandle metaindex_handle_, index_handle_, properties_handle_;
  bool has_filter_block_ = false;
  BlockHandle filter_handle_;
  // The filter, in cache-line-aligned memory so a blocked probe touches one
  // line, not two.
  struct FreeDeleter {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, FreeDeleter> filter_data_;
  size_t filter_size_ = 0;
  BloomFilterReader filter_;
  absl::Status filter_status_;
  bool has_range_del_block_ = false;
  BlockHandle range_del_handle_;
  FragmentedRangeTombstones range_tombstones_;
};

}  // namespace sift

#endif  // SIFT_TABLE_TABLE_READER_H_
