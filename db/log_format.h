// Constants of the record format shared by the WAL and the MANIFEST; the
// bytes are specified in db/FORMAT.md ("Record format").

#ifndef SIFT_DB_LOG_FORMAT_H_
#define SIFT_DB_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace sift::log {

// DO NOT CHANGE: stored in every fragment header.
enum RecordType : uint8_t {
  kZeroType = 0,  // reserved: zero-filled space, skipped
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
};
constexpr uint8_t kMaxRecordType = kLastType;

constexpr size_t kBlockSize = 32768;
// fixed32 crc, fixed16 length, uint8 type.
constexpr size_t kHeaderSize = 4 + 2 + 1;

}  // namespace sift::log

#endif  // SIFT_DB_LOG_FORMAT_H_
