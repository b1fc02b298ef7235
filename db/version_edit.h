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
// 5: column families (WAL entry tags 3-5, MANIFEST tags 10-14); written
// only by a DB that has a family besides "default", so other DBs stay
// readable by the builds that read 4.
constexpr uint32_t kDbFormatVersion = 5;
constexpr uint32_t kDbFormatVersionOneFamily = 4;

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
  // The column family the edit applies to (0, the default, if unset).
  void SetColumnFamily(uint32_t id) { column_family_ = id; }
  // The edit creates family column_family_ named `name` (its comparator's
  // name in SetComparatorName), or drops it.
  void AddColumnFamily(std::string name) {
    column_family_add_ = std::move(name);
  }
  void DropColumnFamily() { column_family_drop_ = true; }
  // The largest family ID given so far (IDs are never reused).
  void SetMaxColumnFamily(uint32_t id) { max_column_family_ = id; }
  // The edit is one of a group applied together or not at all: `remaining`
  // more edits of the group follow it (0: the last).
  void SetAtomicGroup(uint32_t remaining) { atomic_group_ = remaining; }

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
  uint32_t column_family_ = 0;
  std::optional<std::string> column_family_add_;
  bool column_family_drop_ = false;
  std::optional<uint32_t> max_column_family_;
  std::optional<uint32_t> atomic_group_;
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
