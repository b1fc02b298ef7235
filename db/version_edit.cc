#include "db/version_edit.h"

#include "absl/strings/str_cat.h"
#include "util/coding.h"

namespace sift {
namespace {

// Tag numbers as stored (db/FORMAT.md). DO NOT CHANGE; retire, never reuse.
enum Tag : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,  // format 1: a file without its facts
  kFormatVersion = 8,
  kNewFileWithFacts = 9,
  kColumnFamily = 10,
  kColumnFamilyAdd = 11,
  kColumnFamilyDrop = 12,
  kMaxColumnFamily = 13,
  kAtomicGroup = 14,
};

bool GetLevel(std::string_view* input, int* level) {
  uint32_t v;
  if (!GetVarint32(input, &v) || v >= config::kNumLevels) return false;
  *level = static_cast<int>(v);
  return true;
}

bool GetInternalKey(std::string_view* input, std::string* dst) {
  std::string_view s;
  if (!GetLengthPrefixed(input, &s) || s.size() < kInternalKeyTrailerSize) {
    return false;
  }
  dst->assign(s);
  return true;
}

}  // namespace

void VersionEdit::EncodeTo(std::string* dst) const {
  if (comparator_) {
    PutVarint32(dst, kComparator);
    PutLengthPrefixed(dst, *comparator_);
  }
  if (format_version_) {
    PutVarint32(dst, kFormatVersion);
    PutVarint32(dst, *format_version_);
  }
  if (column_family_ != 0) {
    PutVarint32(dst, kColumnFamily);
    PutVarint32(dst, column_family_);
  }
  if (column_family_add_) {
    PutVarint32(dst, kColumnFamilyAdd);
    PutLengthPrefixed(dst, *column_family_add_);
  }
  if (column_family_drop_) PutVarint32(dst, kColumnFamilyDrop);
  if (max_column_family_) {
    PutVarint32(dst, kMaxColumnFamily);
    PutVarint32(dst, *max_column_family_);
  }
  if (atomic_group_) {
    PutVarint32(dst, kAtomicGroup);
    PutVarint32(dst, *atomic_group_);
  }
  if (log_number_) {
    PutVarint32(dst, kLogNumber);
    PutVarint64(dst, *log_number_);
  }
  if (next_file_number_) {
    PutVarint32(dst, kNextFileNumber);
    PutVarint64(dst, *next_file_number_);
  }
  if (last_sequence_) {
    PutVarint32(dst, kLastSequence);
    PutVarint64(dst, *last_sequence_);
  }
  for (const auto& [level, key] : compact_pointers_) {
    PutVarint32(dst, kCompactPointer);
    PutVarint32(dst, level);
    PutLengthPrefixed(dst, key);
  }
  for (const auto& [level, number] : deleted_files_) {
    PutVarint32(dst, kDeletedFile);
    PutVarint32(dst, level);
    PutVarint64(dst, number);
  }
  std::string facts;
  for (const auto& [level, f] : new_files_) {
    PutVarint32(dst, f->facts ? kNewFileWithFacts : kNewFile);
    PutVarint32(dst, level);
    PutVarint64(dst, f->number);
    PutVarint64(dst, f->file_size);
    PutLengthPrefixed(dst, f->smallest);
    PutLengthPrefixed(dst, f->largest);
    if (f->facts) {
      facts.clear();
      EncodeFileFacts(*f->facts, &facts);
      PutLengthPrefixed(dst, facts);
    }
  }
}

