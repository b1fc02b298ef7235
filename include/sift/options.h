// Options that control a siftdb database, its reads and its writes. As in
// RocksDB, Options is DBOptions (the database as a whole) plus
// ColumnFamilyOptions (one keyspace's own shape); each field says which
// half it is in and why.
//
// Every field states its default and what moving it trades. DB::Open checks
// every field and refuses a bad one with InvalidArgument naming it.

#ifndef SIFT_INCLUDE_OPTIONS_H_
#define SIFT_INCLUDE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sift/comparator.h"

namespace sift {

class Env;
class FilterPolicy;
class RateLimiter;
class Snapshot;

// How a filter lays out its bits. Stored in every filter's trailer, so files
// built with different layouts coexist. DO NOT CHANGE the numeric values: they
// are written to disk (see table/FORMAT.md).
enum class FilterLayout : uint8_t {
  // The classic Bloom filter: one bit array, k probes anywhere in it. Fewest
  // bits for a given false-positive chance; a miss costs up to k cache misses.
  kStandard = 0,
  // All k probes of a key fall in one 64-byte cache line: a probe costs one
  // cache miss. Needs a few percent more bits for the same false-positive
  // chance (chosen from the layout's own model so the measured rate meets it).
  kBlocked = 1,
  // A Ribbon filter (util/ribbon.h): fewer bits per key than kBlocked for
  // the same false-positive chance, but a slower build, a slower probe, and
  // two to four cache lines read per probe, not one (measured figures:
  // README.md, "Filters: layout and allocation"). Where it would not be
  // smaller (below about 250 keys at p = 0.01) or fails to build, a
  // kBlocked filter is written instead; see also
  // Options::bloom_before_level.
  kRibbon = 2,
};

// Compression of data blocks. DO NOT CHANGE the numeric values: each block's
// trailer stores one (see table/FORMAT.md).
enum class Compression : uint8_t {
  kNone = 0,
  // A block is stored compressed only when Snappy saves at least 12.5%.
  kSnappy = 1,
};

// What Open does when a write-ahead log is damaged: RocksDB's names and
// meanings. "Damage" is a record whose bytes are wrong (checksum, type or
// length, a zeroed header) or a last record the file ends inside (a torn
// write). A zero-filled tail, as a preallocating file system leaves, is the
// end of the log, not damage. db/FORMAT.md ("Reading, and what a crash may
// leave") says how damage is told from a torn tail. The MANIFEST is read the
// same way whatever the mode: any damaged record fails Open (only a last
// record the file ends inside, an edit whose append never completed, is
// dropped); RepairDB rebuilds a MANIFEST that cannot be read. Not stored.
enum class WALRecoveryMode : uint8_t {
  // A damaged or torn tail (damage with no well-formed record starting
  // after it) is dropped: it holds only writes that were never acknowledged
  // as synced. Damage followed by a well-formed record fails Open with
  // DataLoss naming the file and offset, since the records after it may
  // have been synced and acknowledged.
  kTolerateCorruptedTailRecords = 0,
  // Any damage, a torn tail included, fails Open with DataLoss. For
  // databases that are always closed cleanly (and tests), where a torn
  // tail means something is wrong.
  kAbsoluteConsistency = 1,
  // Replay stops at the first damage in any log (later logs are not
  // replayed either) and the DB opens with the consistent prefix before
  // it. What was dropped (bytes, the file and offset of the damage) is in
  // GetProperty("sift.wal-recovery"). Acknowledged writes after the damage
  // are lost, but the state is one the DB really had.
  kPointInTimeRecovery = 2,
  // Salvage: every damaged record is skipped and replay goes on with the
  // next well-formed record, which may leave holes (a batch missing between
  // two that are present). Skipped records and bytes are counted in
  // GetProperty("sift.wal-recovery"). For recovering what can be recovered.
  kSkipAnyCorruptedRecords = 3,
};

// The largest user key and value siftdb stores, in bytes: 8 MiB and
// 256 MiB. DB::Put, DB::Delete, WriteBatch and SstFileWriter refuse a
// larger one with InvalidArgument before a byte of it is written (DB::Write
// refuses the whole batch). The limits keep every entry, with a full
// block_size of neighbours, inside the largest block a table can hold and
// read back (1 GiB, table/FORMAT.md), and every length within the 32 bits
// the WAL and blocks give it. Values larger than this belong in files of
// their own, with their names stored here.
inline constexpr size_t kMaxKeySize = size_t{8} << 20;
inline constexpr size_t kMaxValueSize = size_t{256} << 20;

// What concerns the database as a whole (RocksDB's DBOptions): its
// directory, its one write-ahead log and MANIFEST, its background threads,
// its open files and block cache. Fixed at Open.
struct DBOptions {
  // ---- Opening ---------------------------------------------------------

