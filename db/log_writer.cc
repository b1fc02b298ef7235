#include "db/log_writer.h"

#include "util/coding.h"
#include "util/crc32c.h"

namespace sift::log {

Writer::Writer(WritableFile* dest, uint64_t dest_length)
    : dest_(dest),
      offset_(dest_length),
      block_offset_(dest_length % kBlockSize) {
  for (int i = 0; i <= kMaxRecordType; ++i) {
    const char t = static_cast<char>(i);
    type_crc_[i] = crc32c::Value(&t, 1);
  }
}

absl::Status Writer::AddRecord(std::string_view record) {
  const char* p = record.data();
  size_t left = record.size();
  bool begin = true;
  // An empty record still emits one (empty) FULL fragment.
  do {
    const size_t leftover = kBlockSize - block_offset_;
    if (leftover < kHeaderSize) {
      if (leftover > 0) {
        static constexpr char kZeros[kHeaderSize] = {};
        absl::Status s = dest_->Append(std::string_view(kZeros, leftover));
        if (!s.ok()) return s;
        offset_ += leftover;
      }
      block_offset_ = 0;
    }
    const size_t avail = kBlockSize - block_offset_ - kHeaderSize;
    const size_t n = left < avail ? left : avail;
    const bool end = n == left;
    const RecordType type = begin && end ? kFullType
                            : begin      ? kFirstType
                            : end        ? kLastType
                                         : kMiddleType;
    absl::Status s = EmitFragment(type, p, n);
    if (!s.ok()) return s;
    p += n;
    left -= n;
    begin = false;
  } while (left > 0);
  return absl::OkStatus();
}

absl::Status Writer::EmitFragment(RecordType type, const char* data, size_t n) {
  char header[kHeaderSize];
  header[4] = static_cast<char>(n & 0xff);
  header[5] = static_cast<char>(n >> 8);
  header[6] = static_cast<char>(type);
  const uint32_t crc = crc32c::Extend(type_crc_[type], data, n);
  EncodeFixed32(header, crc32c::Mask(crc));
  // The file buffers, so header and payload usually reach the OS in one
  // write(); a failure between them leaves a torn fragment, which readers
  // treat as a torn tail.
  absl::Status s = dest_->Append(std::string_view(header, kHeaderSize));
  if (s.ok()) s = dest_->Append(std::string_view(data, n));
  if (s.ok()) {
    offset_ += kHeaderSize + n;
    block_offset_ += kHeaderSize + n;
  }
  return s;
}

}  // namespace sift::log
