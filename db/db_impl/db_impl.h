// DBImpl: the engine behind sift::DB. Its members are defined in
// db/db_impl/, one file per concept, and in db/compaction/ for compaction:
//   db_impl.cc                  open, close, option checks, DestroyDB
//   db_impl_read.cc             Get, MultiGet, NewIterator, snapshots
//   db_impl_write.cc            the write path: writer queue, group commit,
//                               WAL
//   db_impl_background.cc       the background threads: flush, cleanup
//   db_impl_recovery.cc         recovery from MANIFEST and WAL at Open
//   db_impl_read_only.cc        DB::OpenForReadOnly
//   db_impl_properties.cc       GetProperty and statistics text
//   db_impl_approximate_size.cc GetApproximateSizes
//   db_impl_resume.cc           Resume: clearing a background error
//                               (queued as a writer, db_impl_write.cc)
//   db_impl_checkpoint.cc       CreateCheckpoint
//   db_impl_ingest.cc           IngestExternalFiles
//   db_impl_rebuild_filters.cc  RebuildFilters
//   db/compaction/db_impl_compaction.cc  compactions: automatic, manual,
//                               installing results (db/compaction/
//                               compaction.h maps the rest of compaction)
//
// Concurrency (docs/DESIGN.md): mu_ guards the DB state. Writers queue on mu_;
// the front writer commits a group with mu_ released. max_background_jobs
// background threads flush and compact. Readers take the current ReadView
// (memtable, immutable memtable, Version) from their thread's slot in views_
// (no lock in the common case, db/read_view.h) and then read with no lock at
// all.

#ifndef SIFT_DB_DB_IMPL_DB_IMPL_H_
#define SIFT_DB_DB_IMPL_DB_IMPL_H_

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "db/column_family.h"
#include "db/dbformat.h"
#include "db/file_lifetime.h"
#include "db/log_writer.h"
#include "db/memtable.h"
#include "db/read_view.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "db/write_batch_internal.h"
#include "db/write_delay.h"
#include "sift/db.h"
#include "sift/env.h"
#include "util/mutex.h"

namespace sift {

class Compaction;
struct ExternalFile;

// Checks every field DB::Open uses; InvalidArgument names the field.
absl::Status ValidateOptions(const Options& options);

// What replaying the WALs at Open met, for GetProperty("sift.wal-recovery").
struct WalRecoveryStats {
  uint64_t logs = 0;             // logs replayed (in part or whole)
  uint64_t records = 0;          // batches replayed
  uint64_t damaged_regions = 0;  // damaged records dropped or skipped
  uint64_t dropped_bytes = 0;    // log bytes not replayed because of damage
  uint64_t logs_dropped = 0;     // later logs not replayed (point in time)
  std::string first_damage;      // "<file>: <what> at offset N", or empty
};

class DBImpl final : public DB {
 public:
  // A read_only DB takes no lock and writes nothing (DB::OpenForReadOnly).
  // options: the DB's, with the default family's; families: the column
  // families to open besides "default" (DB::Open with descriptors).
  DBImpl(const Options& options, std::string dbname, bool read_only = false,
         std::vector<ColumnFamilyDescriptor> families = {});
  ~DBImpl() override;

  // Recovers or creates the DB and starts the background threads.
  absl::Status OpenImpl();
  // Reads the MANIFEST and replays the WALs into the memtables, in memory
  // only. REQUIRES: constructed read_only.
  absl::Status OpenReadOnlyImpl();
  // A new handle on each family named at construction (and "default"),
  // in the order of names.
  absl::Status HandlesFor(
      const std::vector<std::string>& names,
      std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles);

  absl::Status Put(const WriteOptions& options, std::string_view key,
                   std::string_view value) override;
  absl::Status Delete(const WriteOptions& options,
                      std::string_view key) override;
  absl::Status DeleteRange(const WriteOptions& options, std::string_view begin,
                           std::string_view end) override;
  absl::Status Write(const WriteOptions& options, WriteBatch* batch) override;
  absl::Status Get(const ReadOptions& options, std::string_view key,
                   std::string* value) override;
  std::vector<absl::Status> MultiGet(const ReadOptions& options,
                                     absl::Span<const std::string_view> keys,
                                     std::vector<std::string>* values) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  absl::Status Flush() override;
  absl::Status CompactRange(std::optional<std::string_view> begin,
                            std::optional<std::string_view> end) override;
  absl::Status WaitForCompaction() override;
  std::optional<std::string> GetProperty(std::string_view name) override;
  absl::StatusOr<std::vector<uint64_t>> GetApproximateSizes(
      const SizeApproximationOptions& options,
      absl::Span<const Range> ranges) override;
  // The DB's counters and the point reads of every family, dropped ones
  // included.
  Statistics GetStatistics() override;
  absl::Status Resume() override;
  absl::Status CreateCheckpoint(const std::string& dir,
                                uint64_t* sequence) override;
  absl::Status IngestExternalFiles(const std::vector<std::string>& paths,
                                   const IngestOptions& options) override;
  absl::Status IngestExternalFiles(ColumnFamilyHandle* family,
                                   const std::vector<std::string>& paths,
                                   const IngestOptions& options) override;
  absl::Status RebuildFilters() override;
  absl::Status Close() override;

