// DB: an embedded, persistent, ordered key-value store.
//
// In a function returning absl::Status:
//
// clang-format off
//   sift::Options options;
//   options.create_if_missing = true;
//   absl::StatusOr<std::unique_ptr<sift::DB>> db =
//       sift::DB::Open(options, "/tmp/testdb");
//   if (!db.ok()) return db.status();
//   absl::Status s = (*db)->Put(sift::WriteOptions(), "key", "value");
//   if (!s.ok()) return s;
//   std::string value;
//   s = (*db)->Get(sift::ReadOptions(), "key", &value);  // NotFound if absent
// clang-format on
//
// (tests/CMakeLists.txt compiles exactly the lines between the clang-format
// markers, so the example stays valid code.)
//
// Keys and values are arbitrary byte strings (empty and NUL bytes allowed);
// keys are ordered by Options::comparator, bytewise unless one is given.
//
// Thread safety: a DB may be used from any number of threads at once
// without external locking. Only one DB object (in one process) may have a
// database directory open at a time; a second Open fails with
// FailedPrecondition.
//
// Errors: NotFound for a missing key, and for nothing else; InvalidArgument
// for bad options or arguments (naming them); DataLoss for corruption
// (naming the file and offset) and for a table the DB names that is gone
// (a read of it fails so, never with NotFound); FailedPrecondition for a
// held lock, an existing DB with error_if_exists, or a missing one without
// create_if_missing. If a
// background flush or compaction fails (say, disk full), every later write
// fails with that error, reads keep working, and nothing acknowledged is
// lost: call Resume (or reopen the DB) once the cause is fixed.

#ifndef SIFT_INCLUDE_DB_H_
#define SIFT_INCLUDE_DB_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sift/column_family.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/statistics.h"
#include "sift/write_batch.h"

namespace sift {

// A consistent, read-only view of the DB at one moment (DB::GetSnapshot).
class Snapshot {
 protected:
  virtual ~Snapshot() = default;
};

// The user keys k with start <= k < limit (none when limit <= start).
struct Range {
  std::string_view start;
  std::string_view limit;
};

// What DB::GetApproximateSizes counts (RocksDB's SizeApproximationOptions).
// At least one of the two must be true.
struct SizeApproximationOptions {
  // Count the bytes of table files holding the range. Default: true.
  bool include_files = true;
  // Also count the bytes of keys and values the memtables hold in the range
  // (counted exactly, by walking those entries: the cost grows with the
  // entries in range, at most a write buffer's worth). Default: false, as
  // LevelDB, which counts files only.
  bool include_memtables = false;
};

class DB {
 public:
  // Opens (or, with create_if_missing, creates) the database at path,
  // recovering from its write-ahead logs. Every option is validated first.
  static absl::StatusOr<std::unique_ptr<DB>> Open(const Options& options,
                                                  const std::string& path);

  // Opens the database at path for reading only, as RocksDB's
  // OpenForReadOnly: it takes no LOCK, so it works while another process
  // has the DB open for writing, and it writes nothing -- no directory, no
  // LOCK, no WAL, no table, no MANIFEST. The write-ahead logs are replayed
  // into a memtable in memory, so reads see every write that reached a
  // log. The DB shows the state at Open; later writes by another process
  // are not seen (open again to see them), and a table that process
  // deletes after compacting makes a later read of it fail with
  // Unavailable naming the table (never NotFound: the data lives on in
  // the writer's newer tables, which opening again reads).
  // create_if_missing and error_if_exists do not apply: a missing database
  // is FailedPrecondition, and nothing is created. Put, Delete, Write, Flush
  // and CompactRange return FailedPrecondition; WaitForCompaction returns
  // OK at once (there is no background work). A writer that retires a log
  // or a MANIFEST while the open reads them makes it start over (up to 20
  // times, pausing a little longer each time); if the directory changed
  // during every attempt, the result is Unavailable naming the last error.
  static absl::StatusOr<std::unique_ptr<DB>> OpenForReadOnly(
      const Options& options, const std::string& path);

