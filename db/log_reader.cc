#include "db/log_reader.h"

#include "absl/strings/str_cat.h"
#include "db/log_format.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace sift::log {

Reader::Reader(std::string_view contents, std::string file_name,
               WALRecoveryMode mode)
    : contents_(contents), file_name_(std::move(file_name)), mode_(mode) {}

Reader Reader::ForManifest(std::string_view contents, std::string file_name) {
  Reader reader(contents, std::move(file_name),
                WALRecoveryMode::kAbsoluteConsistency);
  reader.manifest_ = true;
  return reader;
}

// True if a well-formed fragment (known type, fits its block and the file,
// checksum matches) starts at pos.
bool Reader::ValidFragmentAt(uint64_t pos, uint8_t* type,
                             size_t* length) const {
  const uint64_t in_block = pos % kBlockSize;
  if (kBlockSize - in_block < kHeaderSize ||
      contents_.size() - pos < kHeaderSize) {
    return false;
  }
  const char* h = contents_.data() + pos;
  *type = static_cast<uint8_t>(h[6]);
  *length = static_cast<uint8_t>(h[4]) |
            (static_cast<size_t>(static_cast<uint8_t>(h[5])) << 8);
  if (*type == kZeroType || *type > kMaxRecordType ||
      kHeaderSize + *length > kBlockSize - in_block ||
      kHeaderSize + *length > contents_.size() - pos) {
    return false;
  }
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(h));
  return crc32c::Value(h + 6, 1 + *length) == expected;
}

bool Reader::ZerosFrom(uint64_t pos) const {
  for (; pos < contents_.size(); ++pos) {
    if (contents_[pos] != '\0') return false;
  }
  return true;
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
    fragment_start_ = pos_;
    const uint64_t left_in_file = contents_.size() - pos_;
    // Zeros running to the end of the file are space a file system
    // preallocated or left after a crash, never written: a clean end.
    // Anywhere else the writer never leaves zeros, so they are damage.
    if (ZerosFrom(pos_)) {
      pos_ = contents_.size();
      return Fragment::kEof;
    }
    if (left_in_file < kHeaderSize) {
      what_ = "fragment header cut short by the end of the log";
      return Fragment::kIncomplete;
    }
    const char* h = contents_.data() + pos_;
    size_t length = 0;
    if (ValidFragmentAt(pos_, type, &length)) {
      *payload = std::string_view(h + kHeaderSize, length);
      pos_ += kHeaderSize + length;
      return Fragment::kOk;
    }
    const bool fits_block = kHeaderSize + length <= left_in_block;
    const bool known_type = *type != kZeroType && *type <= kMaxRecordType;
    if (known_type && fits_block && kHeaderSize + length > left_in_file) {
      // What a write cut short by a crash leaves. A damaged length that
      // points past the end of the file looks the same (db/FORMAT.md).
      what_ = "fragment cut short by the end of the log";
      return Fragment::kIncomplete;
    }
    if (DecodeFixed32(h) == 0 && length == 0 && *type == kZeroType) {
      what_ = "zeroed fragment header";
    } else if (!known_type) {
      what_ = "unknown fragment type";
    } else if (!fits_block) {
      what_ = "fragment longer than its block";
    } else {
      what_ = "fragment checksum mismatch";
    }
    // Records after the damage are looked for after its payload when the
    // length can be believed (it fits the block and the file); otherwise
    // the fragment's extent is unknown.
    scan_from_ = known_type && fits_block ? pos_ + kHeaderSize + length
                                          : pos_ + kHeaderSize;
    return Fragment::kCorrupt;
  }
}

std::optional<uint64_t> Reader::NextRecordStart(uint64_t pos) const {
  while (pos < contents_.size()) {
    const uint64_t left_in_block = kBlockSize - pos % kBlockSize;
    if (left_in_block < kHeaderSize) {
      pos += left_in_block;
      continue;
    }
    uint8_t type = 0;
    size_t length = 0;
    if (!ValidFragmentAt(pos, &type, &length)) {
      ++pos;
    } else if (type == kFullType || type == kFirstType) {
      return pos;
    } else {
      pos += kHeaderSize + length;
    }
  }
  return std::nullopt;
}

void Reader::DropTail(uint64_t at) {
  dropped_tail_ = true;
  dropped_offset_ = at;
  dropped_bytes_ += contents_.size() - at;
  ++damaged_regions_;
}

bool Reader::Damaged(Fragment kind, uint64_t at) {
  done_ = true;
  const std::string where =
      absl::StrCat(file_name_, ": ", what_, " at offset ", at, ",");
  if (first_damage_.empty()) first_damage_ = where.substr(0, where.size() - 1);
  std::optional<uint64_t> next;
  if (kind == Fragment::kCorrupt) next = NextRecordStart(scan_from_);
  const std::string followed =
      next.has_value()
          ? absl::StrCat(" followed by valid records at offset ", *next)
          : std::string(" at the end of the log");
  if (manifest_) {
    if (kind == Fragment::kIncomplete) {
      DropTail(at);
    } else {
      status_ = absl::DataLossError(
          absl::StrCat(where, followed, " (a MANIFEST must be intact)"));
    }
    return false;
  }
  switch (mode_) {
    case WALRecoveryMode::kAbsoluteConsistency:
      status_ = absl::DataLossError(
          absl::StrCat(where, " (wal_recovery_mode kAbsoluteConsistency)"));
      return false;
    case WALRecoveryMode::kTolerateCorruptedTailRecords:
      if (next.has_value()) {
        status_ = absl::DataLossError(
            absl::StrCat(where, followed, " (refusing to drop them)"));
        return false;
      }
      DropTail(at);
      return false;
    case WALRecoveryMode::kPointInTimeRecovery:
      DropTail(at);
      return false;
    case WALRecoveryMode::kSkipAnyCorruptedRecords:
      if (!next.has_value()) {
        DropTail(at);
        return false;
      }
      ++damaged_regions_;
      dropped_bytes_ += *next - at;
      pos_ = *next;
      done_ = false;
      return true;
  }
  status_ = absl::InvalidArgumentError(
      absl::StrCat("unknown wal_recovery_mode ", static_cast<int>(mode_)));
  return false;
}

bool Reader::ReadRecord(std::string_view* record, std::string* scratch) {
  if (done_) return false;
  scratch->clear();
  bool in_record = false;
  uint64_t record_start = 0;
  uint8_t type = 0;
  std::string_view payload;
  // On damage to the record at `at`: true to go on reading a new record.
  auto damaged = [&](Fragment kind, uint64_t at) {
    in_record = false;
    scratch->clear();
    return Damaged(kind, at);
  };
  while (true) {
    Fragment f = NextFragment(&type, &payload);
    const uint64_t fragment_start = fragment_start_;
    if (f == Fragment::kEof) {
      if (!in_record) {
        done_ = true;
        return false;
      }
      what_ = "record cut short by the end of the log";
      f = Fragment::kIncomplete;
    }
    if (f != Fragment::kOk) {
      if (damaged(f, in_record ? record_start : fragment_start)) continue;
      return false;
    }
    switch (type) {
      case kFullType:
      case kFirstType:
        if (in_record) {
          what_ = "record missing its last fragment";
          scan_from_ = fragment_start;
          if (damaged(Fragment::kCorrupt, record_start)) continue;
          return false;
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
          what_ = "log fragment without a first fragment";
          scan_from_ = pos_;
          if (damaged(Fragment::kCorrupt, fragment_start)) continue;
          return false;
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
