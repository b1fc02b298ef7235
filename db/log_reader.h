// Reads the records of a WAL or MANIFEST (db/FORMAT.md, "Record format"),
// telling a torn tail from damage in the middle and acting on damage as a
// WALRecoveryMode says.

#ifndef SIFT_DB_LOG_READER_H_
#define SIFT_DB_LOG_READER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/options.h"

namespace sift::log {

class Reader {
 public:
  // Reads the log whose whole contents are `contents` (kept alive by the
  // caller); file_name names it in errors. Damage is handled as `mode`
  // says (include/sift/options.h).
  Reader(std::string_view contents, std::string file_name,
         WALRecoveryMode mode = WALRecoveryMode::kTolerateCorruptedTailRecords);

  // A reader for a MANIFEST: any damaged record is DataLoss, wherever it
  // is; only a last record the file ends inside (an append that never
  // completed, so an edit never applied) is dropped.
  static Reader ForManifest(std::string_view contents, std::string file_name);

  // The next record, in *record (which may point into *scratch or into the
  // contents). False at the end of the log, or where the mode stops at
  // damage; then status() is OK for a clean end or damage the mode drops,
  // DataLoss (naming the file and offset) for damage it refuses to drop.
  bool ReadRecord(std::string_view* record, std::string* scratch);

  const absl::Status& status() const { return status_; }
  // Set when reading stopped at damage and dropped the rest of the log
  // (a torn tail, or everything after the damage in kPointInTimeRecovery).
  bool dropped_tail() const { return dropped_tail_; }
  uint64_t dropped_tail_offset() const { return dropped_offset_; }
  // Bytes of damaged records not returned: the dropped tail and, in
  // kSkipAnyCorruptedRecords, each skipped damaged region.
  uint64_t dropped_bytes() const { return dropped_bytes_; }
  // Damaged regions skipped or dropped (each may hold several records).
  uint64_t damaged_regions() const { return damaged_regions_; }
  // The first damage met, "<file>: <what> at offset N", or empty.
  const std::string& first_damage() const { return first_damage_; }
  // Offset of the start of the last record returned.
  uint64_t last_record_offset() const { return last_record_offset_; }

 private:
  enum class Fragment { kOk, kEof, kIncomplete, kCorrupt };
  // Parses the fragment at pos_. kIncomplete (the file ends inside it) and
  // kCorrupt set what_ and, for kCorrupt, scan_from_: where records after
  // the damage may start (the end of the fragment, when its length can be
  // believed).
  Fragment NextFragment(uint8_t* type, std::string_view* payload);
  // Acts on damage to the record at `at`: true if reading goes on (at
  // pos_, after a skipped region), false if it stops.
  bool Damaged(Fragment kind, uint64_t at);
  // The first record start (a well-formed FULL or FIRST fragment) at or
  // after pos, stepping over well-formed MIDDLE and LAST fragments whole:
  // they continue a record already begun, the damaged one, and their
  // payloads are its bytes, not records.
  std::optional<uint64_t> NextRecordStart(uint64_t pos) const;
  bool ValidFragmentAt(uint64_t pos, uint8_t* type, size_t* length) const;
  bool ZerosFrom(uint64_t pos) const;
  void DropTail(uint64_t at);

  const std::string_view contents_;
  const std::string file_name_;
  const WALRecoveryMode mode_;
  bool manifest_ = false;
  uint64_t pos_ = 0;
  uint64_t fragment_start_ = 0;  // of the fragment NextFragment last parsed
  uint64_t scan_from_ = 0;
  const char* what_ = "";
  uint64_t last_record_offset_ = 0;
  uint64_t dropped_offset_ = 0;
  uint64_t dropped_bytes_ = 0;
  uint64_t damaged_regions_ = 0;
  std::string first_damage_;
  bool dropped_tail_ = false;
  bool done_ = false;
  absl::Status status_;
};

}  // namespace sift::log

#endif  // SIFT_DB_LOG_READER_H_