  // ---- Column families (db_impl_column_family.cc)
  ColumnFamilyHandle* DefaultColumnFamily() const override {
    return default_handle_.get();
  }
  absl::StatusOr<std::unique_ptr<ColumnFamilyHandle>> CreateColumnFamily(
      const ColumnFamilyOptions& options, const std::string& name) override;
  absl::Status DropColumnFamily(ColumnFamilyHandle* family) override;
  absl::Status Put(const WriteOptions& options, ColumnFamilyHandle* family,
                   std::string_view key, std::string_view value) override;
  absl::Status Delete(const WriteOptions& options, ColumnFamilyHandle* family,
                      std::string_view key) override;
  absl::Status DeleteRange(const WriteOptions& options,
                           ColumnFamilyHandle* family, std::string_view begin,
                           std::string_view end) override;
  absl::Status Get(const ReadOptions& options, ColumnFamilyHandle* family,
                   std::string_view key, std::string* value) override;
  std::vector<absl::Status> MultiGet(const ReadOptions& options,
                                     ColumnFamilyHandle* family,
                                     absl::Span<const std::string_view> keys,
                                     std::vector<std::string>* values) override;
  std::vector<absl::Status> MultiGet(
      const ReadOptions& options,
      absl::Span<ColumnFamilyHandle* const> families,
      absl::Span<const std::string_view> keys,
      std::vector<std::string>* values) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options,
                                        ColumnFamilyHandle* family) override;
  absl::StatusOr<std::vector<std::unique_ptr<Iterator>>> NewIterators(
      const ReadOptions& options,
      const std::vector<ColumnFamilyHandle*>& families) override;
  absl::Status Flush(ColumnFamilyHandle* family) override;
  absl::Status RebuildFilters(ColumnFamilyHandle* family) override;
  absl::Status CompactRange(ColumnFamilyHandle* family,
                            std::optional<std::string_view> begin,
                            std::optional<std::string_view> end) override;
  std::optional<std::string> GetProperty(ColumnFamilyHandle* family,
                                         std::string_view name) override;
  absl::StatusOr<std::vector<uint64_t>> GetApproximateSizes(
      const SizeApproximationOptions& options, ColumnFamilyHandle* family,
      absl::Span<const Range> ranges) override;

 private:
  struct Writer;
  struct ManualCompaction;
  class SnapshotImpl;