  // Opens the database at path with its column families
  // (sift/column_family.h). Every family the database has must be listed,
  // "default" included (else InvalidArgument naming those missing); a
  // listed family the database lacks is created with
  // DBOptions::create_missing_column_families, else InvalidArgument naming
  // it. Duplicate or empty names are InvalidArgument. *handles gets one
  // handle per descriptor, in order, each owned by the caller and
  // destroyed before the DB (the DB's own handle on "default" is
  // DefaultColumnFamily()). Each family is opened with its descriptor's
  // options; the DB-wide ones come from `options`.
  static absl::StatusOr<std::unique_ptr<DB>> Open(
      const DBOptions& options, const std::string& path,
      const std::vector<ColumnFamilyDescriptor>& families,
      std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles);
  // The same, read-only (as OpenForReadOnly above); families the database
  // has may be left out (as RocksDB), and none is created.
  static absl::StatusOr<std::unique_ptr<DB>> OpenForReadOnly(
      const DBOptions& options, const std::string& path,
      const std::vector<ColumnFamilyDescriptor>& families,
      std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles);
  // The names of the database's column families, "default" first.
  static absl::StatusOr<std::vector<std::string>> ListColumnFamilies(
      const DBOptions& options, const std::string& path);

  DB() = default;
  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;
  // Closes the database if Close has not (its status is then lost) and
  // frees it. REQUIRES: snapshots released, iterators destroyed.
  virtual ~DB();

  // Closes the database cleanly (RocksDB's DB::Close): starts no new
  // background work, waits for a flush or compaction already running to
  // finish and installs its result, so that no partly written or
  // uninstalled table is left in the directory and the next Open restarts
  // nothing; deletes the files no longer needed; closes the write-ahead
  // log. Writes acknowledged before it are in the log (unsynced ones with
  // the OS, see WriteOptions::sync), and a memtable not yet flushed is
  // replayed from it by the next Open. The wait is that of one flush or
  // one compaction step (a CompactRange in progress stops after its
  // current step and returns FailedPrecondition).
  //
  // Returns OK, or the error that stopped background work earlier (the
  // state on disk is then what the last successful install left, and
  // files in doubt are kept for the next Open to sort out), or the log's
  // close error. With snapshots unreleased it returns Aborted naming how
  // many and closes nothing (RocksDB's rule): release them and call again.
  //
  // After a Close that did not return Aborted, the DB still answers reads
  // (Get, MultiGet, iterators, properties) from its state at the close;
  // Put, Delete, DeleteRange, Write, Flush, CompactRange,
  // WaitForCompaction, Resume, CreateCheckpoint, IngestExternalFiles and
  // RebuildFilters return FailedPrecondition ("DB closed"). A second Close
  // returns what the first returned. Not to be called while another
  // thread is still using the DB.
  virtual absl::Status Close() = 0;

  // Keys are at most kMaxKeySize bytes, values at most kMaxValueSize
  // (sift/options.h): a larger one gets InvalidArgument, and nothing is
  // written.
  virtual absl::Status Put(const WriteOptions& options, std::string_view key,
                           std::string_view value) = 0;
  // Removes key; deleting a missing key is not an error.
  virtual absl::Status Delete(const WriteOptions& options,
                              std::string_view key) = 0;
  // Removes every key in [begin, end) (half-open, bytewise, as RocksDB's
  // DeleteRange), written before this call, as one write (one sequence
  // number, one WAL record). begin >= end is InvalidArgument naming both,
  // and nothing is written. Snapshots taken before still see the keys.
  // Cost: one entry per call, whatever the range holds; reads of keys in
  // the range and compactions check the range tombstone until compaction
  // drops it at the bottom level with the keys it covers. A file wholly
  // covered is dropped by compaction without being read. Range deletions
  // need the bytewise comparator (Options::comparator's default): under any
  // other, DeleteRange and a batch holding one are InvalidArgument.
  virtual absl::Status DeleteRange(const WriteOptions& options,
                                   std::string_view begin,
                                   std::string_view end) = 0;
  // Applies the batch atomically. A batch whose status() is not OK (it
  // refused an entry as too large) is refused with that error, whole.
  // Write stamps the sequence number it assigns into the batch's header
  // (the first 8 bytes of its WAL payload, db/FORMAT.md), so the batch is
  // modified even though its entries are not: do not share it with another
  // thread during the call. The batch stays valid and may be written again,
  // or Clear()ed and reused.
  virtual absl::Status Write(const WriteOptions& options,
                             WriteBatch* batch) = 0;

