// Names of the files in a database directory (db/FORMAT.md, "File names").

#ifndef SIFT_DB_FILENAME_H_
#define SIFT_DB_FILENAME_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/env.h"

namespace sift {

enum class FileType {
  kLog,
  kTable,
  kManifest,
  kCurrent,
  kLock,
  kTemp,
  kFilter
};

std::string LogFileName(const std::string& db, uint64_t number);
std::string TableFileName(const std::string& db, uint64_t number);
std::string ManifestFileName(const std::string& db, uint64_t number);
std::string CurrentFileName(const std::string& db);
std::string LockFileName(const std::string& db);
std::string TempFileName(const std::string& db, uint64_t number);
// A table's replacement filter (db/FORMAT.md, "Filter files").
std::string FilterFileName(const std::string& db, uint64_t number);

// Parses a name (not a path) produced by one of the above, exactly as they
// spell it (six-digit minimum, no extra leading zeros). False for every
// other name: those files are not siftdb's, and it never reads or deletes
// them.
bool ParseFileName(std::string_view name, uint64_t* number, FileType* type);

// For a directory without CURRENT: DataLoss if it holds a database's data
// (a table, or a log that is not empty: a damaged database, which no
// entry point may start over on), naming the file; otherwise
// FailedPrecondition "no database here (<why_nothing_made>)". Every entry
// point that finds no CURRENT (Open, the read-only Open, ldb) says so
// through this one message.
absl::Status NoCurrentError(Env* env, const std::string& db,
                            std::string_view why_nothing_made);

// Points CURRENT at MANIFEST-<manifest_number>, atomically and durably:
// temp file, sync, rename, directory sync.
absl::Status SetCurrentFile(Env* env, const std::string& db,
                            uint64_t manifest_number);

}  // namespace sift

#endif  // SIFT_DB_FILENAME_H_