  // Create the database if it is missing. When false and there is none
  // (no CURRENT file), Open fails with FailedPrecondition and creates
  // nothing: no directory, no LOCK file. Default: false.
  // DBOptions: it concerns the directory.
  bool create_if_missing = false;

  // Fail Open with FailedPrecondition if the database already exists.
  // Default: false.
  // DBOptions: it concerns the directory.
  bool error_if_exists = false;

  // DB::Open with column families: create each listed family the database
  // lacks (else Open fails with InvalidArgument naming it). Default: false.
  // DBOptions: it concerns the families of the database as a whole.
  bool create_missing_column_families = false;

  // Verify every table when the database is opened: read each block of
  // every live SSTable, check its checksum and that the blocks tile the file,
  // check its filter, and fail Open with DataLoss (naming file and offset)
  // on any damage. Costs reading the whole database at every Open.
  // Default: false: damage is still found and reported as DataLoss when a
  // read or compaction reaches the damaged block (every block read from a
  // file is checksummed), and a damaged filter is never trusted.
  // DBOptions: Open checks every table of the database.
  bool paranoid_checks = false;

  // Where files live. nullptr means the POSIX file system (Env::Default()).
  // Not owned; must outlive the DB. Default: nullptr.
  // DBOptions: one file system holds the whole database.
  Env* env = nullptr;

  // What Open does with a damaged write-ahead log (see WALRecoveryMode).
  // Default: kTolerateCorruptedTailRecords, which drops only what a crash
  // can leave (a torn tail) and refuses to drop anything after damage.
  // DBOptions: the database has one write-ahead log.
  WALRecoveryMode wal_recovery_mode =
      WALRecoveryMode::kTolerateCorruptedTailRecords;

  // ---- Writes, files and background work -------------------------------

  // While level 0 holds level0_slowdown_writes_trigger files or more,
  // writes are delayed so they enter at no more than this many bytes per
  // second (WAL record bytes), scaled down linearly to 1/16 of it as level
  // 0 nears level0_stop_writes_trigger (db/write_delay.h). RocksDB's
  // name. Lower: level 0 stays shallower under a burst (fewer files per
  // read), the burst takes longer. LevelDB instead sleeps 1 ms per write,
  // which slows small writes far more (measured: README.md, "Write
  // delays"). Must be in [1 KiB, 1 TiB] per second. Default: 128 MiB/s.
  // DBOptions: all writes enter through one log and one writer queue, so they
  // are paced together.
  uint64_t delayed_write_rate = uint64_t{128} << 20;

  // When the MANIFEST (the log of which files make up the database) grows
  // past this many bytes, the next change starts a new one holding a
  // snapshot of the current state, and the old one is deleted. Smaller:
  // faster Open and less disk, more frequent snapshot writes (each as
  // large as the list of files). RocksDB's name. At least 1 KiB.
  // Default: 64 MiB.
  // DBOptions: the database has one MANIFEST.
  uint64_t max_manifest_file_size = uint64_t{64} << 20;

  // Number of table files kept open (each open file keeps its filter and
  // index in memory). Default: 1000.
  // DBOptions: one table cache serves the database.
  int max_open_files = 1000;

  // Background threads: flushes and compactions share them (RocksDB's
  // meaning). With N >= 2, at most N - 1 run compactions, so a thread is
  // always free for a flush: a full memtable never waits behind a long
  // compaction. Compactions of disjoint inputs run at once (level 0 to 1
  // beside deeper ones; never two touching one file, two writing
  // overlapping ranges of one level, or two from level 0). With 1, the one
  // thread does everything and a running compaction stops to flush a full
  // memtable first. 1 to 64. Default: 2. DBOptions: one pool serves the
  // whole database.
  int max_background_jobs = 2;

