// TableBuilder writes one SSTable (table/FORMAT.md) from internal keys added
// in strictly increasing order. Used by flush, compaction and SstFileWriter.
//
// The builder keeps one data block, the pending index, and the 64-bit hashes
// of the distinct user keys for the filter -- never all keys. Not
// thread-safe.

#ifndef SIFT_TABLE_TABLE_BUILDER_H_
#define SIFT_TABLE_TABLE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "sift/env.h"
#include "sift/options.h"
#include "sift/table_properties.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "table/range_tombstone.h"
#include "util/filter.h"

namespace sift {

// Checks the options a TableBuilder uses: a comparator, block_size in [1, 1
// GiB], block_restart_interval >= 1, a known compression and filter layout, and
// bloom_filter_fp_chance in (0, 1]. InvalidArgument names the bad field.
absl::Status ValidateTableOptions(const Options& options);

// The filter layout of a file written to `level` (a flush counts as level
// 0): options.filter_layout, except that kRibbon gives way to kBlocked
// below options.bloom_before_level.
FilterLayout FilterLayoutForLevel(const Options& options, int level);

class TableBuilder {
 public:
  // Uses comparator (the order of keys, and the index separators'
  // shortening), block_size, block_restart_interval, compression,
  // bloom_filter_fp_chance (>= 1.0: no filter) and filter_layout (or the
  // given layout instead, e.g. FilterLayoutForLevel's).
  // REQUIRES: options already validated; file outlives the builder. The
  // builder neither syncs nor closes the file.
  TableBuilder(const Options& options, WritableFile* file);
  TableBuilder(const Options& options, WritableFile* file,
               FilterLayout filter_layout);
  ~TableBuilder();

  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Adds an entry. InvalidArgument (and nothing written) if ikey is not a
  // valid internal key or not greater than the previous one.
  absl::Status Add(std::string_view ikey, std::string_view value);
  // Adds a range tombstone, written to the range-deletion block at Finish
  // (any order relative to Add). REQUIRES: begin < end.
  void AddRangeTombstone(RangeTombstone tombstone);

  // Writes the remaining data, the filter, properties, metaindex, index and
  // footer. REQUIRES: Finish and Abandon not called yet.
  absl::Status Finish();

  // Gives up on the file: nothing more is written.
  void Abandon();

  // The first write error, or OK.
  absl::Status status() const { return status_; }

  uint64_t NumEntries() const { return props_.num_entries; }
  // Bytes written so far (the final file size after Finish).
  uint64_t FileSize() const { return offset_; }
  // Complete after Finish.
  const TableProperties& properties() const { return props_; }
  // Records the column family the table belongs to in its properties.
  void SetColumnFamily(uint32_t id, std::string_view name) {
    props_.column_family_id = id;
    props_.column_family_name.assign(name);
  }
  // The first and last internal keys added.
  const std::string& smallest_key() const { return smallest_; }
  const std::string& last_key() const { return last_key_; }

 private:
  bool ok() const { return status_.ok(); }
  void FlushDataBlock();
  // Writes contents + trailer, compressing if asked and worthwhile.
  void WriteBlock(std::string_view contents, bool may_compress,
                  BlockHandle* handle);
  void WriteRaw(std::string_view data);
  void WriteFilter(BlockBuilder* metaindex);
  // With options_.filter_policy: writes its filter of user_filter_keys_
  // and returns true.
  bool WriteUserFilter(BlockHandle* handle);
  // Writes the range-deletion block, if any tombstone was added.
  void WriteRangeDels(BlockHandle* handle);

  const Options options_;
  const KeyComparator icmp_;  // from options_.comparator
  WritableFile* const file_;
  uint64_t offset_ = 0;
  absl::Status status_;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  std::string smallest_;
  std::string last_key_;
  std::unique_ptr<FilterBuilder> filter_;  // null: no built-in filter
  // With options_.filter_policy: the distinct user keys added, in order.
  std::vector<std::string> user_filter_keys_;
  // Invariant: set after a data block is flushed until the first key of the
  // next block is seen, so the index separator can be shortened against it.
  bool pending_index_entry_ = false;
  BlockHandle pending_handle_;
  std::vector<RangeTombstone> range_tombstones_;
  std::string compressed_;  // scratch for Snappy output
  TableProperties props_;
  bool closed_ = false;
};

}  // namespace sift

#endif  // SIFT_TABLE_TABLE_BUILDER_H_
