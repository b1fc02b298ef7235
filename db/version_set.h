// VersionSet: the current Version (db/version.h), the counters (file
// numbers, last sequence, log number), and the MANIFEST that makes them
// durable. The background thread builds new Versions from VersionEdits; a
// file is live while some Version (current, or held by an iterator) names
// it.

#ifndef SIFT_DB_VERSION_SET_H_
#define SIFT_DB_VERSION_SET_H_

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "db/dbformat.h"
#include "db/log_writer.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "db/version.h"
#include "db/version_edit.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "util/invariant.h"
#include "util/mutex.h"

namespace sift {

class Compaction;

// Where work in flight writes: a level and the user keys its outputs span.
struct OutputRange {
  int level = 0;
  std::string smallest, largest;

  // Whether user keys [lo, hi] meet this range.
  bool Overlaps(const KeyComparator& icmp, std::string_view lo,
                std::string_view hi) const {
    return icmp.CompareUser(lo, largest) <= 0 &&
           icmp.CompareUser(hi, smallest) >= 0;
  }
};

class VersionSet {
 public:
  VersionSet(std::string dbname, const Options& options,
             TableCache* table_cache, Env* env);
  ~VersionSet();

  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Creates the MANIFEST and CURRENT of a new, empty database.
  absl::Status CreateNew();
  // Reads CURRENT and the MANIFEST it names; opens every table (checking
  // it exists and its size matches) and fills the facts of files recorded
  // without them (format 1) from their properties. DataLoss names the file
  // and offset.
  absl::Status Recover();

