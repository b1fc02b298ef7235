// Appends records to a WAL or MANIFEST in the format of db/FORMAT.md.

#ifndef SIFT_DB_LOG_WRITER_H_
#define SIFT_DB_LOG_WRITER_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "db/log_format.h"
#include "sift/env.h"

namespace sift::log {

class Writer {
 public:
  // Appends to dest, which already holds dest_length bytes of this log.
  // REQUIRES: dest outlives the writer.
  explicit Writer(WritableFile* dest, uint64_t dest_length = 0);

  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one record (as one or more fragments). Neither flushes nor
  // syncs: the caller decides.
  absl::Status AddRecord(std::string_view record);

  // Bytes in the log so far.
  uint64_t size() const { return offset_; }

 private:
  absl::Status EmitFragment(RecordType type, const char* data, size_t n);

  WritableFile* const dest_;
  uint64_t offset_;
  size_t block_offset_;                    // position within the current block
  uint32_t type_crc_[kMaxRecordType + 1];  // crc32c of each type byte
};

}  // namespace sift::log

#endif  // SIFT_DB_LOG_WRITER_H_