  // The value of key, or NotFound with an empty message, as RocksDB's and
  // LevelDB's Get (naming the key would allocate on every miss: 1.3-2x a
  // miss's time in db_bench readmissing). A key absent from the DB costs one
  // hash and a few in-memory filter probes: no data block is read for files
  // whose filters rule it out.
  virtual absl::Status Get(const ReadOptions& options, std::string_view key,
                           std::string* value) = 0;

  // Get for every key of a batch, through one consistent view: all keys
  // are read at one sequence (options.snapshot's, or the latest when the
  // call starts), so a batch never sees part of another thread's Write.
  // Returns one status per key, in order; statuses[i] and (*values)[i] are
  // what Get(options, keys[i], ...) returns at that sequence: OK with the
  // value, NotFound with an empty value, or an error (corruption, I/O) that
  // fails only the keys it touched. Afterwards values->size() ==
  // keys.size(); whatever *values held before is replaced. Keys may repeat
  // and come in any order; an empty batch returns an empty vector.
  //
  // Cheaper per key than a loop of Get: each key is hashed once, each file
  // in the keys' path is asked once for all the keys in its range (their
  // filter probes overlapping in memory), and keys served by one data
  // block read it once. Statistics count every key as Get would, except
  // that a data block shared by several keys counts as one block read.
  virtual std::vector<absl::Status> MultiGet(
      const ReadOptions& options, absl::Span<const std::string_view> keys,
      std::vector<std::string>* values) = 0;

  // An iterator over the DB's user keys (initially unpositioned). It sees
  // the state at its creation (or at options.snapshot) and keeps the files
  // it reads alive until destroyed. REQUIRES: destroyed before the DB.
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) = 0;

  // The state now, for reads with ReadOptions::snapshot. Owned by the DB;
  // release it with ReleaseSnapshot (before the DB is destroyed).
  virtual const Snapshot* GetSnapshot() = 0;
  virtual void ReleaseSnapshot(const Snapshot* snapshot) = 0;

  // Writes the memtable to a level-0 file; returns when that file is
  // durable and recorded.
  virtual absl::Status Flush() = 0;

  // Compacts the user-key range [begin, end] (nullopt: unbounded) down to
  // the bottom level, rebuilding the filters of the files it writes with
  // the current options; returns when done. InvalidArgument naming both
  // if begin is after end under the comparator, with nothing done.
  virtual absl::Status CompactRange(std::optional<std::string_view> begin,
                                    std::optional<std::string_view> end) = 0;

  // Waits until no flush or compaction is pending (or a background error
  // stops them; that error is returned).
  virtual absl::Status WaitForCompaction() = 0;

  // Text about the DB's state, or nullopt for an unknown name. Every name
  // served (db/db_impl/db_impl_properties.cc):
  //   sift.stats                  counters, observed filter FP rate, and the
  //                               number of files per level
  //   sift.levels                 per level: files, bytes, target bytes, and
  //                               the fp chances its files were built with
  //   sift.filter-stats           per level: filter counters, observed FP
  //                               rate, the fp chances its filters were
  //                               built for, their bits per key (bodies)
  //                               and bytes (the filters' memory); a "mem"
  //                               row for the memtable filters, and the
  //                               total (with the options' fp chance or
  //                               "budget:<bits per key>")
  //   sift.filter-bytes           bytes of the filters reads use, over all
  //                               live files (replacement filters in place
  //                               of the ones they replace), from the
  //                               files' recorded facts
  //   sift.filter-keys            the keys those filters hold
  //   sift.num-files-at-level<N>  the number of files at level N (0..6)
  //   sift.num-running-compactions  compactions running now (RocksDB's
  //                               num-running-compactions)
  //   sift.num-running-flushes    flushes running now (0 or 1)
  //   sift.memory                 bytes in memtables, filters, indexes and
  //                               the block cache; number of open tables
  //   sift.sstables               every file per level: number, size,
  //                               smallest and largest key
  //   sift.wal-recovery           what replaying the logs at Open met: logs
  //                               and records replayed, damaged records and
  //                               bytes dropped (Options::wal_recovery_mode)
  virtual std::optional<std::string> GetProperty(std::string_view name) = 0;