  // Applies edit to the current version, writes it to the MANIFEST (a new
  // one, with a full snapshot, the first time after Recover/CreateNew),
  // syncs, and installs the result as current. The mutex is released while
  // writing; callers from several threads take turns (each edit applies to
  // the Version the one before it installed). REQUIRES: *mu held, and
  // always the same mutex.
  absl::Status LogAndApply(VersionEdit* edit, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  std::shared_ptr<const Version> current() const { return current_; }

  uint64_t NewFileNumber() { return next_file_number_++; }
  // The number NewFileNumber would give next; every file made later has a
  // number at least this.
  uint64_t next_file_number() const { return next_file_number_; }
  void MarkFileNumberUsed(uint64_t n) {
    if (next_file_number_ <= n) next_file_number_ = n + 1;
  }
  uint64_t manifest_file_number() const { return manifest_file_number_; }
  // The MANIFEST that CURRENT names on disk now.
  uint64_t durable_manifest_number() const { return durable_manifest_number_; }
  uint64_t log_number() const { return log_number_; }

  SequenceNumber LastSequence() const {
    return last_sequence_.load(std::memory_order_acquire);
  }
  // REQUIRES: s >= LastSequence() (sequences only move forward).
  void SetLastSequence(SequenceNumber s) {
    SIFT_INVARIANT(s >= LastSequence() && s <= kMaxSequenceNumber,
                   "the last sequence only moves forward, within 56 bits");
    last_sequence_.store(s, std::memory_order_release);
  }

  // Files named by any live Version: tables and their replacement filters.
  void AddLiveFiles(std::set<uint64_t>* live);

  // Compaction picking (db/compaction/compaction_picker.cc).
  bool NeedsCompaction() const { return current_->compaction_score >= 1; }
  // The due compaction that conflicts with no work in flight (below), from
  // the levels by score, highest first; null when none is due or every
  // due one conflicts. The result is registered as running.
  std::unique_ptr<Compaction> PickCompaction();

  // Work in flight (docs/DESIGN.md, "Background work"). A compaction is
  // running from its pick (PickCompaction, CompactRange and RewriteFile
  // register every one they return) until RemoveRunning, after its
  // install. A flush's table is in flight from its placement until its
  // install. No two conflict: the picker skips a compaction that shares
  // an input file with a running one, is a second one from level 0, or
  // writes user keys a running one writes at the same level -- or, for a
  // flush in flight, at its level or above (older data must stay below
  // newer). A flush places its table above every running compaction
  // writing its keys (FlushLevel).
  void RemoveRunning(const Compaction& c);
  size_t NumRunning() const { return running_.size(); }
  void SetFlushInFlight(std::optional<OutputRange> r) {
    flush_in_flight_ = std::move(r);
  }
  // The level a flushed table of user keys [smallest, largest] goes to:
  // `want` (from Version::PickLevelForMemTableOutput), raised above every
  // running compaction that writes those keys at `want` or above.
  int FlushLevel(int want, std::string_view smallest,
                 std::string_view largest) const;
  // Counts the Versions installed: a pick that found nothing at one count
  // finds nothing until it changes (or a running compaction ends).
  uint64_t version_count() const { return version_count_; }
  // A compaction of [begin, end] (user keys) from level into level + 1;
  // null if no file at level overlaps. At level 0 only files numbered
  // below max_file_number count (older than the manual compaction: newer
  // level-0 files hold newer data, so leaving them above is safe).
  // Registered as running, as PickCompaction's. REQUIRES: level <
  // kNumLevels - 1.
  std::unique_ptr<Compaction> CompactRange(
      int level, std::optional<std::string_view> begin,
      std::optional<std::string_view> end,
      uint64_t max_file_number = UINT64_MAX);
  // A compaction that rewrites one file in place at its level (rebuilding
  // its filter with the current settings, dropping what is obsolete);
  // registered as running.
  std::unique_ptr<Compaction> RewriteFile(int level,
                                          std::shared_ptr<FileMetaData> f);

  // Bytes a level may hold before it is due for compaction (level >= 1).
  uint64_t MaxBytesForLevel(int level) const;
  uint64_t max_file_size() const { return options_.max_file_size; }

  std::string LevelSummary() const;

 private:
  class Builder;
  friend class Compaction;

  void Finalize(Version* v) const;
  // In the invariant-check mode (util/invariant.h), aborts unless v keeps
  // Version's promises (docs/DESIGN.md, "Invariants"): every file has its
  // facts and smallest <= largest; level 0 is ordered newest (highest
  // number) first; levels >= 1 are sorted and disjoint (internal keys).
  void CheckInvariants(const Version& v) const;
  void AppendVersion(std::shared_ptr<Version> v);
  absl::Status WriteSnapshot(log::Writer* log) const;
  // LogAndApply's work, once it is this caller's turn.
  absl::Status LogAndApplyInTurn(VersionEdit* edit, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status ReadManifest(const std::string& name, VersionEdit* merged,
                            Builder* builder);
  // Fills c's output-level inputs and grandparents from its inputs(0).
  void SetupOtherInputs(Compaction* c);
  // The next compaction of c's level starts after c's end.
  void AdvanceCompactPointer(Compaction* c);
  // A due compaction of `level` that conflicts with nothing in flight.
  std::unique_ptr<Compaction> PickAt(int level);
  bool ConflictsWithRunning(const Compaction& c) const;
  // Level 0: files / level0_compaction_trigger; deeper: bytes / target.
  // skip_busy: without the files running compactions take.
  double LevelScore(const Version& v, int level, bool skip_busy = false) const;
  bool IsBusy(uint64_t file_number) const;
  void AddRunning(const Compaction& c);

  const std::string dbname_;
  const Options options_;
  const KeyComparator icmp_;  // from options_.comparator
  TableCache* const table_cache_;
  Env* const env_;

  // The fields below are guarded by the DB mutex (DBImpl::mu_, the `mu`
  // of LogAndApply), except last_sequence_, which is atomic so readers take
  // their sequence without it. They carry no ABSL_GUARDED_BY: the mutex is
  // DBImpl's, and clang's analysis cannot tell that DBImpl's `mu_` and a
  // pointer to it kept here are one lock, so each of the ~30 calls from
  // DBImpl (all made with mu_ held, which DBImpl's own annotations check)
  // would need an assertion that checks nothing at run time.
  uint64_t next_file_number_ = 2;
  uint64_t manifest_file_number_ = 0;
  uint64_t durable_manifest_number_ = 0;
  uint64_t log_number_ = 0;
  std::atomic<SequenceNumber> last_sequence_{0};

  std::unique_ptr<WritableFile> manifest_file_;
  std::unique_ptr<log::Writer> manifest_log_;

  std::shared_ptr<const Version> current_;
  std::list<std::weak_ptr<const Version>> all_versions_;
  // Per level: where the next compaction of that level starts (round-robin
  // over the key space); an internal key, empty = from the start.
  std::string compact_pointer_[config::kNumLevels];

  // Work in flight (AddRunning): each running compaction's levels, input
  // files and output range.
  struct Running {
    const Compaction* c;
    int level;
    OutputRange output;
    std::vector<uint64_t> inputs;
  };
  std::vector<Running> running_;
  std::optional<OutputRange> flush_in_flight_;
  // A LogAndApply is writing the MANIFEST (with the mutex released);
  // others wait on manifest_cv_ for their turn.
  bool manifest_busy_ = false;
  CondVar manifest_cv_;
  uint64_t version_count_ = 0;
};

}  // namespace sift

#endif  // SIFT_DB_VERSION_SET_H_
