// Helpers for DB tests that look at the files a database leaves on disk:
// its table files and what each records about itself.
#ifndef SIFT_TESTS_TESTUTIL_DB_FILES_H_
#define SIFT_TESTS_TESTUTIL_DB_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/table_properties.h"

namespace sift::test {

// Paths of the *.sst files in dir, sorted.
std::vector<std::string> ListTableFiles(Env* env, const std::string& dir);

// The properties block of the table at path, read with SstFileReader.
absl::StatusOr<TableProperties> ReadTableProperties(Env* env,
                                                    const std::string& path);

// Distinct user keys the table at path holds a visible value for.
absl::StatusOr<size_t> CountTableKeys(Env* env, const std::string& path);

// Sum of sift.num-files-at-level<N> over every level.
int TotalFilesInLevels(DB* db);
int FilesAtLevel(DB* db, int level);

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_DB_FILES_H_