  // For each range, about how many bytes of storage its keys take, as
  // LevelDB's and RocksDB's GetApproximateSizes: a table file wholly inside
  // the range counts whole (data, filter and index), one the range cuts
  // counts the bytes between the data blocks where its bounds fall (from
  // the in-memory index: no data block is read). So the sizes of adjacent
  // ranges add up, granularity is a block, and data written since the last
  // flush counts only with options.include_memtables. Sizes are of
  // compressed, on-disk bytes and include entries that snapshots or
  // pending compaction keep (old versions, tombstones). InvalidArgument if
  // options includes neither files nor memtables; the error of a table
  // that cannot be opened.
  virtual absl::StatusOr<std::vector<uint64_t>> GetApproximateSizes(
      const SizeApproximationOptions& options,
      absl::Span<const Range> ranges) = 0;

  // The counters, in total and per level.
  virtual Statistics GetStatistics() = 0;

  // After a background error (a failed WAL write, flush, compaction or
  // MANIFEST write: every write then fails with it), resumes writes
  // without reopening once the cause is gone (say, disk space is back).
  // Flushes the memtables to tables and starts a new write-ahead log, so a
  // log a failed write may have left with a partial record is retired;
  // nothing acknowledged is lost. OK at once if there is no error. If the
  // cause persists, returns the new failure and writes stay stopped; call
  // again later. A DataLoss error (a damaged file) is not cleared: it is
  // returned as is. Blocks while it flushes.
  virtual absl::Status Resume() = 0;

  // Makes dir (which must not exist: InvalidArgument naming it) a database
  // that opens on its own, read-write, holding exactly this DB's state at
  // one moment: every write acknowledged before the call, none begun after
  // it. Tables are hard links when dir is on the same file system (nearly
  // free, and safe: tables are never modified) and copies otherwise; the
  // write-ahead logs not yet in tables are copied up to their length at
  // that moment, so the call costs about one memtable's worth of copying
  // and never flushes. Writes and reads go on meanwhile: they wait only
  // while the state is taken under the DB's lock (no I/O is done then).
  // Everything in dir is synced before CURRENT is written, so a crash
  // leaves either a complete checkpoint or a directory without CURRENT
  // (not a database; delete it). On failure dir is removed again. If
  // sequence is not null it receives the sequence number of the newest
  // write the checkpoint holds (a snapshot taken when that was the newest
  // sees the same data). FailedPrecondition on a DB opened read-only; the
  // background error, if one has stopped writes.
  virtual absl::Status CreateCheckpoint(const std::string& dir,
                                        uint64_t* sequence = nullptr) = 0;

