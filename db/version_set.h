// VersionSet: what the column families share -- the counters (file
// numbers, last sequence, log number) and the MANIFEST that makes them and
// every family's Versions durable -- and the families themselves
// (db/column_family.h: each one's current Version and compaction state).
// The background threads build new Versions from VersionEdits; a file is
// live while some Version (current, or held by an iterator) names it.

#ifndef SIFT_DB_VERSION_SET_H_
#define SIFT_DB_VERSION_SET_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "db/column_family.h"
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

class VersionSet {
 public:
  // Makes a family's table cache from its options (may return null: a
  // test's VersionSet without tables).
  using TableCacheFactory =
      std::function<std::unique_ptr<TableCache>(const Options&)>;

  // options: the DB's, with the default family's ColumnFamilyOptions.
  VersionSet(std::string dbname, const Options& options,
             TableCacheFactory make_table_cache, Env* env);
  ~VersionSet();

  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Creates the MANIFEST and CURRENT of a new, empty database.
  absl::Status CreateNew();
  // The options a family recorded in the MANIFEST is opened with, by
  // name; nullopt leaves the family unopened.
  using FamilyOptions =
      std::function<std::optional<ColumnFamilyOptions>(const std::string&)>;
  // Reads CURRENT and the MANIFEST it names; opens every table (checking
  // it exists and its size matches) and fills the facts of files recorded
  // without them (format 1) from their properties. DataLoss names the file
  // and offset. Families other than "default" that options_for leaves out
  // (all of them when it is null) are named in *unopened, and their files
  // are not opened.
  absl::Status Recover(const FamilyOptions& options_for,
                       std::vector<std::string>* unopened);
  // The names of the families the MANIFEST that CURRENT names records,
  // "default" first, without opening anything.
  static absl::StatusOr<std::vector<std::string>> ListColumnFamilies(
      Env* env, const std::string& dbname);

  // Applies edit to the current version of its family
  // (edit->column_family_), writes it to the MANIFEST (a new one, with a
  // full snapshot, the first time after Recover/CreateNew), syncs, and
  // installs the result as current. The mutex is released while writing;
  // callers from several threads take turns (each edit applies to the
  // Version the one before it installed). REQUIRES: *mu held, and always
  // the same mutex.
  absl::Status LogAndApply(VersionEdit* edit, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The same for edits of distinct families, as one atomic group: after a
  // crash, recovery applies all or none of them.
  absl::Status LogAndApply(absl::Span<VersionEdit* const> edits, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // After a failed MANIFEST write every LogAndApply returns that error
  // (one waiting its turn behind it included) until this is called
  // (Resume, which then writes a new MANIFEST).
  void ClearWriteError() { write_error_ = absl::OkStatus(); }
  // Records a new family in the MANIFEST and adds it. REQUIRES: no live
  // family has the name.
  absl::StatusOr<std::shared_ptr<ColumnFamilyData>> CreateColumnFamily(
      const std::string& name, const Options& options, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Records the drop of a family (not the default) and removes it: its
  // Version becomes empty, and its files go once no older Version held by
  // an iterator names them.
  absl::Status DropColumnFamily(ColumnFamilyData* cfd, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  ColumnFamilyData* default_family() const { return families_[0].get(); }
  // The live families, "default" first, then by ID.
  const std::vector<std::shared_ptr<ColumnFamilyData>>& families() const {
    return families_;
  }
  // Dropped families whose files older Versions may still name.
  const std::vector<std::shared_ptr<ColumnFamilyData>>& dropped_families()
      const {
    return dropped_;
  }
  // The live family with this ID or name; null if none.
  std::shared_ptr<ColumnFamilyData> FamilyById(uint32_t id) const;
  std::shared_ptr<ColumnFamilyData> FamilyByName(std::string_view name) const;

  // The default family's current Version.
  std::shared_ptr<const Version> current() const {
    return default_family()->current();
  }

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
  // WALs numbered below it hold nothing the tables of every family lack
  // (families flush together: db/db_impl/db_impl_background.cc).
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

  // Files named by any live Version of any family, dropped ones included:
  // tables and their replacement filters.
  void AddLiveFiles(std::set<uint64_t>* live);

  // Whether some family is due for compaction.
  bool NeedsCompaction() const;
  // The first due compaction of any family that conflicts with nothing in
  // flight there (ColumnFamilyData::PickCompaction), families taken
  // round-robin so that one busy family does not starve the others.
  std::unique_ptr<Compaction> PickCompaction();
  // Counts the Versions installed: a pick that found nothing at one count
  // finds nothing until it changes (or a running compaction ends).
  uint64_t version_count() const { return version_count_; }
  // The largest family ID given so far (0: no family besides "default").
  uint32_t max_column_family() const { return max_column_family_; }

 private:
  class Builder;
  struct Replay;

  std::shared_ptr<ColumnFamilyData> NewFamily(uint32_t id,
                                              const std::string& name,
                                              const Options& options) const;
  void Install(ColumnFamilyData* cfd, std::shared_ptr<Version> v);
  // The records a new MANIFEST starts with: every live family's state.
  std::vector<std::string> EncodeSnapshot() const;
  // LogAndApply's work, once it is this caller's turn. added: the family
  // edits[0] creates, added to families_ once it is recorded.
  absl::Status LogAndApplyInTurn(absl::Span<VersionEdit* const> edits,
                                 std::shared_ptr<ColumnFamilyData> added,
                                 Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Takes the MANIFEST's turn, then LogAndApplyInTurn.
  absl::Status LogAndApplyTurn(absl::Span<VersionEdit* const> edits,
                               std::shared_ptr<ColumnFamilyData> added,
                               Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status ReadManifest(const std::string& name, Replay* replay);

  const std::string dbname_;
  const Options options_;  // the default family's
  const TableCacheFactory make_table_cache_;
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

  std::vector<std::shared_ptr<ColumnFamilyData>> families_;
  // Dropped families whose older Versions may still be read.
  std::vector<std::shared_ptr<ColumnFamilyData>> dropped_;
  uint32_t max_column_family_ = 0;
  size_t next_pick_ = 0;  // PickCompaction's round-robin start
  // A LogAndApply is writing the MANIFEST (with the mutex released);
  // others wait on manifest_cv_ for their turn.
  bool manifest_busy_ = false;
  CondVar manifest_cv_;
  absl::Status write_error_;  // see ClearWriteError
  uint64_t version_count_ = 0;
};

}  // namespace sift

#endif  // SIFT_DB_VERSION_SET_H_