  // Up to this many threads share one large level-0 -> level-1 compaction,
  // each merging its own key range (split where the input files' bounds
  // divide the input bytes evenly) into its own output files; the result
  // is installed as one edit. During a random fill that compaction is
  // what writers wait for, and the writer's own core is idle while they
  // do (measured: README.md, "Background threads"). 1: never split. 1 to
  // 64. Default: 2 (RocksDB's is 1). DBOptions: its threads come from the
  // machine the pool shares (RocksDB puts it there too).
  int max_subcompactions = 2;

  // A cap on the bytes per second the table files of flushes and
  // compactions are written at (sift/rate_limiter.h;
  // NewGenericRateLimiter(bytes_per_second)), so background work leaves
  // disk bandwidth to reads and the WAL. Flushes are served before
  // compactions. Shared by every DB given the same limiter, which then
  // share its rate. Too low a rate slows flushes and compactions until
  // writes stall on a full memtable or a deep level 0. WAL writes, reads and
  // RebuildFilters' replacement filter files are not charged. GetStatistics
  // counts the bytes charged and the time waited (sift.rate.limiter.*). The
  // rate must be > 0. Default: null, no cap. DBOptions: it paces the background
  // writes of the database (or of several) together.
  std::shared_ptr<RateLimiter> rate_limiter;

  // ---- Caching ---------------------------------------------------------

  // Read table files through shared memory maps (mmap) instead of pread.
  // A block-cache miss then costs no system call and no copy, but a disk
  // error on a mapped page (a bad sector, a file cut short) kills the
  // process with SIGBUS instead of returning DataLoss, and mapped tables
  // take address space. With pread every block read from the file costs a
  // system call and a copy; reads of missing keys, which filters answer
  // without a block read, cost the same either way (measured: README.md,
  // "Performance"). The default keeps errors as errors for that cost, as
  // RocksDB does (LevelDB maps).
  // Environments other than the POSIX one (and every EnvWrapper) never map.
  // Default: false.
  // DBOptions: the database reads its files one way.
  bool allow_mmap_reads = false;

  // Bytes of uncompressed data blocks cached in memory (filters and index
  // blocks of open files are pinned separately). 0 disables the cache.
  // Default: 8 MiB.
  // DBOptions: one block cache serves the database.
  size_t block_cache_capacity = 8 << 20;
};

// What a keyspace has of its own (RocksDB's ColumnFamilyOptions): its key
// order, memtable, tree shape, table layout and filters. A database has
// one keyspace today, which these shape. Fixed at Open.
struct ColumnFamilyOptions {
  // ---- Order -----------------------------------------------------------

  // The order of keys (sift/comparator.h). A database is always opened
  // with a comparator of the name it was created with: another name fails
  // Open with InvalidArgument. Not owned; must outlive the DB. Must not be
  // null. Default: BytewiseComparator(), which siftdb compares inline;
  // any other comparator costs a virtual call per key compare.
  // ColumnFamilyOptions: each keyspace has its own order.
  const Comparator* comparator = BytewiseComparator();

  // ---- Memtable and tree shape -----------------------------------------

  // Bytes of writes the memtable gathers before it is flushed to a level-0
  // file. Larger: fewer, larger files and faster bulk loads, but more memory
  // and a longer recovery. Default: 4 MiB.
  // ColumnFamilyOptions: each keyspace has its own memtable.
  size_t write_buffer_size = 4 << 20;

  // Target size of one SSTable written by flush or compaction. Larger: fewer
  // files and filters to probe, but coarser compactions. Default: 4 MiB.
  // ColumnFamilyOptions: each keyspace's tree is shaped on its own.
  size_t max_file_size = 4 << 20;

  // Bytes level 1 may hold before it is compacted into level 2; level L
  // may hold max_bytes_for_level_base * multiplier^(L-1) (RocksDB's names
  // and meaning). A larger base or multiplier: fewer levels, so fewer
  // files for a miss to probe and less rewriting, but each compaction into
  // a level merges with more of it. Must be in [1 KiB, 2^50].
  // Default: 40 MiB (10 default write buffers, LevelDB's shape).
  // ColumnFamilyOptions: each keyspace's tree is shaped on its own.
  uint64_t max_bytes_for_level_base = uint64_t{40} << 20;
  // Must be in [2, 100]. Default: 10.
  double max_bytes_for_level_multiplier = 10.0;

