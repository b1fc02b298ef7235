#include "db/table_cache.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "db/filename.h"
#include "db/filter_rebuild.h"
#include "util/status_macros.h"

namespace sift {

TableCache::TableCache(std::string dbname, Env* env, int max_open_files,
                       BlockCache* block_cache, bool allow_mmap_reads,
                       const Comparator* comparator,
                       const FilterPolicy* filter_policy, bool read_only)
    : dbname_(std::move(dbname)),
      env_(env),
      pin_budget_(static_cast<size_t>(max_open_files / 2)),
      block_cache_(block_cache),
      allow_mmap_reads_(allow_mmap_reads),
      comparator_(comparator),
      filter_policy_(filter_policy),
      read_only_(read_only),
      lru_(static_cast<size_t>(max_open_files - max_open_files / 2)) {}

absl::StatusOr<std::shared_ptr<const Table>> TableCache::OpenFile(
    const FileMetaData& f) {
  const std::string name = TableFileName(dbname_, f.number);
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
      allow_mmap_reads_ ? env_->NewMappedRandomAccessFile(name)
                        : env_->NewRandomAccessFile(name);
  if (!file.ok()) return OpenError(name, file.status());
  // A replacement is a built-in filter, which a user policy does not read.
  std::optional<std::string> replacement;
  if (filter_policy_ == nullptr && f.facts.has_value() &&
      f.facts->replacement.has_value()) {
    absl::StatusOr<std::string> r =
        ReadFilterFile(env_, dbname_, f.number, *f.facts->replacement);
    // Unreadable: the table's own filter serves (Table::Open reports it).
    replacement = r.ok() ? *std::move(r) : std::string();
  }
  std::optional<std::string_view> replacement_view;
  if (replacement.has_value()) replacement_view = *replacement;
  absl::StatusOr<std::unique_ptr<Table>> opened = Table::Open(
      name, *std::move(file), f.file_size, block_cache_, comparator_,
      f.facts ? f.facts->global_sequence : 0, replacement_view, filter_policy_);
  if (!opened.ok()) return OpenError(name, opened.status());
  std::unique_ptr<Table> table = *std::move(opened);
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

absl::Status TableCache::OpenError(const std::string& name,
                                   const absl::Status& s) const {
  if (absl::IsNotFound(s)) {
    if (read_only_) {
      return absl::UnavailableError(absl::StrCat(
          "table ", name,
          " is gone: a read-only DB reads the tables of its open, and the "
          "process writing the DB has deleted this one since (compacted "
          "into newer tables); open the DB again to read them (",
          s.message(), ")"));
    }
    return absl::DataLossError(
        absl::StrCat("table ", name, ", which the MANIFEST names, is missing (",
                     s.message(), ")"));
  }
  if (absl::StrContains(s.message(), name)) return s;
  return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
}

bool TableCache::ReservePin() {
  size_t taken = pins_taken_.load();
  while (taken < pin_budget_) {
    if (pins_taken_.compare_exchange_weak(taken, taken + 1)) return true;
  }
  return false;
}

absl::StatusOr<std::shared_ptr<const Table>> TableCache::Open(
    const FileMetaData& f) {
  if (!ReservePin()) return GetUnpinned(f);
  absl::StatusOr<std::shared_ptr<const Table>> t = OpenFile(f);
  if (!t.ok()) {
    pins_taken_.fetch_sub(1);
    return t;
  }
  PinShard& shard = ShardFor(f.number);
  MutexLock l(&shard.mu);
  shard.tables[f.number] = *t;
  return t;
}

PinnedTables TableCache::Pinned(const FileList (&files)[config::kNumLevels]) {
  PinnedTables out;
  for (int level = 0; level < config::kNumLevels; ++level) {
    out.level[level].reserve(files[level].size());
    for (const auto& f : files[level]) {
      PinShard& shard = ShardFor(f->number);
      MutexLock l(&shard.mu);
      auto it = shard.tables.find(f->number);
      out.level[level].push_back(it == shard.tables.end() ? nullptr
                                                          : it->second);
    }
  }
  return out;
}

absl::StatusOr<std::shared_ptr<const Table>> TableCache::Get(
    const FileMetaData& f) {
  {
    PinShard& shard = ShardFor(f.number);
    MutexLock l(&shard.mu);
    auto it = shard.tables.find(f.number);
    if (it != shard.tables.end()) return it->second;
  }
  return GetUnpinned(f);
}

absl::StatusOr<std::shared_ptr<const Table>> TableCache::GetUnpinned(
    const FileMetaData& f) {
  const CacheKey key{f.number, 0};
  if (std::shared_ptr<const Table> t = lru_.Lookup(key)) return t;
  ASSIGN_OR_RETURN(std::shared_ptr<const Table> t, OpenFile(f));
  return lru_.Insert(key, std::move(t), 1);
}

absl::Status TableCache::Replace(const FileMetaData& f) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Table> t, OpenFile(f));
  std::shared_ptr<const Table> old;  // freed after the lock is dropped
  {
    PinShard& shard = ShardFor(f.number);
    MutexLock l(&shard.mu);
    auto it = shard.tables.find(f.number);
    if (it != shard.tables.end()) {
      old = std::exchange(it->second, std::move(t));
      return absl::OkStatus();
    }
  }
  lru_.Erase(CacheKey{f.number, 0});
  lru_.Insert(CacheKey{f.number, 0}, std::move(t), 1);
  return absl::OkStatus();
}

void TableCache::Evict(uint64_t file_number) {
  std::shared_ptr<const Table> unpinned;  // freed after the lock is dropped
  {
    PinShard& shard = ShardFor(file_number);
    MutexLock l(&shard.mu);
    auto it = shard.tables.find(file_number);
    if (it != shard.tables.end()) {
      unpinned = std::move(it->second);
      shard.tables.erase(it);
      pins_taken_.fetch_sub(1);
    }
  }
  lru_.Erase(CacheKey{file_number, 0});
}

}  // namespace sift
