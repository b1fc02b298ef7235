#include "db/table_cache.h"

#include <utility>

#include "db/filename.h"
#include "util/status_macros.h"

namespace sift {

TableCache::TableCache(std::string dbname, Env* env, int max_open_files,
                       BlockCache* block_cache, bool allow_mmap_reads)
    : dbname_(std::move(dbname)),
      env_(env),
      pin_budget_(max_open_files / 2),
      block_cache_(block_cache),
      allow_mmap_reads_(allow_mmap_reads),
      lru_(static_cast<size_t>(max_open_files - max_open_files / 2)) {}

absl::StatusOr<std::shared_ptr<const Table>> TableCache::Open(uint64_t number,
                                                              uint64_t size) {
  const std::string name = TableFileName(dbname_, number);
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   allow_mmap_reads_ ? env_->NewMappedRandomAccessFile(name)
                                     : env_->NewRandomAccessFile(name));
  ASSIGN_OR_RETURN(std::unique_ptr<Table> table,
                   Table::Open(name, std::move(file), size, block_cache_));
  const size_t filter = table->FilterMemory();
  const size_t index = table->IndexMemory();
  open_tables_.fetch_add(1);
  filter_bytes_.fetch_add(filter);
  index_bytes_.fetch_add(index);
  // The deleter keeps the counters true however the table is dropped.
  return std::shared_ptr<const Table>(table.release(),
                                      [this, filter, index](const Table* t) {
                                        open_tables_.fetch_sub(1);
                                        filter_bytes_.fetch_sub(filter);
                                        index_bytes_.fetch_sub(index);
                                        delete t;
                                      });
}

absl::Status TableCache::PinOrOpen(FileMetaData* f) {
  if (pinned_.load() < pin_budget_) {
    ASSIGN_OR_RETURN(std::shared_ptr<const Table> t,
                     Open(f->number, f->file_size));
    pinned_.fetch_add(1);
    // Unpin when the FileMetaData (the file's last Version) goes away.
    f->table =
        std::shared_ptr<const Table>(t.get(), [this, t](const Table*) mutable {
          pinned_.fetch_sub(1);
          t.reset();
        });
    return absl::OkStatus();
  }
  return Get(*f).status();
}

absl::StatusOr<std::shared_ptr<const Table>> TableCache::Get(
    const FileMetaData& f) {
  if (f.table != nullptr) return f.table;
  const CacheKey key{f.number, 0};
  if (std::shared_ptr<const Table> t = lru_.Lookup(key)) return t;
  ASSIGN_OR_RETURN(std::shared_ptr<const Table> t, Open(f.number, f.file_size));
  return lru_.Insert(key, std::move(t), 1);
}

void TableCache::Evict(uint64_t file_number) {
  lru_.Erase(CacheKey{file_number, 0});
}

}  // namespace sift