  // Number of level-0 files that starts a level-0 compaction. Lower: fewer
  // files for a read to probe, more write amplification. Default: 4.
  // ColumnFamilyOptions: each keyspace has its own level 0.
  int level0_compaction_trigger = 4;

  // Level-0 file counts at which writes are slowed (to delayed_write_rate)
  // and stopped until compaction catches up,
  // bounding the files a read may probe. RocksDB's names and defaults: a
  // miss pays one in-memory filter probe per level-0 file, so a deep level
  // 0 is cheap for reads, while stalling writes early is not. Lower: fewer
  // files per read, slower bursts of writes. Defaults: 20 and 36; need
  // level0_compaction_trigger <= slowdown <= stop <= 1000.
  // ColumnFamilyOptions: each keyspace has its own level 0.
  int level0_slowdown_writes_trigger = 20;
  int level0_stop_writes_trigger = 36;

  // ---- Table layout ----------------------------------------------------

  // Uncompressed bytes of user data per data block. Larger: smaller index,
  // better compression, more bytes read per point lookup. At most 256 MiB
  // (see kMaxValueSize). Default: 4096.
  // ColumnFamilyOptions: the layout of a keyspace's tables.
  size_t block_size = 4096;

  // Keys between restart points of prefix compression. Larger: smaller
  // blocks, slower seeks within a block. Default: 16.
  // ColumnFamilyOptions: the layout of a keyspace's tables.
  int block_restart_interval = 16;

  // Data block compression. Default: kSnappy.
  // ColumnFamilyOptions: the layout of a keyspace's tables.
  Compression compression = Compression::kSnappy;

  // ---- Filters ---------------------------------------------------------

  // The false-positive chance every new SSTable's Bloom filter is built for,
  // in (0, 1]. 1.0 writes no filter (every lookup reads the file's index and
  // a data block). Lower: fewer wasted reads on a miss, more memory (about
  // 1.44 * log2(1/p) bits per key). Files keep the value they were built
  // with until compaction rebuilds them. Default: 0.01.
  // ColumnFamilyOptions: a keyspace's filters suit how it is read (Cassandra
  // sets the chance per table).
  double bloom_filter_fp_chance = 0.01;

  // A user filter policy (sift/filter_policy.h, LevelDB's contract) instead
  // of siftdb's built-in filters: new tables then carry a filter built by
  // it from the file's distinct user keys, recorded under its Name(), and
  // no built-in filter (bloom_filter_fp_chance, filter_layout,
  // bloom_before_level and filter_bits_per_key_budget are then unused, and
  // RebuildFilters finds nothing to rebuild). A table's filter is used only
  // by a policy of the name that built it: a file whose filter was built by
  // another policy, or by the built-in filters while a policy is set (and a
  // policy's filter while none is set), is read as if it had no filter --
  // correct, only slower. Compactions write their outputs with the filter
  // in force, and CompactRange rewrites every file carrying a built-in
  // filter; a file carrying another policy's filter is rewritten only when
  // a compaction merges it (its policy's name is not in the MANIFEST). The
  // builder holds a file's distinct user keys until the file is finished
  // (about max_file_size bytes at most), and each probe calls KeyMayMatch
  // with the key instead of reusing one hash for every file. Must be
  // thread-safe (KeyMayMatch runs on every reading thread).
  // Default: null, siftdb's built-in filters.
  // ColumnFamilyOptions: a keyspace's filters.
  std::shared_ptr<const FilterPolicy> filter_policy;

  // Layout of new filters. Default: kBlocked.
  // ColumnFamilyOptions: a keyspace's filters.
  FilterLayout filter_layout = FilterLayout::kBlocked;

  // With filter_layout = kRibbon: files written by a flush (counted as
  // level 0, wherever the flush places them) and by compactions into levels
  // below this one get kBlocked filters; deeper levels get kRibbon. 0 means
  // Ribbon everywhere. Ignored for other layouts. Must be >= 0.
  // Default: 1, Bloom for flushes only (level 0 holds nothing else), as in
  // RocksDB's default: Ribbon builds and probes more slowly, while level 0
  // holds a small share of the keys for a short while and a flush is on the
  // write path; deeper levels hold most keys for long, where Ribbon's
  // smaller filters pay (figures: README.md, "Filters: layout and
  // allocation").
  // ColumnFamilyOptions: a keyspace's filters.
  int bloom_before_level = 1;

