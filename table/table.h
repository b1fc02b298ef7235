// Table: an open, immutable SSTable (table/FORMAT.md).
//
// Open reads the footer, metaindex, properties, filter and index once; the
// filter and the index stay in memory for the life of the Table. Data blocks
// are read on demand through a shared block cache. A point lookup is one
// filter probe with the key's precomputed hash, then -- only on "maybe" --
// a binary search of the in-memory index and one data block.
//
// Thread-safe: any number of threads may read one Table concurrently.

#ifndef SIFT_TABLE_TABLE_H_
#define SIFT_TABLE_TABLE_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sift/env.h"
#include "sift/filter_policy.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/table_properties.h"
#include "table/block.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "table/range_tombstone.h"
#include "util/cache.h"
#include "util/filter.h"

namespace sift {

using BlockCache = LruCache<Block>;

// What lookups cost and what the filter answered them; the caller adds
// these into its statistics (db/statistics_impl.h, AddTableCounters).
struct TableReadCounters {
  uint64_t block_cache_hits = 0;
  uint64_t block_cache_misses = 0;
  uint64_t blocks_read = 0;  // data blocks read from the file
  uint64_t bytes_read = 0;
  // Point lookups only (Get, MultiGet): those that asked a usable filter,
  // those it ruled out, those it let through that found an entry, and
  // those of a table whose filter is damaged (read without one).
  uint64_t filter_checked = 0;
  uint64_t filter_useful = 0;
  uint64_t filter_true_positive = 0;
  uint64_t filter_corrupt = 0;
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
  // with (InvalidArgument naming both when its properties name another).
  // A damaged or unknown-format filter does not fail Open: the
  // table is read without it (filter_status() says why).
  // global_sequence > 0: every entry is stored with sequence 0 and is read
  // as if it had this sequence (an ingested file, db/FORMAT.md).
  // replacement_filter, if given, is a filter of the same keys kept
  // outside the file (db/FORMAT.md, "Filter files"): the table probes it
  // instead of its own filter block, which is then not read -- unless the
  // replacement does not parse, when the table's own filter is used and
  // filter_status() says why.
  // filter_policy: Options::filter_policy, or null for the built-in
  // filters; it must outlive the Table. When set, the table probes only a
  // user filter built by a policy of the same Name() (table/FORMAT.md,
  // "User filter block"), never the built-in filter or a replacement.
  static absl::StatusOr<std::unique_ptr<Table>> Open(
      std::string file_name, std::unique_ptr<RandomAccessFile> file,
      uint64_t file_size, BlockCache* block_cache, const Comparator* comparator,
      SequenceNumber global_sequence = 0,
      std::optional<std::string_view> replacement_filter = std::nullopt,
      const FilterPolicy* filter_policy = nullptr);

  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // The filter alone: false means the user key whose KeyHash is `hash` is
  // definitely not in this file. True when the file has no usable filter.
  bool KeyMayMatch(uint64_t hash) const { return filter_.MayContainHash(hash); }
  // Touches the filter's cache line for `hash`, ahead of KeyMayMatch.
  void PrefetchFilter(uint64_t hash) const { filter_.Prefetch(hash); }
  // True when the file carries a built-in filter that Open could trust.
  bool has_filter() const { return filter_.valid(); }

  // With a user filter policy: true when the file carries a filter built
  // by a policy of its name, which UserKeyMayMatch probes.
  bool has_user_filter() const { return has_user_filter_; }
  // False means user_key is definitely not in this file. True when the
  // file has no user filter.
  bool UserKeyMayMatch(std::string_view user_key) const {
    return !has_user_filter_ ||
           user_policy_->KeyMayMatch(user_key, user_filter_);
  }
  // Why a filter block present in the file (or a replacement filter given
  // to Open) is not used (OK otherwise).
  const absl::Status& filter_status() const { return filter_status_; }
  // True when the filter probed is a replacement given to Open.
  bool filter_is_replacement() const { return filter_is_replacement_; }

  // The file's range tombstones (its range-deletion block), fragmented at
  // Open and kept in memory; empty for a file without them.
  const FragmentedRangeTombstones& range_tombstones() const {
    return range_tombstones_;
  }

  enum class LookupResult : uint8_t {
    kFilteredOut,  // the filter ruled the user key out: no block was read
    kNotFound,     // no entry for the user key at or below the sequence
    kFound,        // *value holds the newest value at or below the sequence
    kDeleted,      // the newest entry at or below the sequence is a tombstone
  };

  // One point lookup: what Get and MultiGet are asked, and their answer.
  struct Lookup {
    // An internal key: the user key, the read's sequence, kValueTypeForSeek.
    std::string_view key;
    uint64_t hash = 0;  // KeyHash of its user key, for the built-in filter
    std::string* value = nullptr;
    // False skips the filter: for tools checking the data below it.
    bool use_filter = true;
    LookupResult result = LookupResult::kNotFound;
    // When found or deleted: the entry's sequence (an ingested table's
    // global sequence).
    SequenceNumber sequence = 0;
    absl::Status status;
  };

