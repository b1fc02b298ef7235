// SstFileReader: opens one SSTable for point lookups, iteration and
// verification, outside any DB (like RocksDB's).
//
// The file's filter and index are loaded at Open and kept in memory; data
// blocks go through a block cache of options.block_cache_capacity bytes.
// options.comparator must order keys as the file's writer did (a file
// holds no record of its comparator). Reads are thread-safe once Open has
// returned.

#ifndef SIFT_INCLUDE_SST_FILE_READER_H_
#define SIFT_INCLUDE_SST_FILE_READER_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/table_properties.h"

namespace sift {

class SstFileReader {
 public:
  explicit SstFileReader(const Options& options);
  ~SstFileReader();

  SstFileReader(const SstFileReader&) = delete;
  SstFileReader& operator=(const SstFileReader&) = delete;

  // NotFound for a missing file; DataLoss naming the file and offset for a
  // file that is empty, truncated, not an SSTable or damaged; Unimplemented
  // for an unknown format version. A damaged filter does not fail Open: the
  // file is then read without it (VerifyChecksum reports the damage).
  absl::Status Open(const std::string& path);

  // The newest value of key. NotFound if absent or deleted.
  absl::Status Get(const ReadOptions& options, std::string_view key,
                   std::string* value);

  // The filter alone: false means key is definitely not in the file. True
  // when the file has no usable filter.
  bool KeyMayMatch(std::string_view key) const;

  // User keys in order with their newest values; tombstones hidden. An
  // iterator over an unopened reader is empty with an error status.
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options);

  // REQUIRES: Open succeeded.
  const TableProperties& GetProperties() const;

  // Reads every block of the file and checks every checksum and structural
  // invariant: any damaged byte gives DataLoss naming the block and offset.
  absl::Status VerifyChecksum();

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_SST_FILE_READER_H_
