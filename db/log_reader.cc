#include "db/log_reader.h"

#include "absl/strings/str_cat.h"
#include "db/log_format.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace sift::log {

Reader::Reader(std::string_view contents, std::string file_name)
    : contents_(contents), file_name_(std::move(file_name)) {}

// True if a well-formed fragment (known type, fits its block, checksum
// matches) starts at pos.
bool Reader::ValidFragmentAt(uint64_t pos) const {
  const uint64_t in_block = pos % kBlockSize;
  if (kBlockSize - in_block < kHeaderSize ||
      contents_.size() - pos < kHeaderSize) {
    return false;
  }
  const char* h = contents_.data() + pos;
  const uint8_t type = static_cast<uint8_t>(h[6]);
  const size_t length = static_cast<uint8_t>(h[4]) |
                        (static_cast<size_t>(static_cast<uint8_t>(h[5])) << 8);
  if (type == kZeroType || type > kMaxRecordType ||
      kHeaderSize + length > kBlockSize - in_block ||
      kHeaderSize + length > contents_.size() - pos) {
    return false;
  }
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(h));
  return crc32c::Value(h + 6, 1 + length) == expected;
}

Reader::Fragment Reader::NextFragment(uint8_t* type,
                                      std::string_view* payload) {
  while (true) {
    if (pos_ >= contents_.size()) return Fragment::kEof;
    const uint64_t left_in_block = kBlockSize - pos_ % kBlockSize;
    if (left_in_block < kHeaderSize) {
      pos_ += left_in_block;  // zero padding at a block's end
      continue;
    }
    if (contents_.size() - pos_ < kHeaderSize) {
      bad_offset_ = pos_;
      return Fragment::kBad;  // header cut short by the end of file
    }
    const char* h = contents_.data() + pos_;
    *type = static_cast<uint8_t>(h[6]);
    const size_t length =
        static_cast<uint8_t>(h[4]) |
        (static_cast<size_t>(static_cast<uint8_t>(h[5])) << 8);
    if (*type == kZeroType && length == 0 && DecodeFixed32(h) == 0) {
      pos_ += left_in_block;  // zero-filled rest of block
      continue;
    }
    if (!ValidFragmentAt(pos_)) {
      bad_offset_ = pos_;
      return Fragment::kBad;
    }
    *payload = std::string_view(h + kHeaderSize, length);
    pos_ += kHeaderSize + length;
    return Fragment::kOk;
  }
}

bool Reader::Damaged(std::string_view what, uint64_t scan_from) {
  done_ = true;
  for (uint64_t p = scan_from; p < contents_.size(); ++p) {
    if (ValidFragmentAt(p)) {
      status_ = absl::DataLossError(absl::StrCat(
          file_name_, ": ", absl::string_view(what.data(), what.size()),
          " at offset ", bad_offset_, ", followed by valid records at offset ",
          p, " (refusing to drop them)"));
      return false;
    }
  }
  dropped_tail_ = true;
  dropped_offset_ = bad_offset_;
  return false;
}

bool Reader::ReadRecord(std::string_view* record, std::string* scratch) {
  if (done_) return false;
  scratch->clear();
  bool in_record = false;
  uint64_t record_start = 0;
  uint8_t type;
  std::string_view payload;
  while (true) {
    const uint64_t fragment_start = pos_;
    switch (NextFragment(&type, &payload)) {
      case Fragment::kEof:
        if (in_record) {
          bad_offset_ = record_start;
          return Damaged("record cut short by the end of the log",
                         contents_.size());
        }
        done_ = true;
        return false;
      case Fragment::kBad: {
        const uint64_t scan_from = bad_offset_ + 1;
        if (in_record) bad_offset_ = record_start;
        return Damaged("damaged log fragment", scan_from);
      }
      case Fragment::kOk:
        break;
    }
    switch (type) {
      case kFullType:
      case kFirstType:
        if (in_record) {
          bad_offset_ = record_start;
          return Damaged("record missing its last fragment", fragment_start);
        }
        record_start = fragment_start;
        if (type == kFullType) {
          last_record_offset_ = record_start;
          *record = payload;
          return true;
        }
        in_record = true;
        scratch->assign(payload);
        break;
      case kMiddleType:
      case kLastType:
        if (!in_record) {
          bad_offset_ = fragment_start;
          return Damaged("log fragment without a first fragment",
                         fragment_start);
        }
        scratch->append(payload);
        if (type == kLastType) {
          last_record_offset_ = record_start;
          *record = *scratch;
          return true;
        }
        break;
    }
  }
}

}  // namespace sift::log
