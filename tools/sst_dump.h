// sst_dump's pieces shared by its sources: tools/sst_dump.cc (flags and
// commands), tools/sst_dump_format.cc (properties text, raw dump, key
// escaping) and tools/sst_dump_recompress.cc. ldb's dump_live_files prints
// tables with the same text.

#ifndef SIFT_TOOLS_SST_DUMP_H_
#define SIFT_TOOLS_SST_DUMP_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "table/internal_key.h"
#include "table/table.h"

namespace sift::sst_dump {

// One SSTable opened for inspection, with a small private block cache.
struct SstFile {
  std::string path;
  std::unique_ptr<BlockCache> cache;
  std::unique_ptr<Table> table;
};

// NotFound for a missing file; DataLoss for one that is not an SSTable or is
// damaged where Open looks (footer, metaindex, properties, index). A table
// in a database directory is opened with the filter the database uses for
// it: its replacement filter, if the MANIFEST records a readable one.
absl::StatusOr<SstFile> OpenSst(const std::string& path);

// Bytes for printing: upper-case hex with output_hex, else printable ASCII
// as is and everything else (NUL included) as \xHH, so nothing is cut.
std::string Printable(std::string_view bytes, bool output_hex);

// An internal key as 'user key' @ sequence : type, escaped as Printable.
std::string InternalKeyText(std::string_view ikey);

// One entry as scan prints it (RocksDB's form, no newline):
//   'user key' seq:N, type:T => value
std::string EntryText(const ParsedInternalKey& key, std::string_view value,
                      bool output_hex);

// The properties block and the filter's own parameters, RocksDB-style:
// "Table Properties:", a rule, then "  name: value" lines.
std::string PropertiesText(const Table& table);

// Writes a readable dump of the footer, metaindex, properties, filter,
// index and every data block of the table to out_path.
absl::Status WriteRawDump(const SstFile& file, const std::string& out_path);

// --command=recompress (tools/sst_dump_recompress.cc): prints the size the
// table would have under each supported compression, built with
// block_size and the table's own filter settings, in memory.
absl::Status Recompress(const Table& table, size_t block_size);

}  // namespace sift::sst_dump

#endif  // SIFT_TOOLS_SST_DUMP_H_
