// TableCache: opens the DB's SSTables and bounds how many are open at once
// (Options::max_open_files).
//
// Half the budget is for tables pinned in their FileMetaData for the file's
// life (a read then finds its Table with no lookup or lock: the common case,
// since 500 pinned tables cover a 2 GB database at 4 MiB files). Tables
// beyond that live in an LRU cache with the other half and are reopened on
// demand. Every open table keeps its filter and index in memory; the memory
// counters here track them. Thread-safe.

#ifndef SIFT_DB_TABLE_CACHE_H_
#define SIFT_DB_TABLE_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "db/version_edit.h"
#include "sift/env.h"
#include "sift/options.h"
#include "table/table_reader.h"
#include "util/cache.h"

namespace sift {

class TableCache {
 public:
  // REQUIRES: env and block_cache outlive the TableCache and every table
  // it returns.
  // allow_mmap_reads: open tables with Env::NewMappedRandomAccessFile.
  TableCache(std::string dbname, Env* env, int max_open_files,
             BlockCache* block_cache, bool allow_mmap_reads);

  // Opens the table for a new or recovered file and, if the pin budget
  // allows, pins it in f->table. REQUIRES: f not yet shared with readers.
  absl::Status PinOrOpen(FileMetaData* f);

  // The open table of f: the pinned one, or one from the LRU (opening it if
  // needed).
  absl::StatusOr<std::shared_ptr<const Table>> Get(const FileMetaData& f);

  // Drops an unpinned table of a deleted file from the LRU.
  void Evict(uint64_t file_number);

  // Bytes of filters and indexes held by open tables.
  size_t FilterMemory() const { return filter_bytes_.load(); }
  size_t IndexMemory() const { return index_bytes_.load(); }
  int NumOpenTables() const { return open_tables_.load(); }

 private:
  absl::StatusOr<std::shared_ptr<const Table>> Open(uint64_t number,
                                                    uint64_t size);

  const std::string dbname_;
  Env* const env_;
  const int pin_budget_;
  BlockCache* const block_cache_;
  const bool allow_mmap_reads_;
  // Declared before lru_, so they outlive it: destroying lru_ drops its
  // tables, whose deleters decrement them.
  std::atomic<int> pinned_{0};
  std::atomic<int> open_tables_{0};
  std::atomic<size_t> filter_bytes_{0};
  std::atomic<size_t> index_bytes_{0};
  LruCache<Table> lru_;
};

}  // namespace sift

#endif  // SIFT_DB_TABLE_CACHE_H_