  // Adds the SSTables at paths, written by SstFileWriter (keys strictly
  // increasing, sequence 0), to the DB atomically, as RocksDB's
  // IngestExternalFile: after the call either every entry of every file is
  // in the DB or, on failure, none is -- also across a crash at any point.
  // The files' entries are newer than every entry already in the DB: they
  // all get one new sequence number, recorded for each file in the
  // MANIFEST (db/FORMAT.md, "File facts"), so they shadow older values of
  // their keys, and snapshots and iterators made before the call do not
  // see them. Each file goes to the deepest level whose files, and those
  // of every level above it, it does not overlap (level 0 if it overlaps
  // a level-0 file), so a file of keys new to the DB skips compaction.
  //
  // Before anything changes, every block of every file is read and its
  // checksum checked, every key is checked to be in order with sequence 0,
  // and the files' ranges are checked not to overlap one another (paths
  // may come in any order). Refused with nothing changed: a missing file
  // (NotFound), a file that cannot be read (a directory) or is damaged
  // (DataLoss naming file and offset), files
  // that overlap each other or a key out of order (InvalidArgument naming
  // them), a file whose properties name another comparator than
  // Options::comparator (InvalidArgument naming both), an empty list or an
  // empty file (InvalidArgument). A file's
  // filter is kept as it was built (its fp chance and layout may differ
  // from the DB's options); CompactRange rewrites it with the current
  // options, as for any other file.
  //
  // Writes wait while the files are put in place: behind a running
  // compaction's end, and behind a memtable flush when a file overlaps
  // the memtable's keys or range deletions (see
  // IngestOptions::allow_blocking_flush). Reads go on. A DeleteRange
  // made after the ingest deletes the files' keys it covers; one made
  // before does not.
  // FailedPrecondition on a DB opened read-only; the background error, if
  // one has stopped writes.
  virtual absl::Status IngestExternalFiles(
      const std::vector<std::string>& paths, const IngestOptions& options) = 0;
  // The same, into one column family: the files must be ordered by its
  // comparator; a memtable flush for an overlap flushes every family
  // (they flush together).
  virtual absl::Status IngestExternalFiles(
      ColumnFamilyHandle* family, const std::vector<std::string>& paths,
      const IngestOptions& options) = 0;

  // Brings every live file's filter to what the options now call for
  // (bloom_filter_fp_chance or the filter_bits_per_key_budget allocation,
  // and the level's layout) without rewriting any data: each file whose
  // filter is not current has its keys read once and a new filter written
  // to a filter file of its own, which the MANIFEST then records as the
  // file's replacement filter (db/FORMAT.md, "Filter files"). Writes about
  // the new filters' size (at 1% -> 0.1%, ~1.6 bytes per key), not the
  // data's. Crash-safe at every step: a file keeps its old filter until
  // its new one is durable and recorded. Reads and writes go on meanwhile;
  // a file compacted away mid-rebuild is skipped (its output already has a
  // current filter). Files whose options call for no filter keep the one
  // they have. Blocks until done; FailedPrecondition on a read-only DB.
  virtual absl::Status RebuildFilters() = 0;

  // ---- Column families (sift/column_family.h). The methods above without
  // a handle mean the default family; these take the family right after
  // the options argument (first where there is none). A handle of another
  // DB, or of a dropped family, is InvalidArgument naming it.

  // The default family's handle, owned by the DB.
  virtual ColumnFamilyHandle* DefaultColumnFamily() const = 0;
  // Adds a family; InvalidArgument for an empty name or one in use.
  virtual absl::StatusOr<std::unique_ptr<ColumnFamilyHandle>>
  CreateColumnFamily(const ColumnFamilyOptions& options,
                     const std::string& name) = 0;
  // Removes a family and its data; InvalidArgument for "default". Its
  // files are deleted once no iterator reads them; the handle stays valid
  // for GetName until destroyed.
  virtual absl::Status DropColumnFamily(ColumnFamilyHandle* family) = 0;

