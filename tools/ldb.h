// ldb's pieces shared by its sources:
//   tools/ldb.cc        the command line: parsing, the command table, help
//   tools/ldb_data.cc   data commands through the DB API (get, put, scan...)
//   tools/ldb_files.cc  commands on the MANIFEST and the files it names
//   tools/ldb_wal.cc    dump_wal
//
// Every command returns OK or an error whose message ldb prints after
// "Failed: ", as RocksDB's ldb does, and exits 1.

#ifndef SIFT_TOOLS_LDB_H_
#define SIFT_TOOLS_LDB_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/db.h"

namespace sift::ldb {

// One parsed command line: `ldb [--opt=value | --flag]... command params...`
// (options and flags may come before or after the command).
struct Args {
  std::string command;
  std::vector<std::string> params;
  std::map<std::string, std::string> options;  // --name=value
  std::set<std::string> flags;                 // --name
  std::string db;                              // --db, may be empty
  bool key_hex = false;                        // --hex or --key_hex
  bool value_hex = false;                      // --hex or --value_hex

  bool Flag(const std::string& name) const { return flags.count(name) > 0; }
  std::optional<std::string> Option(const std::string& name) const;
};

// "0x" and upper-case hex digits: RocksDB's form for hex output.
std::string ToHex(std::string_view bytes);
// Decodes RocksDB's hex input form "0x..." (either case of digits).
// InvalidArgument naming `what` and the text when it is not that form.
absl::StatusOr<std::string> FromHex(std::string_view text,
                                    std::string_view what);

// A key or value as typed (decoded when the matching hex flag is set), and
// as printed (raw bytes, or "0x..." when the flag is set).
absl::StatusOr<std::string> KeyArg(const Args& args, std::string_view text);
absl::StatusOr<std::string> ValueArg(const Args& args, std::string_view text);
std::string KeyOut(const Args& args, std::string_view key);
std::string ValueOut(const Args& args, std::string_view value);

// --from / --to, decoded as keys; nullopt when absent.
absl::StatusOr<std::optional<std::string>> RangeArg(const Args& args,
                                                    const std::string& name);
// --max_keys: -1 when absent; InvalidArgument unless a number >= 0.
absl::StatusOr<int64_t> MaxKeysArg(const Args& args);

// The family --column_family names, "default" when not given.
std::string FamilyArg(const Args& args);
// NotFound for a data command's --column_family the DB at args.db lacks.
absl::Status NoSuchFamily(const Args& args);

// RocksDB's Status::ToString form of a status: "NotFound: message".
std::string StatusText(const absl::Status& s);

// Writes bytes to stdout exactly (keys and values may hold NUL).
void Print(std::string_view bytes);

// An open database with every column family it has, and the one
// --column_family names ("default" when not given): `cf`. The handles go
// before the DB (they are declared after it).
struct OpenDB {
  std::unique_ptr<DB> db;
  std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
  ColumnFamilyHandle* cf = nullptr;

  DB* operator->() const { return db.get(); }
};
// Opens args.db (read-only or not) with all its families, each with
// `options`' family half, as RocksDB's ldb opens them with default options
// (siftdb keeps no options file, so a compaction run from ldb builds
// filters with the defaults). NotFound naming a --column_family the DB
// lacks (ldb_data.cc).
absl::StatusOr<OpenDB> OpenFamilies(const Args& args, const Options& options,
                                    bool read_only);

// ---- data commands (ldb_data.cc)
absl::Status Put(const Args& args);
absl::Status Get(const Args& args);
absl::Status Delete(const Args& args);
absl::Status DeleteRange(const Args& args);
absl::Status BatchPut(const Args& args);
absl::Status Scan(const Args& args);
absl::Status Dump(const Args& args);
absl::Status Load(const Args& args);
absl::Status Compact(const Args& args);
absl::Status GetProperty(const Args& args);
absl::Status ListColumnFamilies(const Args& args);
absl::Status CreateColumnFamily(const Args& args);
absl::Status DropColumnFamily(const Args& args);
absl::Status CheckConsistency(const Args& args);
absl::Status Repair(const Args& args);
absl::Status Checkpoint(const Args& args);
absl::Status IngestExternSst(const Args& args);

// ---- filters (ldb_filters.cc)
absl::Status RebuildFilters(const Args& args);

// ---- the MANIFEST and its files (ldb_files.cc)
absl::Status ApproxSize(const Args& args);
absl::Status ManifestDump(const Args& args);
absl::Status DumpLiveFiles(const Args& args);
absl::Status ListLiveFilesMetadata(const Args& args);

// ---- write-ahead logs (ldb_wal.cc)
absl::Status DumpWal(const Args& args);
// Prints one WAL as dump_wal does; header adds the column names line.
absl::Status DumpWalFile(const std::string& path, bool print_value,
                         bool header);

}  // namespace sift::ldb

#endif  // SIFT_TOOLS_LDB_H_
