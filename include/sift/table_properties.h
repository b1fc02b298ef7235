// TableProperties: what an SSTable records about itself in its properties
// block (table/FORMAT.md, "Properties block"), as read by SstFileReader,
// sst_dump and the DB's statistics.

#ifndef SIFT_INCLUDE_TABLE_PROPERTIES_H_
#define SIFT_INCLUDE_TABLE_PROPERTIES_H_

#include <cstdint>
#include <string>

#include "sift/options.h"

namespace sift {

struct TableProperties {
  uint64_t num_entries = 0;    // values and tombstones
  uint64_t num_deletions = 0;  // tombstones
  // Range tombstones (DB::DeleteRange), in the range-deletion block; not
  // counted in num_entries.
  uint64_t num_range_deletions = 0;
  uint64_t num_data_blocks = 0;
  uint64_t raw_key_size = 0;    // sum of internal key sizes
  uint64_t raw_value_size = 0;  // sum of value sizes
  uint64_t data_size = 0;       // bytes of data blocks, with trailers
  uint64_t index_size = 0;      // bytes of the index block
  uint64_t filter_size = 0;     // bytes of the filter block; 0 when none
  Compression compression = Compression::kNone;  // the option written with

  // The filter: its layout, the false-positive chance it was built for (1.0
  // when the file has no filter), the distinct user keys it holds, the
  // filter bits per key and the probes per key.
  FilterLayout filter_layout = FilterLayout::kBlocked;
  double bloom_filter_fp_chance = 1.0;
  uint64_t filter_num_keys = 0;
  double filter_bits_per_key = 0;
  uint32_t filter_num_probes = 0;
  // The Name() of the Options::filter_policy whose filter the file carries
  // (then the file has no built-in filter: bloom_filter_fp_chance is 1.0);
  // empty when none.
  std::string filter_policy;
  // The Name() of the comparator that ordered the file's keys
  // (Options::comparator), so a reader without the DB's MANIFEST (RepairDB,
  // an ingest) can tell a file of another order from a damaged one; empty
  // in files written before siftdb recorded it.
  std::string comparator_name;
  // The column family of the DB that wrote the file: its ID and name
  // (sift/column_family.h). kUnknownColumnFamily and empty for a file
  // written outside a DB (SstFileWriter) or before siftdb recorded it.
  static constexpr uint32_t kUnknownColumnFamily = UINT32_MAX;
  uint32_t column_family_id = kUnknownColumnFamily;
  std::string column_family_name;

  std::string smallest_key;  // user keys
  std::string largest_key;
  uint64_t creation_time = 0;  // seconds since the Unix epoch
  uint32_t format_version = 0;

  // One "name: value" line per property.
  std::string ToString() const;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_TABLE_PROPERTIES_H_