  // Asks the filter (the replacement, the embedded one, or the user
  // policy's) and, on "maybe", the index and at most one data block.
  // Range tombstones are not applied (see range_tombstones()). Counts the
  // filter's answer and the blocks read into *counters.
  void Get(const ReadOptions& options, Lookup* lookup,
           TableReadCounters* counters) const {
    if (AskFilter(lookup, counters)) {
      ReadEntries(options, absl::MakeSpan(lookup, 1), counters);
    }
  }
  // Get for each of `lookups`, in ascending key order. Consecutive keys
  // served by one data block read it once; a block that fails to read
  // fails only the keys it serves.
  void MultiGet(const ReadOptions& options, absl::Span<Lookup> lookups,
                TableReadCounters* counters) const;

  // Iterates internal keys (a two-level iterator over the index and the
  // data blocks, table/two_level_iterator.h); reports damage through
  // status(). Block reads are reported to sink, if not null.
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options,
                                        ReadCounterSink* sink = nullptr) const;

  // Where the data for internal keys >= ikey starts, as a byte offset into
  // the file: the offset of the first data block that may hold such a key,
  // or the file size when no block does (so the filter, index and footer
  // count with the file's last keys). From the in-memory index: no I/O.
  uint64_t ApproximateOffsetOf(std::string_view ikey) const;

  const TableProperties& properties() const { return properties_; }
  const std::string& file_name() const { return file_name_; }
  uint64_t file_size() const { return file_size_; }
  // The sequence all entries are read with, or 0: their own.
  SequenceNumber global_sequence() const { return global_sequence_; }
  // Bytes pinned in memory: the filter and the index.
  size_t FilterMemory() const { return filter_size_ + user_filter_.size(); }
  size_t IndexMemory() const;
  // The parsed filter, for tools.
  const FilterReader& filter() const { return filter_; }

  // Reads every block and checks its checksum, and that the blocks tile the
  // file (FORMAT.md): any damaged byte is reported as DataLoss naming the
  // file, the block and its offset.
  absl::Status VerifyChecksum() const;

  // For tools: the handles of every block, in file order, with a name.
  struct BlockInfo {
    // "data", "filter", "user filter", "range_del", "properties",
    // "metaindex", "index"
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
        uint64_t file_size, BlockCache* cache, const Comparator* comparator,
        const FilterPolicy* filter_policy);
  absl::Status ReadMeta(const BlockHandle& metaindex,
                        std::optional<std::string_view> replacement_filter);
  absl::Status ParseIndex(const BlockHandle& handle);
  void LoadFilter(const BlockHandle& handle);
  // Under a user policy: reads the user filter block if that policy built
  // it.
  void LoadUserFilter();
  absl::Status LoadRangeTombstones(const BlockHandle& handle);
  // Keeps a copy of `filter` as the table's filter; false (and no filter)
  // if it does not parse.
  bool UseFilter(std::string_view filter);
  // Part of VerifyChecksum: data block i (index order), given the last key
  // of the blocks before it, which it updates.
  absl::Status VerifyDataBlock(size_t i, BlockContents contents,
                               std::string* last_key) const;
  // The start of Get and MultiGet for one lookup: clears its status and
  // sets its result to kFilteredOut when the filter rules its key out,
  // else kNotFound (still to read: returns true).
  bool AskFilter(Lookup* l, TableReadCounters* counters) const {
    l->status = absl::OkStatus();
    const bool out = FilterRulesOut(*l, counters);
    l->result = out ? LookupResult::kFilteredOut : LookupResult::kNotFound;
    return !out;
  }
  // True when the filter rules out l's user key; counts the answer. Inline:
  // a miss the filter answers costs no call.
  bool FilterRulesOut(const Lookup& l, TableReadCounters* counters) const {
    if (!l.use_filter) return false;
    if (filter_.valid() || has_user_filter_) {
      ++counters->filter_checked;
      const bool out = filter_.valid()
                           ? !filter_.MayContainHash(l.hash)
                           : !UserKeyMayMatch(ExtractUserKey(l.key));
      counters->filter_useful += out;
      return out;
    }
    counters->filter_corrupt += !filter_status_.ok();
    return false;
  }
  // The part of Get and MultiGet past the filter: looks up each of
  // `lookups` (ascending) not kFilteredOut, whose status is OK and result
  // kNotFound on entry, in the index and its data block.
  void ReadEntries(const ReadOptions& options, absl::Span<Lookup> lookups,
                   TableReadCounters* counters) const;
  // Index of the first block whose separator is >= ikey (== size: none).
  size_t FindBlock(std::string_view ikey) const;
  // The newest entry for lookup_key's user key at or below its sequence
  // in `block`, data block i.
  absl::Status GetInBlock(const Block& block, size_t i,
                          std::string_view lookup_key, std::string* value,
                          LookupResult* result, SequenceNumber* seq) const;

  class IndexIter;

  const std::string file_name_;
  const std::unique_ptr<RandomAccessFile> file_;
  const uint64_t file_size_;
  BlockCache* const cache_;
  const uint64_t cache_id_;
  const KeyComparator icmp_;
  const FilterPolicy* const user_policy_;  // null: built-in filters
  SequenceNumber global_sequence_ = 0;

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
  FilterReader filter_;
  absl::Status filter_status_;
  bool has_range_del_block_ = false;
  BlockHandle range_del_handle_;
  FragmentedRangeTombstones range_tombstones_;
  bool filter_is_replacement_ = false;
  bool has_user_filter_block_ = false;
  BlockHandle user_filter_handle_;
  bool has_user_filter_ = false;
  std::string user_filter_;
};

}  // namespace sift

#endif  // SIFT_TABLE_TABLE_H_