  // ---- db_impl_column_family.cc
  // The live family `family` names; InvalidArgument naming what is wrong
  // (null, another DB's handle, a dropped family) for `operation`.
  absl::StatusOr<ColumnFamilyData*> FamilyOf(const ColumnFamilyHandle* family,
                                             std::string_view operation) const;
  // The options of a family: the DB's with its ColumnFamilyOptions.
  Options FamilyOptions(const ColumnFamilyOptions& cf) const {
    return Options(options_, cf);
  }
  // InvalidArgument unless every family batch writes is live (and, where
  // it holds a DeleteRange, uses the bytewise comparator).
  absl::Status CheckBatchFamilies(const WriteBatch* batch) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether CheckBatchFamilies has anything to check: the batch names a
  // family besides "default", or the default family's comparator is not
  // bytewise (a DeleteRange is then refused).
  bool NeedsFamilyCheck(const WriteBatch* batch) const {
    return WriteBatchInternal::NamesFamilies(batch) ||
           options_.comparator != BytewiseComparator();
  }
  // Creates the families named at construction that the DB lacks
  // (create_missing_column_families), as Open's last step.
  absl::Status CreateMissingFamilies() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The checks of Open's descriptors (and what Recover found) before
  // anything is written: InvalidArgument naming the family.
  absl::Status CheckRequestedFamilies(const std::vector<std::string>& unopened)
      const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_recovery.cc
  // One VersionEdit per family, by ID, installed as one group.
  using FamilyEdits = std::map<uint32_t, VersionEdit>;
  // The tables it writes are added to *edits and held in *outputs until
  // the caller has installed *edits.
  absl::Status Recover(FamilyEdits* edits, std::vector<PendingOutput>* outputs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Installs *edits (every family's, the log number set) as one group.
  absl::Status InstallFamilyEdits(FamilyEdits* edits)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CreateNewDatabase() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status NoDatabaseError() const;
  // Replays one log as options_.wal_recovery_mode says; *stopped is set
  // when kPointInTimeRecovery stopped at damage in it.
  absl::Status RecoverLogFile(uint64_t number, FamilyEdits* edits,
                              std::vector<PendingOutput>* outputs,
                              SequenceNumber* max_sequence, bool* stopped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status VerifyAllTables() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_write.cc
  // Makes room in the memtable for a write of `bytes` (force: a flush
  // with no write), delaying or stopping it while level 0 is deep.
  absl::Status MakeRoomForWrite(bool force, size_t bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  WriteBatch* BuildBatchGroup(Writer** last_writer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status NewLogFile() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A new log, and every family's non-empty memtable becomes its immutable
  // one, for the background thread to flush (families switch together:
  // the log number is the DB's). REQUIRES: no immutable memtable.
  absl::Status SwitchMemTables() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs fn at the front of the writer queue, as a writer no other joins:
  // no write touches the log or the memtable until fn returns (fn may
  // release mu_; writers queue meanwhile).
  absl::Status RunAsFrontWriter(absl::FunctionRef<absl::Status()> fn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_checkpoint.cc
 public:
  struct CheckpointState;

 private:
  // The state a checkpoint copies, taken as the front writer; pins the
  // logs it names (release with UnpinLogs).
  absl::Status CaptureCheckpointState(CheckpointState* state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UnpinLogs(uint64_t first) ABSL_LOCKS_EXCLUDED(mu_);

  // ---- db_impl_ingest.cc
  // Copies (or links) files[i] to table numbers[i].
  absl::Status PlaceIngestedFiles(const std::vector<ExternalFile>& files,
                                  const std::vector<uint64_t>& numbers,
                                  bool move_files) ABSL_LOCKS_EXCLUDED(mu_);
  // Flushes the memtables if one of cfd's overlaps a file (or refuses to).
  absl::Status FlushForIngest(ColumnFamilyData* cfd,
                              const std::vector<ExternalFile>& files,
                              bool allow_blocking_flush)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Step 3 of db_impl_ingest.cc: files[i] is table (*numbers)[i], renamed
  // here to a new number, whose PendingOutput is added to *reserved.
  // *committed is set once the MANIFEST may name the files.
  // REQUIRES: the front writer, the background threads idle.
  absl::Status InstallIngestedFiles(ColumnFamilyData* cfd,
                                    const std::vector<ExternalFile>& files,
                                    const IngestOptions& options,
                                    std::vector<uint64_t>* numbers,
                                    std::vector<PendingOutput>* reserved,
                                    bool* committed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_resume.cc
  // REQUIRES: the caller is the front writer (see Resume).
  absl::Status ResumeAsFrontWriter() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_background.cc
  // What a background thread may start now.
  enum class BackgroundWork { kNone, kFlush, kExclusive, kCompaction };
  BackgroundWork NextWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One background thread: takes NextWork's item until Close.
  void BackgroundLoop();
  bool HasBackgroundWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FlushImmutable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FlushImmutable as the one thread flushing (flush_running_ set
  // meanwhile); nothing if imm_ is gone or another thread is flushing it.
  absl::Status FlushAsTheFlusher() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes mem, of family cfd, to a new table added to *edit; its
  // PendingOutput goes to *outputs, for the caller to hold until *edit is
  // installed.
  absl::Status WriteLevel0Table(ColumnFamilyData* cfd, MemTable* mem,
                                VersionEdit* edit, const Version* base,
                                std::vector<PendingOutput>* outputs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A new file number, protected from deletion until the result is dropped
  // (db/file_lifetime.h): every table and filter file the DB writes gets
  // its number here.
  PendingOutput NewPendingOutput() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The one place files of the DB directory are deleted, but for a
  // writer's own never-named output (db/file_lifetime.h).
  void DeleteObsoleteFiles() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordBackgroundError(const absl::Status& s)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db/compaction/db_impl_compaction.cc
  absl::Status BackgroundCompaction() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ManualCompactionStep() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs c (or moves its file), installs the result, then, c gone,
  // records any error and deletes the files no Version needs.
  absl::Status DoCompaction(std::unique_ptr<Compaction> c)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status InstallCompaction(Compaction* c)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RunManual(ColumnFamilyData* cfd, int level, bool rewrite,
                         std::optional<std::string_view> begin,
                         std::optional<std::string_view> end);
  bool NeedsRewrite(const ColumnFamilyData& cfd, const FileMetaData& f,
                    int level) const;

  // The sequence a read sees: its snapshot's, or the last published.
  SequenceNumber ReadSequence(const ReadOptions& options) const;
  // ---- db_impl_rebuild_filters.cc
  struct FilterInstall;
  // Rebuilds the filter of f, at `level` when listed (skipped if no longer
  // there), and has the background thread record it (also skipped if the
  // file is gone by then).
  absl::Status RebuildFiltersImpl(ColumnFamilyData* cfd);
  absl::Status RebuildFilter(ColumnFamilyData* cfd, int level,
                             std::shared_ptr<FileMetaData> f,
                             const FilterTarget& target);
  // Background thread: records filter_install_ in the MANIFEST.
  absl::Status InstallReplacementFilter() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Publishes every family's memtables and current Version to readers.
  void InstallReadView() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The same after a family's memtable changed, and publishes the
  // memtables to the front writer (write_mems_). REQUIRES: the front
  // writer (or Open, before any write).
  void InstallMemTables() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static std::shared_ptr<MemTable> NewMemTable(const ColumnFamilyData& cfd);
  // Whether some family has an immutable memtable to flush.
  bool AnyImm() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The reads, for one family.
  absl::Status GetImpl(const ReadOptions& options, ColumnFamilyData* cfd,
                       std::string_view key, std::string* value);
  std::vector<absl::Status> MultiGetImpl(
      const ReadOptions& options, ColumnFamilyData* cfd,
      absl::Span<const std::string_view> keys,
      std::vector<std::string>* values);
  // MultiGet of keys in cfd through view at seq, into values and
  // statuses (of keys' size).
  void MultiGetAt(const ReadOptions& options, ColumnFamilyData* cfd,
                  const ReadView& view, SequenceNumber seq,
                  absl::Span<const std::string_view> keys,
                  absl::Span<std::string> values,
                  absl::Span<absl::Status> statuses);
  // An iterator over view (of cfd) at seq.
  std::unique_ptr<Iterator> NewIteratorAt(const ReadOptions& options,
                                          ColumnFamilyData* cfd,
                                          std::shared_ptr<const ReadView> view,
                                          SequenceNumber seq);
  std::optional<std::string> GetPropertyImpl(ColumnFamilyData* cfd,
                                             std::string_view name);
  absl::Status CompactRangeImpl(ColumnFamilyData* cfd,
                                std::optional<std::string_view> begin,
                                std::optional<std::string_view> end);
  absl::StatusOr<std::vector<uint64_t>> GetApproximateSizesImpl(
      const SizeApproximationOptions& options, ColumnFamilyData* cfd,
      absl::Span<const Range> ranges);

 public:
  // DB::OpenForReadOnly's work (db_impl_read_only.cc), with families.
  static absl::StatusOr<std::unique_ptr<DB>> OpenForReadOnlyWith(
      const Options& options, const std::string& path,
      std::vector<ColumnFamilyDescriptor> families);

 private:
  // FailedPrecondition for `operation` on a DB opened read-only.
  absl::Status ReadOnlyError(std::string_view operation) const;
  // FailedPrecondition for operation on a DB Close has closed.
  absl::Status ClosedError(std::string_view operation) const;
  // OK if operation, which writes, may run: the DB is neither read-only
  // nor closed (or closing).
  absl::Status CheckWritable(std::string_view operation) const {
    if (read_only_) return ReadOnlyError(operation);
    if (shutting_down_) return ClosedError(operation);
    return absl::OkStatus();
  }
  // Close's work, done once (by Close or the destructor): stops the
  // background threads after their current items, deletes obsolete files and
  // closes the log.
  absl::Status CloseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;  // validated, env filled in
  const std::string dbname_;
  Env* const env_;
  const bool read_only_;
  // Column families named at construction, besides "default".
  const std::vector<ColumnFamilyDescriptor> requested_;
  // What the DB counts beside the point reads, which each family counts
  // (ColumnFamilyData::read_stats); dropped families' reads are summed
  // here at the drop.
  StatisticsImpl stats_;
  Statistics dropped_read_stats_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<BlockCache> block_cache_;

  Mutex mu_;
  CondVar bg_cv_;  // background work done / state changed
  std::unique_ptr<FileLock> db_lock_;
  // Fixed at construction. Used only with mu_ held, except LastSequence(),
  // which is atomic (readers take their sequence without the mutex).
  const std::unique_ptr<VersionSet> versions_;
  // The default family (versions_->default_family()), and its handle.
  ColumnFamilyData* const default_cf_;
  const std::unique_ptr<ColumnFamilyHandleImpl> default_handle_;
  // Each live family's memtable by family ID (null for IDs not live): what
  // the front writer inserts into without the mutex. Changed (by
  // InstallMemTables) only by the front writer and Open.
  std::vector<MemTable*> write_mems_;
  // Some family has an immutable memtable (families switch and flush
  // together), readable without mu_: a running compaction polls it to
  // flush the memtables first, so writers never wait out a compaction.
  std::atomic<bool> has_imm_{false};
  std::unique_ptr<WritableFile> logfile_ ABSL_GUARDED_BY(mu_);
  uint64_t logfile_number_ ABSL_GUARDED_BY(mu_) = 0;
  std::unique_ptr<log::Writer> log_ ABSL_GUARDED_BY(mu_);
  std::deque<Writer*> writers_ ABSL_GUARDED_BY(mu_);
  WriteBatch tmp_batch_ ABSL_GUARDED_BY(mu_);
  // Paces writes while level 0 is at or past the slowdown trigger.
  WriteDelay write_delay_ ABSL_GUARDED_BY(mu_);
  std::multiset<SequenceNumber> snapshots_ ABSL_GUARDED_BY(mu_);
  // Files being written that no installed Version names yet: never
  // deleted. Locked on its own, so a PendingOutput may go on any path.
  PendingOutputs pending_outputs_;
  // Logs being copied (by CreateCheckpoint): every log numbered at or
  // above the smallest pin is kept, even once tables hold its data.
  std::multiset<uint64_t> log_pins_ ABSL_GUARDED_BY(mu_);
  ManualCompaction* manual_ ABSL_GUARDED_BY(mu_) = nullptr;
  // A replacement filter waiting for the background thread to record it.
  FilterInstall* filter_install_ ABSL_GUARDED_BY(mu_) = nullptr;
  // The background threads' work in flight (db_impl_background.cc):
  // items of any kind; whether one is the flush; whether one runs alone
  // (a manual compaction step or a filter install, started with nothing
  // else in flight, and nothing else starts beside it); and how many are
  // automatic compactions.
  int bg_active_ ABSL_GUARDED_BY(mu_) = 0;
  bool flush_running_ ABSL_GUARDED_BY(mu_) = false;
  bool exclusive_running_ ABSL_GUARDED_BY(mu_) = false;
  int compactions_running_ ABSL_GUARDED_BY(mu_) = 0;
  // The VersionSet::version_count() at which the picker last found every
  // due compaction in conflict with work in flight: no thread tries again
  // until a Version is installed.
  uint64_t nothing_to_pick_at_ ABSL_GUARDED_BY(mu_) = 0;
  // An ingest is installing its files: the background threads, which
  // share the MANIFEST with it, start no work until it is done.
  bool ingest_running_ ABSL_GUARDED_BY(mu_) = false;
  // Set by Close (and the destructor), under mu_: the background thread
  // stops after its current item and writers are refused. Atomic so that
  // CheckWritable can read it without the mutex.
  std::atomic<bool> shutting_down_{false};
  // OpenImpl succeeded: until then Close deletes no file.
  bool opened_ ABSL_GUARDED_BY(mu_) = false;
  // Close has finished; a second Close returns close_status_.
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status close_status_ ABSL_GUARDED_BY(mu_);
  WalRecoveryStats wal_recovery_ ABSL_GUARDED_BY(mu_);
  // Sticky: once a flush, compaction or WAL write fails, writes stop.
  absl::Status bg_error_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> bg_threads_;  // max_background_jobs of them
};

// A replacement filter written by RebuildFilters, for the background
// thread (the one MANIFEST writer) to record (db_impl_rebuild_filters.cc).
struct DBImpl::FilterInstall {
  ColumnFamilyData* cfd = nullptr;  // the table's family
  uint64_t table_number = 0;
  ReplacementFilter filter;
  bool done = false;
  bool installed = false;  // false: the table was gone, or an error
  absl::Status status;
};

// A CompactRange request, one level at a time
// (db/compaction/db_impl_compaction.cc).
struct DBImpl::ManualCompaction {
  int level = 0;
  bool rewrite = false;  // rewrite files in place at `level`
  std::optional<std::string> begin, end;
  uint64_t max_file_number = 0;  // rewrite only files older than this
  ColumnFamilyData* cfd = nullptr;
  bool done = false;
  absl::Status status;
};

}  // namespace sift

#endif  // SIFT_DB_DB_IMPL_DB_IMPL_H_