absl::Status VersionEdit::DecodeFrom(std::string_view src) {
  Clear();
  std::string_view input = src;
  uint32_t tag;
  while (!input.empty()) {
    const size_t at = src.size() - input.size();
    if (!GetVarint32(&input, &tag)) {
      return absl::DataLossError(
          absl::StrCat("VersionEdit: bad tag at byte ", at));
    }
    bool ok = true;
    uint64_t u64;
    uint32_t u32;
    int level;
    std::string_view s;
    switch (tag) {
      case kComparator:
        ok = GetLengthPrefixed(&input, &s);
        comparator_.emplace(s);
        break;
      case kFormatVersion:
        ok = GetVarint32(&input, &u32);
        format_version_ = u32;
        break;
      case kColumnFamily:
        ok = GetVarint32(&input, &column_family_) && column_family_ != 0;
        break;
      case kColumnFamilyAdd:
        ok = GetLengthPrefixed(&input, &s) && !s.empty();
        column_family_add_.emplace(s);
        break;
      case kColumnFamilyDrop:
        column_family_drop_ = true;
        break;
      case kMaxColumnFamily:
        ok = GetVarint32(&input, &u32);
        max_column_family_ = u32;
        break;
      case kAtomicGroup:
        ok = GetVarint32(&input, &u32);
        atomic_group_ = u32;
        break;
      case kLogNumber:
        ok = GetVarint64(&input, &u64);
        log_number_ = u64;
        break;
      case kNextFileNumber:
        ok = GetVarint64(&input, &u64);
        next_file_number_ = u64;
        break;
      case kLastSequence:
        ok = GetVarint64(&input, &u64) && u64 <= kMaxSequenceNumber;
        last_sequence_ = u64;
        break;
      case kCompactPointer: {
        std::string key;
        ok = GetLevel(&input, &level) && GetInternalKey(&input, &key);
        if (ok) compact_pointers_.emplace_back(level, std::move(key));
        break;
      }
      case kDeletedFile:
        ok = GetLevel(&input, &level) && GetVarint64(&input, &u64);
        if (ok) deleted_files_.insert({level, u64});
        break;
      case kNewFile:
      case kNewFileWithFacts: {
        auto f = std::make_shared<FileMetaData>();
        ok = GetLevel(&input, &level) && GetVarint64(&input, &f->number) &&
             GetVarint64(&input, &f->file_size) &&
             GetInternalKey(&input, &f->smallest) &&
             GetInternalKey(&input, &f->largest);
        if (ok && tag == kNewFileWithFacts) {
          f->facts.emplace();
          ok = GetLengthPrefixed(&input, &s) && DecodeFileFacts(s, &*f->facts);
        }
        if (ok) new_files_.emplace_back(level, std::move(f));
        break;
      }
      default:
        return absl::DataLossError(
            absl::StrCat("VersionEdit: unknown tag ", tag, " at byte ", at));
    }
    if (!ok) {
      return absl::DataLossError(absl::StrCat("VersionEdit: bad field for tag ",
                                              tag, " at byte ", at));
    }
  }
  return absl::OkStatus();
}

std::string VersionEdit::DebugString() const {
  std::string r = "VersionEdit {";
  if (column_family_ != 0)
    absl::StrAppend(&r, "\n  ColumnFamily: ", column_family_);
  if (column_family_add_) {
    absl::StrAppend(&r, "\n  ColumnFamilyAdd: ", *column_family_add_);
  }
  if (column_family_drop_) absl::StrAppend(&r, "\n  ColumnFamilyDrop");
  if (max_column_family_) {
    absl::StrAppend(&r, "\n  MaxColumnFamily: ", *max_column_family_);
  }
  if (atomic_group_) absl::StrAppend(&r, "\n  AtomicGroup: ", *atomic_group_);
  if (log_number_) absl::StrAppend(&r, "\n  LogNumber: ", *log_number_);
  if (next_file_number_) {
    absl::StrAppend(&r, "\n  NextFile: ", *next_file_number_);
  }
  if (last_sequence_) absl::StrAppend(&r, "\n  LastSeq: ", *last_sequence_);
  for (const auto& [level, key] : compact_pointers_) {
    absl::StrAppend(&r, "\n  CompactPointer: ", level, " ",
                    InternalKeyDebugString(key));
  }
  for (const auto& [level, number] : deleted_files_) {
    absl::StrAppend(&r, "\n  RemoveFile: ", level, " ", number);
  }
  for (const auto& [level, f] : new_files_) {
    absl::StrAppend(&r, "\n  AddFile: ", level, " ", f->number, " ",
                    f->file_size, " ", InternalKeyDebugString(f->smallest),
                    " .. ", InternalKeyDebugString(f->largest));
    if (f->facts) {
      const FileFacts& x = *f->facts;
      absl::StrAppend(
          &r, " entries ", x.num_entries, " deletions ", x.num_deletions,
          " seq ", x.smallest_seq, "..", x.largest_seq, " filter ",
          static_cast<int>(x.filter.layout), "/", x.filter.fp_chance, "/",
          x.filter.bits_per_key, "/", x.filter.num_keys);
      if (x.replacement) {
        absl::StrAppend(&r, " replacement ", x.replacement->number, " ",
                        x.replacement->size, " ",
                        static_cast<int>(x.replacement->filter.layout), "/",
                        x.replacement->filter.fp_chance);
      }
    }
  }
  r += "\n}\n";
  return r;
}

absl::Status ComparatorMismatchError(std::string_view where,
                                     std::string_view recorded,
                                     std::string_view used) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(where), ": the database was created with comparator '",
      std::string(recorded), "', opened with comparator '", std::string(used),
      "'"));
}

}  // namespace sift
