// The filter-only rebuild: a table's keys read once into a new filter, kept
// in a filter file of its own (db/FORMAT.md, "Filter files") that the
// MANIFEST records as the table's replacement filter. The data blocks are
// never rewritten, so a new fp chance costs about the filters' size in
// writes. DB::RebuildFilters runs it for every file whose filter is not
// current; anything that needs one file's filter rebuilt (e.g. an ingested
// file) can call WriteFilterFile and record the result the same way.

#ifndef SIFT_DB_FILTER_REBUILD_H_
#define SIFT_DB_FILTER_REBUILD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/file_meta.h"
#include "sift/env.h"
#include "table/table.h"

namespace sift {

// ---- On-disk constants (db/FORMAT.md, "Filter files"). DO NOT CHANGE. ----
constexpr uint64_t kFilterFileMagic = 0x7265746c69667473ULL;  // "stfilter"
// ---- End of on-disk constants. ----------------------------------------------

// The bytes of a filter file for table `table_number` holding `filter`.
std::string EncodeFilterFile(uint64_t table_number, std::string_view filter);
// The filter bytes of a filter file's contents, checked: framing, checksum,
// magic, and that it belongs to table_number. DataLoss names `name` and
// the offset.
absl::StatusOr<std::string_view> DecodeFilterFile(std::string_view contents,
                                                  const std::string& name,
                                                  uint64_t table_number);

// Reads every user key of `table` (table file table_number) once, builds a
// filter of target's layout and fp chance (REQUIRES: < 1), and writes it
// as filter file `number` in dbname, synced and closed. *out then
// describes it, ready to be recorded as the table's replacement. On error
// the file is removed. Thread-safe: reads `table` like any reader.
absl::Status WriteFilterFile(const std::string& dbname, Env* env,
                             const Table& table, uint64_t table_number,
                             const FilterTarget& target, uint64_t number,
                             ReplacementFilter* out);

// The filter bytes of table_number's replacement filter `r`, read whole
// and checked.
absl::StatusOr<std::string> ReadFilterFile(Env* env, const std::string& dbname,
                                           uint64_t table_number,
                                           const ReplacementFilter& r);

}  // namespace sift

#endif  // SIFT_DB_FILTER_REBUILD_H_
