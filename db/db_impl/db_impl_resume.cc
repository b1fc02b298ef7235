// DB::Resume: clearing a background error once its cause is gone, without
// reopening the DB.

#include "db/db_impl/db_impl.h"
#include "util/status_macros.h"

namespace sift {

absl::Status DBImpl::ResumeAsFrontWriter() {
  mu_.AssertHeld();
  // With bg_error_ set the background threads start nothing new; wait
  // out what they are doing.
  while (bg_active_ > 0) bg_cv_.Wait(&mu_);
  if (bg_error_.ok()) return absl::OkStatus();
  // A damaged file stays damaged: only a repair or a restore fixes it.
  if (absl::IsDataLoss(bg_error_) || shutting_down_) return bg_error_;
  // bg_error_ stays set until the end, so writers keep failing (and the
  // background thread stays idle) while the mutex is released below.
  absl::Status s;
  versions_->ClearWriteError();
  // Memtables whose flush failed go first: their log number is the
  // current log's, which still holds the live memtables' writes.
  if (AnyImm()) s = FlushImmutable();
  // A failed WAL write may have left a partial record at the log's end,
  // and later records must not follow it (Open would take that for
  // damage in the middle). So writes go to a new log, and the memtable
  // goes to a table, which retires the old log. The MANIFEST record this
  // writes (to a new MANIFEST, if writing the old one failed) also settles
  // a state on disk a failed MANIFEST write left in doubt.
  if (s.ok()) s = SwitchMemTables();
  if (s.ok()) s = FlushImmutable();
  if (s.ok()) {
    bg_error_ = absl::OkStatus();
    DeleteObsoleteFiles();
  }
  bg_cv_.SignalAll();  // writers waiting for room, the background thread
  return s;
}

}  // namespace sift
