// Reads the records of a WAL or MANIFEST (db/FORMAT.md, "Record format"),
// telling a torn tail (dropped) from damage in the middle (DataLoss).

#ifndef SIFT_DB_LOG_READER_H_
#define SIFT_DB_LOG_READER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace sift::log {

class Reader {
 public:
  // Reads the log whose whole contents are `contents` (kept alive by the
  // caller); file_name names it in errors.
  Reader(std::string_view contents, std::string file_name);

  // The next record, in *record (which may point into *scratch or into the
  // contents). False at the end of the log, or at damage; then status() is
  // OK for a clean end or a dropped torn tail, DataLoss (naming the file and
  // offset) for damage with valid records after it.
  bool ReadRecord(std::string_view* record, std::string* scratch);

  const absl::Status& status() const { return status_; }
  // Set when a damaged or incomplete tail was dropped.
  bool dropped_tail() const { return dropped_tail_; }
  uint64_t dropped_tail_offset() const { return dropped_offset_; }
  // Offset of the start of the last record returned.
  uint64_t last_record_offset() const { return last_record_offset_; }

 private:
  enum class Fragment { kOk, kEof, kBad };
  // Parses the fragment at pos_. kBad sets bad_offset_.
  Fragment NextFragment(uint8_t* type, std::string_view* payload);
  // Damage reported at bad_offset_: DataLoss if a valid fragment starts at
  // or after scan_from, otherwise a dropped tail. Returns false.
  bool Damaged(std::string_view what, uint64_t scan_from);
  bool ValidFragmentAt(uint64_t pos) const;

  const std::string_view contents_;
  const std::string file_name_;
  uint64_t pos_ = 0;
  uint64_t bad_offset_ = 0;
  uint64_t last_record_offset_ = 0;
  uint64_t dropped_offset_ = 0;
  bool dropped_tail_ = false;
  bool done_ = false;
  absl::Status status_;
};

}  // namespace sift::log

#endif  // SIFT_DB_LOG_READER_H_
