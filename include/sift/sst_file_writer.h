// SstFileWriter: writes a standalone SSTable from keys in strictly
// increasing order, for bulk loading and tests (like RocksDB's). Entries are
// stored with sequence number 0, so a DB can ingest the file later.
//
// Uses options.env (null: POSIX), block_size, block_restart_interval,
// compression, bloom_filter_fp_chance and filter_layout. Not thread-safe.

#ifndef SIFT_INCLUDE_SST_FILE_WRITER_H_
#define SIFT_INCLUDE_SST_FILE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/options.h"
#include "sift/table_properties.h"

namespace sift {

class SstFileWriter {
 public:
  explicit SstFileWriter(const Options& options);
  ~SstFileWriter();  // abandons an unfinished file (it is left incomplete)

  SstFileWriter(const SstFileWriter&) = delete;
  SstFileWriter& operator=(const SstFileWriter&) = delete;

  // Creates (or truncates) the file. InvalidArgument if an option is out of
  // range (naming it); the Env's error if the file cannot be created.
  absl::Status Open(const std::string& path);

  // Adds a value / a tombstone. Keys must be strictly increasing under
  // options.comparator (the DB that will read the file must use one of the
  // same order) and within kMaxKeySize, values within kMaxValueSize
  // (sift/options.h): otherwise InvalidArgument, and the file is unchanged by
  // the call. FailedPrecondition before Open or after Finish.
  absl::Status Put(std::string_view key, std::string_view value);
  absl::Status Delete(std::string_view key);

  // Writes filter, index, properties and footer, then syncs and closes the
  // file. FailedPrecondition if not open or already finished.
  absl::Status Finish();

  // Bytes written so far; the file's size after Finish.
  uint64_t FileSize() const;
  // The properties of the finished file.
  const TableProperties& GetProperties() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
  absl::Status Add(std::string_view key, std::string_view value, bool is_put);
};

}  // namespace sift

#endif  // SIFT_INCLUDE_SST_FILE_WRITER_H_