  virtual absl::Status Put(const WriteOptions& options,
                           ColumnFamilyHandle* family, std::string_view key,
                           std::string_view value) = 0;
  virtual absl::Status Delete(const WriteOptions& options,
                              ColumnFamilyHandle* family,
                              std::string_view key) = 0;
  virtual absl::Status DeleteRange(const WriteOptions& options,
                                   ColumnFamilyHandle* family,
                                   std::string_view begin,
                                   std::string_view end) = 0;
  virtual absl::Status Get(const ReadOptions& options,
                           ColumnFamilyHandle* family, std::string_view key,
                           std::string* value) = 0;
  // MultiGet of one family.
  virtual std::vector<absl::Status> MultiGet(
      const ReadOptions& options, ColumnFamilyHandle* family,
      absl::Span<const std::string_view> keys,
      std::vector<std::string>* values) = 0;
  // MultiGet across families: keys[i] is read in families[i] (the two
  // spans have one size, else every status is InvalidArgument), all at one
  // sequence.
  virtual std::vector<absl::Status> MultiGet(
      const ReadOptions& options,
      absl::Span<ColumnFamilyHandle* const> families,
      absl::Span<const std::string_view> keys,
      std::vector<std::string>* values) = 0;
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& options,
                                                ColumnFamilyHandle* family) = 0;
  // One iterator per family, all over one state (one sequence).
  virtual absl::StatusOr<std::vector<std::unique_ptr<Iterator>>> NewIterators(
      const ReadOptions& options,
      const std::vector<ColumnFamilyHandle*>& families) = 0;
  // Flushes every family's memtable (families flush together, so that one
  // WAL serves them all: docs/DESIGN.md, "Column families").
  virtual absl::Status Flush(ColumnFamilyHandle* family) = 0;
  // RebuildFilters above, for the tables of one family (with its options).
  virtual absl::Status RebuildFilters(ColumnFamilyHandle* family) = 0;
  virtual absl::Status CompactRange(ColumnFamilyHandle* family,
                                    std::optional<std::string_view> begin,
                                    std::optional<std::string_view> end) = 0;
  // The properties above, of one family. sift.filter-stats counts this
  // family's reads (with a "db" row of every family's when there are
  // several); sift.stats and GetStatistics count the whole DB's.
  virtual std::optional<std::string> GetProperty(ColumnFamilyHandle* family,
                                                 std::string_view name) = 0;
  virtual absl::StatusOr<std::vector<uint64_t>> GetApproximateSizes(
      const SizeApproximationOptions& options, ColumnFamilyHandle* family,
      absl::Span<const Range> ranges) = 0;
};

// What RepairDB kept and set aside.
struct RepairReport {
  // Table files read whole with every checksum good, now in the MANIFEST
  // (including the ones made from logs).
  std::vector<std::string> tables_kept;
  // Table files that could not be read, "<name>: <why>"; their keys are
  // lost unless another table or a log held them.
  std::vector<std::string> tables_lost;
  // Every file moved into <path>/lost/, "<name>: <why>": unreadable
  // tables, logs once converted to tables, replaced MANIFESTs.
  std::vector<std::string> set_aside;
  // Batches recovered from the logs, and damaged log records (regions)
  // skipped with their bytes.
  uint64_t log_records_salvaged = 0;
  uint64_t log_records_dropped = 0;
  uint64_t log_bytes_dropped = 0;

  std::string ToString() const;
};

// Rebuilds the database at path when its MANIFEST or CURRENT is lost or
// damaged (Open then fails with DataLoss), from the files that remain:
// every write-ahead log is salvaged into tables (damaged records skipped),
// every table is read whole and kept if all its checksums hold, unreadable
// files are moved into <path>/lost/ (never deleted), a new MANIFEST names
// the tables kept, and the database is then compacted whole (rewriting all
// its data once: the old level structure is not recoverable). Some data
// may be lost: what was is in *report (if not null). FailedPrecondition if
// the DB is open, or if path holds no database files. InvalidArgument,
// naming both, if a MANIFEST or a table there names a comparator other
// than options.comparator (tables name theirs in a property; a table
// written before siftdb recorded it cannot be checked and, under another
// comparator, is set aside as damaged); nothing is moved or written then.
// Not for a database that opens: it only loses information a good
// MANIFEST had. A database whose MANIFEST lists column families besides
// "default" is refused with FailedPrecondition naming them (its tables do
// not record their family), nothing changed.
absl::Status RepairDB(const std::string& path, const Options& options,
                      RepairReport* report = nullptr);
// The same, with the arguments in the other order.
absl::Status RepairDB(const Options& options, const std::string& path);

// Removes the database at path: every file named exactly as siftdb names
// its files (db/FORMAT.md), then the directory if that leaves it empty.
// A database exists once its CURRENT file does: for a path that does not
// exist, or a directory without CURRENT, DestroyDB returns OK and removes
// nothing (such a directory's files may belong to someone else).
// FailedPrecondition if the database is open.
absl::Status DestroyDB(const std::string& path, const Options& options);

}  // namespace sift

#endif  // SIFT_INCLUDE_DB_H_