  // Filter memory as a budget instead of one fp chance: > 0 gives every new
  // file the fp chance that minimizes the false file reads of a missing-key
  // Get (summed over the filters it probes: each level-0 file and one file
  // per deeper level) while all filters together take about this many bits
  // per key (Monkey, Dayan et al. 2017; the math is in
  // db/filter_budget.h). Each level-0 file and each deeper level gets a
  // chance proportional to the keys it holds: tiny chances for small upper
  // units, which cost few bits in total, and a little more than uniform for
  // the bottom level (in db/filter_budget.h's example, 0.36x the false
  // reads of uniform p at the same memory). The tree's shape is taken as
  // each file is written, so the bits per key drift from the budget as the
  // tree grows; DB::RebuildFilters re-tunes files whose chance is more than
  // 2x off their level's allocation. When > 0, bloom_filter_fp_chance
  // must keep its default (it is not used); the budget must be finite and
  // >= 0. Default: 0, off (every file gets bloom_filter_fp_chance).
  // ColumnFamilyOptions: a keyspace's filters (the budget spreads over its
  // tree).
  double filter_bits_per_key_budget = 0;
};

// Both halves, as DB::Open takes them (RocksDB's Options): code that sets
// fields of one Options compiles unchanged.
struct Options : DBOptions, ColumnFamilyOptions {
  Options() = default;
  Options(const DBOptions& db, const ColumnFamilyOptions& cf)
      : DBOptions(db), ColumnFamilyOptions(cf) {}
};

// Every block read from a file is checked against its crc32c before use (a
// mismatch is DataLoss naming file and offset); blocks served from the block
// cache were checked when they were read. There is no option to skip it.
struct ReadOptions {
  // Put blocks this read loads into the block cache. Turn off for a one-time
  // scan that should not evict the working set. Default: true.
  bool fill_cache = true;

  // Read the database as of this snapshot (from DB::GetSnapshot). nullptr
  // reads the latest state. Default: nullptr.
  const Snapshot* snapshot = nullptr;

  // Bounds of an iterator's keys (RocksDB's): it is never Valid() on a key
  // below iterate_lower_bound (inclusive) or at or above
  // iterate_upper_bound (exclusive), in either direction. SeekToFirst and
  // a Seek below the lower bound land on the first key at or above it;
  // SeekToLast on the last key below the upper bound. Table files wholly
  // outside the bounds are neither opened nor read
  // (sift.iterate.bounds.files.skipped counts them). Keys compare with the
  // column family's comparator; Get and MultiGet ignore the bounds.
  // Default: unbounded.
  std::optional<std::string> iterate_lower_bound;
  std::optional<std::string> iterate_upper_bound;
};

struct WriteOptions {
  // false: the write is handed to the operating system (write()) before the
  // call returns, so it survives a crash of this process, but a machine crash
  // or power loss may lose the last writes.
  // true: the write-ahead log is also fdatasync()ed first (write()+fsync()),
  // so the write survives a machine crash. Much slower for small writes;
  // concurrent writers share one sync through group commit.
  // Default: false.
  bool sync = false;
};

// Options for DB::IngestExternalFiles (RocksDB's IngestExternalFileOptions
// names, for the two that apply).
struct IngestOptions {
  // false: each file is copied into the DB (and synced); the source files
  // stay as they are.
  // true: each file is hard-linked into the DB, which costs no copying,
  // and the source name is removed once the ingest succeeded (a move); on
  // failure the source files are left intact. Falls back to a copy where
  // the file system cannot link (another file system, an Env without
  // links). The files must be durable already (SstFileWriter::Finish syncs
  // them), as a link does not sync them again.
  // Default: false.
  bool move_files = false;

  // When a file's key range overlaps the memtable (a key or a range
  // deletion in it), the memtable has to be
  // flushed first, so that the ingested entries, newer than every entry
  // in the DB, end up above it.
  // true: flush it (the ingest then waits for the flush; writes wait too).
  // false: fail with InvalidArgument instead.
  // Default: true.
  bool allow_blocking_flush = true;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_OPTIONS_H_
