// ExternalFile: an SSTable from outside the DB (SstFileWriter's output),
// read whole and checked before DB::IngestExternalFiles adds it.

#ifndef SIFT_DB_EXTERNAL_FILE_H_
#define SIFT_DB_EXTERNAL_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/dbformat.h"
#include "sift/comparator.h"
#include "sift/env.h"
#include "sift/table_properties.h"

namespace sift {

struct ExternalFile {
  std::string path;
  uint64_t size = 0;
  std::string smallest, largest;  // user keys
  ValueType smallest_type = kTypeValue, largest_type = kTypeValue;
  TableProperties properties;
};

// Opens the table at path and reads every block, checking each checksum
// and the filter, and every entry: sequence 0 (what SstFileWriter writes,
// so that one global sequence can stand for all of them), user keys
// strictly increasing under cmp (the DB's comparator), the count the
// properties record; Table::Open has checked that the comparator its
// properties name, if any, is cmp (older files name none and are checked
// by their key order alone). DataLoss (naming path
// and offset) for damage; InvalidArgument (naming path and key) for a file
// no SstFileWriter wrote for this order, or one with no entry.
absl::StatusOr<ExternalFile> InspectExternalFile(Env* env,
                                                 const std::string& path,
                                                 const Comparator* cmp);

// Sorts files by smallest key under cmp. InvalidArgument naming two files
// whose key ranges overlap: their entries would share one sequence, so
// which is newer could not be told.
absl::Status SortDisjoint(std::vector<ExternalFile>* files,
                          const Comparator* cmp);

}  // namespace sift

#endif  // SIFT_DB_EXTERNAL_FILE_H_
