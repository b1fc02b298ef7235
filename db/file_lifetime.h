// File lifetime: which files of the DB directory may be deleted, and what
// keeps the others (docs/DESIGN.md, "Versions and file lifetime").
//
// The rule for tables and replacement filters: a file is deleted only when
// no live Version names it and no PendingOutput holds its number. Whoever
// writes a file -- a flush, a compaction, an ingest, RebuildFilters --
// takes a PendingOutput together with the file's number (one step, under
// the DB mutex: DBImpl::NewPendingOutput) and drops it only once the
// VersionEdit naming the file is installed (a Version names it from then
// on), or once it gives the file up and deletes it itself. Between those
// points LogAndApply releases the DB mutex for the directory sync and the
// MANIFEST write: the file is in no Version yet, and only its PendingOutput
// keeps it.
//
// DeleteObsoleteFiles takes both sets under the DB mutex in one step
// (LiveFiles), then lists the directory and unlinks without the mutex. A
// file missing from both sets at that moment stays dead: no edit adds a
// number that left every Version, and a PendingOutput is dropped only after
// its edit is in a Version. Files made after the capture have numbers at or
// above LiveFiles::next_file_number (numbers only grow), so they are kept.
// Since each writer protects its own files and the capture is one step,
// the rule holds however many threads write files or delete at once.

#ifndef SIFT_DB_FILE_LIFETIME_H_
#define SIFT_DB_FILE_LIFETIME_H_

#include <cstdint>
#include <set>

#include "absl/base/thread_annotations.h"
#include "db/filename.h"
#include "util/mutex.h"

namespace sift {

class PendingOutputs;

// One file number held from deletion until this is destroyed or
// Release()d. Move-only; an empty one (default-made or moved from) holds
// nothing.
class PendingOutput {
 public:
  PendingOutput() = default;
  PendingOutput(PendingOutput&& other) noexcept;
  PendingOutput& operator=(PendingOutput&& other) noexcept;
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput() { Release(); }

  uint64_t number() const { return number_; }
  // The number is no longer protected: its edit is installed, or the
  // writer gave the file up.
  void Release();

 private:
  friend class PendingOutputs;
  PendingOutput(PendingOutputs* owner, uint64_t number)
      : owner_(owner), number_(number) {}

  PendingOutputs* owner_ = nullptr;
  uint64_t number_ = 0;
};

// The numbers of files being written that no installed Version names yet.
// Thread-safe (its own lock, taken inside the DB mutex or without it, never
// around it), so a PendingOutput may be dropped on any path.
class PendingOutputs {
 public:
  PendingOutputs() = default;
  PendingOutputs(const PendingOutputs&) = delete;
  PendingOutputs& operator=(const PendingOutputs&) = delete;

  // Protects `number`. REQUIRES: this outlives the result.
  PendingOutput Reserve(uint64_t number);

  // Adds every protected number to *numbers.
  void AddTo(std::set<uint64_t>* numbers) const;
  size_t size() const;

 private:
  friend class PendingOutput;
  void Release(uint64_t number);

  mutable Mutex mu_;
  std::multiset<uint64_t> numbers_ ABSL_GUARDED_BY(mu_);
};

// What DeleteObsoleteFiles captures under the DB mutex, and the decision
// it makes from that alone for each name in the directory.
struct LiveFiles {
  // Tables and replacement filters named by a live Version, and every
  // PendingOutput's number.
  std::set<uint64_t> files;
  // VersionSet::next_file_number: every file made later numbers at least
  // this.
  uint64_t next_file_number = 0;
  uint64_t log_number = 0;   // logs below this are fully in tables
  uint64_t current_log = 0;  // the log being written
  // The smallest log a checkpoint is copying (UINT64_MAX: none).
  uint64_t pinned_logs = UINT64_MAX;
  uint64_t durable_manifest = 0;  // the MANIFEST CURRENT names on disk
  uint64_t manifest = 0;          // the MANIFEST being written

  // True if the file `number` of `type` may be deleted.
  bool Obsolete(uint64_t number, FileType type) const;
};

}  // namespace sift

#endif  // SIFT_DB_FILE_LIFETIME_H_
