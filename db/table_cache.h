// TableCache: the one owner of the DB's open tables. Every path to a Table
// goes through it; it bounds how many are open (Options::max_open_files)
// and decides which stay open for their file's whole life.
//
// Pinning is the cache's own policy: half the budget goes to tables pinned
// when their file is created or recovered, first come first served (500
// pinned tables cover a 2 GB database at 4 MiB files); they stay open until
// Evict. Tables beyond that live in an LRU cache with the other half and
// are reopened on demand. Every open table keeps its filter and index in
// memory; the memory counters here track them.
//
// Reads of pinned tables take no lock: when a Version is installed, the
// cache hands it a PinnedTables with each of its files' pinned table (or
// null), and a Get reads that by the file's position in the Version. The
// Version holding the handles keeps those tables open while any reader
// holds it, so Evict never frees a table a reader is using.
//
// Thread-safe.

#ifndef SIFT_DB_TABLE_CACHE_H_
#define SIFT_DB_TABLE_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "db/file_meta.h"
#include "sift/env.h"
#include "sift/options.h"
#include "table/table.h"
#include "util/cache.h"
#include "util/mutex.h"

namespace sift {

// What a Version keeps from the TableCache: per level, for each file in the
// Version's order, its pinned table or null. Immutable once made.
struct PinnedTables {
  std::vector<std::shared_ptr<const Table>> level[config::kNumLevels];
};

class TableCache {
 public:
  // REQUIRES: env and block_cache outlive the TableCache and every table
  // it returns.
  // allow_mmap_reads: open tables with Env::NewMappedRandomAccessFile.
  // comparator: the order of the tables' keys (Options::comparator);
  // filter_policy: Options::filter_policy (null: built-in filters).
  // read_only: the cache of a DB opened read-only, whose tables another
  // process may delete (see OpenError).
  TableCache(std::string dbname, Env* env, int max_open_files,
             BlockCache* block_cache, bool allow_mmap_reads,
             const Comparator* comparator, const FilterPolicy* filter_policy,
             bool read_only = false);

  // Opens the table of a new or recovered file (checking that it reads
  // back) and pins it if the budget allows. Returns the open table.
  // REQUIRES: no Version names f yet.
  absl::StatusOr<std::shared_ptr<const Table>> Open(const FileMetaData& f);

  // The pinned tables of files (a Version's levels), for the Version to
  // keep.
  PinnedTables Pinned(const FileList (&files)[config::kNumLevels]);

  // The open table of f: the pinned one, or one from the LRU (opening it
  // if needed). Takes a shard's lock; a reader holding a Version looks in the
  // Version's PinnedTables first.
  absl::StatusOr<std::shared_ptr<const Table>> Get(const FileMetaData& f);

  // The table of a file its Version's PinnedTables holds no table for (so
  // it is not pinned): from the LRU, opening it if needed. One lock, of the
  // LRU's shard.
  absl::StatusOr<std::shared_ptr<const Table>> GetUnpinned(
      const FileMetaData& f);

  // The file is in no live Version any more (or never entered one): unpin
  // its table and drop it from the LRU.
  void Evict(uint64_t file_number);

  // f (a live file) is about to be recorded with a new replacement filter:
  // opens its table with that filter and puts it in place of the open one,
  // pinned if that one was, so the Version about to be installed reads the
  // new filter. Versions already installed keep the table they hold. (An
  // LRU table opened meanwhile for an older Version may still serve the old
  // filter until it is dropped: either filter holds every key.)
  absl::Status Replace(const FileMetaData& f);

  // Bytes of filters and indexes held by open tables.
  size_t FilterMemory() const { return filter_bytes_.load(); }
  size_t IndexMemory() const { return index_bytes_.load(); }
  int NumOpenTables() const { return open_tables_.load(); }

 private:
  // The pinned tables, sharded by file number so that iterators and
  // compactions opening different files rarely share a lock (as the LRU is
  // sharded by key).
  static constexpr int kPinShards = 16;
  struct PinShard {
    Mutex mu;
    absl::flat_hash_map<uint64_t, std::shared_ptr<const Table>> tables
        ABSL_GUARDED_BY(mu);
  };
  PinShard& ShardFor(uint64_t number) { return pins_[number % kPinShards]; }

  // Opens f's table, reading its entries with f's global sequence (an
  // ingested file's, from its facts), with its replacement filter if it has
  // one (and that reads back; otherwise the table's own filter, as
  // Table::Open does).
  absl::StatusOr<std::shared_ptr<const Table>> OpenFile(const FileMetaData& f);
  // The error for table file `name`, which failed to open with s, as every
  // read reports it: naming the file, and never NotFound, which a DB says
  // only of an absent key (include/sift/db.h). A missing file is DataLoss:
  // a Version names it, so the DB's data is gone -- except in a read-only
  // DB, where it is Unavailable: the writing process deleted it after a
  // compaction, the data lives on in newer tables, and reopening reads them.
  absl::Status OpenError(const std::string& name, const absl::Status& s) const;
  // Takes one unit of the pin budget; false when it is spent.
  bool ReservePin();

  const std::string dbname_;
  Env* const env_;
  const size_t pin_budget_;
  BlockCache* const block_cache_;
  const bool allow_mmap_reads_;
  const Comparator* const comparator_;
  const FilterPolicy* const filter_policy_;
  const bool read_only_;
  // Declared before pins_ and lru_, so they outlive both: destroying those
  // drops their tables, whose deleters decrement these counters.
  // Tables pinned, plus pins reserved by an Open in progress.
  std::atomic<size_t> pins_taken_{0};
  std::atomic<int> open_tables_{0};
  std::atomic<size_t> filter_bytes_{0};
  std::atomic<size_t> index_bytes_{0};
  PinShard pins_[kPinShards];
  LruCache<Table> lru_;
};

}  // namespace sift

#endif  // SIFT_DB_TABLE_CACHE_H_
