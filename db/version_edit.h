// VersionEdit: one change to the set of live tables, as recorded in the
// MANIFEST (db/FORMAT.md, "MANIFEST payload").

#ifndef SIFT_DB_VERSION_EDIT_H_
#define SIFT_DB_VERSION_EDIT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "db/dbformat.h"
#include "db/file_meta.h"

namespace sift {

// The DB format version written in every MANIFEST snapshot (db/FORMAT.md,
// "Format versions"). 2: files are recorded with their facts (tag 9).
// 3: a file's facts may carry a global sequence (an ingested file).
// 4: range tombstones (WAL records, table blocks, a count in the facts).
constexpr uint32_t kDbFormatVersion = 4;

class VersionEdit {
 public:
  void Clear() { *this = VersionEdit(); }

  void SetLogNumber(uint64_t n) { log_number_ = n; }
  void SetNextFile(uint64_t n) { next_file_number_ = n; }
  void SetLastSequence(SequenceNumber s) { last_sequence_ = s; }
  void SetCompactPointer(int level, std::string key) {
    compact_pointers_.emplace_back(level, std::move(key));
  }
  // REQUIRES: the file is durable (synced) before the edit is logged.
  // Encoded as tag 9 when f->facts is set, else as tag 7 (format 1).
  void AddFile(int level, std::shared_ptr<FileMetaData> f) {
    new_files_.emplace_back(level, std::move(f));
  }
  void RemoveFile(int level, uint64_t number) {
    deleted_files_.insert({level, number});
  }
  void SetFormatVersion(uint32_t v) { format_version_ = v; }
  // The Name() of the comparator that orders the DB's keys; every snapshot
  // (the first record of a MANIFEST) carries it.
  void SetComparatorName(std::string_view name) { comparator_.emplace(name); }

  void EncodeTo(std::string* dst) const;
  // DataLoss naming what is wrong; the edit is left unspecified.
  absl::Status DecodeFrom(std::string_view src);

  std::string DebugString() const;

  // Read by VersionSet.
  std::optional<uint64_t> log_number_;
  std::optional<uint64_t> next_file_number_;
  std::optional<SequenceNumber> last_sequence_;
  std::optional<uint32_t> format_version_;
  std::optional<std::string> comparator_;
  std::vector<std::pair<int, std::string>> compact_pointers_;
  std::set<std::pair<int, uint64_t>> deleted_files_;
  std::vector<std::pair<int, std::shared_ptr<FileMetaData>>> new_files_;
};

// InvalidArgument for a MANIFEST whose records name comparator `recorded`
// read under Options::comparator `used`: files sorted in one order are
// unreadable in another, so Open and RepairDB both refuse it with this
// message. `where` (the MANIFEST's name) begins it.
absl::Status ComparatorMismatchError(std::string_view where,
                                     std::string_view recorded,
                                     std::string_view used);

}  // namespace sift

#endif  // SIFT_DB_VERSION_EDIT_H_
