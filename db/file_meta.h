// FileMetaData: what the MANIFEST records about one table file -- where it
// is (number, size, key range) and its facts (db/FORMAT.md, "File facts"),
// which compaction, properties and tools read without opening the file.
//
// Plain data: records hold facts, the TableCache holds open tables.

#ifndef SIFT_DB_FILE_META_H_
#define SIFT_DB_FILE_META_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/dbformat.h"
#include "sift/options.h"
#include "sift/table_properties.h"

namespace sift {

// How a filter was built, as its table's properties record it.
struct FilterFacts {
  FilterLayout layout = FilterLayout::kBlocked;
  // The false-positive chance it was built for; 1.0: no filter.
  double fp_chance = 1.0;
  double bits_per_key = 0;
  uint64_t num_keys = 0;  // distinct user keys it holds

  bool operator==(const FilterFacts&) const = default;
};

// Bytes of a filter with these facts: its body (bits_per_key * num_keys
// bits) and its trailer; 0 for none.
uint64_t FilterBytes(const FilterFacts& f);

// A filter built after its table and kept in a file of its own, which
// readers use instead of the table's filter: the filter-only rebuild
// changes a file's fp chance without rewriting its data (DB::RebuildFilters,
// db/filter_rebuild.h).
struct ReplacementFilter {
  uint64_t number = 0;  // the filter's file
  uint64_t size = 0;
  FilterFacts filter;

  bool operator==(const ReplacementFilter&) const = default;
};

struct FileFacts {
  uint64_t num_entries = 0;    // values and tombstones
  uint64_t num_deletions = 0;  // tombstones
  // Every entry's sequence (range tombstones' too) is in [smallest_seq,
  // largest_seq]: exact for
  // files recorded with their facts, a bound for files from a format-1
  // MANIFEST (see FactsFromProperties).
  SequenceNumber smallest_seq = 0;
  SequenceNumber largest_seq = 0;
  FilterFacts filter;  // the table's own filter
  std::optional<ReplacementFilter> replacement;
  // Nonzero for an ingested file: its entries are stored with sequence 0
  // and read with this one (smallest_seq == largest_seq == it).
  SequenceNumber global_sequence = 0;
  // Range tombstones in the file's range-deletion block. Readers skip the
  // tombstone checks of a Version none of whose files has any.
  uint64_t num_range_deletions = 0;

  // The filter readers use: the replacement's, if there is one.
  const FilterFacts& read_filter() const {
    return replacement ? replacement->filter : filter;
  }

  bool operator==(const FileFacts&) const = default;
};

struct FileMetaData {
  uint64_t number = 0;
  uint64_t file_size = 0;
  std::string smallest;  // internal keys
  std::string largest;
  // Unset only from reading a format-1 MANIFEST record (tag 7) until
  // VersionSet::Recover fills it from the table's properties.
  // Invariant: set in every Version a reader or compaction sees.
  std::optional<FileFacts> facts;

  std::string_view smallest_user_key() const {
    return ExtractUserKey(smallest);
  }
  std::string_view largest_user_key() const { return ExtractUserKey(largest); }
};

using FileList = std::vector<std::shared_ptr<FileMetaData>>;

// The facts of a table known only by its properties block: what a format-1
// MANIFEST lacks. The properties hold no sequences, so the range is the
// bound [0, last_sequence] (the DB's last sequence covers every entry).
FileFacts FactsFromProperties(const TableProperties& props,
                              SequenceNumber last_sequence);

// The filter a file should carry: what a new file there would be built
// with. fp_chance 1.0: no filter.
struct FilterTarget {
  double fp_chance = 1.0;
  FilterLayout layout = FilterLayout::kBlocked;
  // A filter built for an fp chance within this factor of fp_chance counts
  // as current: 1 (exact) for a fixed bloom_filter_fp_chance; more for a
  // budget's allocation, which moves a little with every flush
  // (db/filter_allocation.h).
  double tolerance = 1.0;
};

// True if the filter readers use for a file with these facts is what the
// target calls for: the same layout and fp chance (within the tolerance),
// or no filter when it asks for none. The one test of "this file's filter
// is current", for trivial moves, CompactRange's rewrites and
// RebuildFilters alike.
bool FilterIsCurrent(const FileFacts& facts, const FilterTarget& target);

// The facts field of MANIFEST tag 9 (db/FORMAT.md, "File facts").
void EncodeFileFacts(const FileFacts& facts, std::string* dst);
// False if src is malformed or out of range. Bytes after the fields this
// build knows are skipped: later formats only append fields.
bool DecodeFileFacts(std::string_view src, FileFacts* facts);

}  // namespace sift

#endif  // SIFT_DB_FILE_META_H_
