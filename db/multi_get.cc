#include "db/multi_get.h"

#include <algorithm>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "db/db_impl/db_impl.h"
#include "db/file_probe.h"
#include "table/internal_key.h"
#include "util/hash.h"
#include "util/invariant.h"

namespace sift {
namespace {

// User-key order under the DB's comparator. For the bytewise one the
// stored prefixes decide most pairs inline (a sort of a batch makes many
// comparisons per key).
struct UserKeyLess {
  const KeyComparator* icmp;
  bool operator()(const MultiGetKey* a, const MultiGetKey* b) const {
    if (!icmp->bytewise())
      return icmp->CompareUser(a->user_key, b->user_key) < 0;
    if (a->prefix != b->prefix) return a->prefix < b->prefix;
    return a->user_key < b->user_key;
  }
};

// Most batches fit these without touching the heap.
constexpr size_t kInlineKeys = 32;
template <typename T>
using BatchVector = absl::InlinedVector<T, kInlineKeys>;

// The files of one level a batch asks, each with its run of keys, and the
// buffers reused from file to file.
class LevelProbe {
 public:
  LevelProbe(const ReadOptions& options, TableCache* cache, LocalStats* stats,
             bool range_dels)
      : options_(options),
        cache_(cache),
        stats_(stats),
        range_dels_(range_dels) {}

  void Clear() {
    files_.clear();
    keys_.clear();
  }
  // Plans file f (its pinned table, or null) next; AddKey gives it keys.
  void AddFile(const FileMetaData& f, const Table* table) {
    files_.push_back(FileKeys{&f, table, keys_.size(), keys_.size()});
  }
  void AddKey(MultiGetKey* k) {
    keys_.push_back(k);
    ++files_.back().end;
  }

  // Requests the filter line of every planned key in every pinned table,
  // so that the cache misses of the whole level overlap, then asks the
  // files in plan order for their keys not yet done.
  void Run(int level) {
    for (const FileKeys& fk : files_) {
      if (fk.table == nullptr) continue;
      for (size_t i = fk.begin; i < fk.end; ++i) {
        fk.table->PrefetchFilter(keys_[i]->hash);
      }
    }
    for (const FileKeys& fk : files_) {
      if (fk.begin < fk.end) AskFile(fk, level);
    }
  }

 private:
  struct FileKeys {
    const FileMetaData* file;
    const Table* table;  // pinned, or null
    size_t begin, end;   // its keys: keys_[begin, end)
  };

  // ProbeFile (db/version.cc) for a run of keys: the filter for each,
  // then one Table::MultiGet for those it lets through.
  void AskFile(const FileKeys& fk, int level) {
    const Table* table = fk.table;
    std::shared_ptr<const Table> holder;
    if (table == nullptr) {
      auto t = cache_->GetUnpinned(*fk.file);
      for (size_t i = fk.begin; t.ok() && i < fk.end; ++i) {
        (*t)->PrefetchFilter(keys_[i]->hash);
      }
      if (!t.ok()) {
        for (size_t i = fk.begin; i < fk.end; ++i) {
          if (!keys_[i]->done) Fail(keys_[i], t.status());
        }
        return;
      }
      holder = *std::move(t);
      table = holder.get();
    }
    lookups_.clear();
    asked_.clear();
    // Before the filter: its "no" says nothing of the file's tombstones,
    // which may delete the key's entries in older files.
    SIFT_INVARIANT(fk.file->facts.has_value(),
                   "FileMetaData::facts is set in every installed Version");
    const bool tombstones =
        range_dels_ && fk.file->facts->num_range_deletions > 0;
    for (size_t i = fk.begin; i < fk.end; ++i) {
      MultiGetKey* k = keys_[i];
      if (k->done) continue;
      if (tombstones) RaiseCovering(*table, k);
      if (!FilterMayMatch(*table, level, k->user_key, k->hash, stats_))
        continue;
      Table::BatchLookup& l = lookups_.emplace_back();
      l.lookup_key = k->internal_key;
      l.value = k->value;
      asked_.push_back(k);
    }
    if (lookups_.empty()) return;
    TableReadCounters counters;
    table->MultiGet(options_, absl::MakeSpan(lookups_), &counters);
    AddTableReads(level, counters, stats_);
    for (size_t j = 0; j < lookups_.size(); ++j) {
      const Table::BatchLookup& l = lookups_[j];
      MultiGetKey* k = asked_[j];
      if (!l.status.ok()) {
        Fail(k, l.status);
      } else if (l.result != Table::LookupResult::kNotFound) {
        CountFilterTruePositive(*table, level, stats_);
        k->done = true;
        k->found = l.result == Table::LookupResult::kFound &&
                   l.sequence >= k->covering;
      }
    }
  }

  static void RaiseCovering(const Table& table, MultiGetKey* k) {
    const SequenceNumber read_seq =
        ExtractTrailer(k->internal_key) >> kValueTypeBits;
    k->covering = std::max(k->covering, table.range_tombstones().MaxCoveringSeq(
                                            k->user_key, read_seq));
  }

  static void Fail(MultiGetKey* k, const absl::Status& s) {
    *k->status = s;
    k->done = true;
  }

  const ReadOptions& options_;
  TableCache* const cache_;
  LocalStats* const stats_;
  const bool range_dels_;  // the Version or the memtables hold some
  absl::InlinedVector<FileKeys, 8> files_;
  BatchVector<MultiGetKey*> keys_;
  BatchVector<Table::BatchLookup> lookups_;
  BatchVector<MultiGetKey*> asked_;  // the key of each lookup
};

}  // namespace

void Version::MultiGet(const ReadOptions& options,
                       absl::Span<MultiGetKey* const> keys, TableCache* cache,
                       LocalStats* stats, bool range_dels) const {
  LevelProbe probe(options, cache, stats, range_dels && has_range_deletions);
  // Level 0, newest file first: each takes the open keys in its range (a
  // key an earlier file decides is skipped when its turn comes).
  for (size_t i = 0; i < files[0].size(); ++i) {
    const FileMetaData& f = *files[0][i];
    MultiGetKey first;
    first.user_key = f.smallest_user_key();
    first.prefix = UserKeyPrefix(first.user_key);
    probe.AddFile(f, PinnedTable(0, i));
    for (auto it = std::lower_bound(keys.begin(), keys.end(), &first,
                                    UserKeyLess{&icmp});
         it != keys.end() &&
         icmp.CompareUser((*it)->user_key, f.largest_user_key()) <= 0;
         ++it) {
      if (!(*it)->done) probe.AddKey(*it);
    }
  }
  probe.Run(0);
  // Deeper levels: the keys ascend, and so do their files. A key's file is
  // the one FindFile gives (the first whose largest key is at or after the
  // key's lookup key), as in Get, and the keys after it stay in that file
  // while they are at or below its largest key.
  for (int level = 1; level < config::kNumLevels; ++level) {
    const FileList& fl = files[level];
    probe.Clear();
    size_t k = 0;
    while (k < keys.size() && !fl.empty()) {
      if (keys[k]->done) {
        ++k;
        continue;
      }
      const size_t i =
          FindFileFast(level, keys[k]->user_key, keys[k]->internal_key);
      if (i == fl.size()) break;  // every later key is past the last file
      const FileMetaData& f = *fl[i];
      probe.AddFile(f, PinnedTable(level, i));
      for (; k < keys.size() &&
             icmp.Compare(f.largest, keys[k]->internal_key) >= 0;
           ++k) {
        if (!keys[k]->done &&
            icmp.CompareUser(keys[k]->user_key, f.smallest_user_key()) >= 0) {
          probe.AddKey(keys[k]);
        }
      }
    }
    probe.Run(level);
  }
}

std::vector<absl::Status> DBImpl::MultiGet(
    const ReadOptions& options, absl::Span<const std::string_view> keys,
    std::vector<std::string>* values) {
  const size_t n = keys.size();
  std::vector<absl::Status> statuses(n);
  values->resize(n);
  for (std::string& v : *values) v.clear();
  if (n == 0) return statuses;
  // One view, then one sequence, for the whole batch (the order: see Get).
  const ReadViewCache::Ref view = views_.Acquire();
  const SequenceNumber seq = ReadSequence(options);
  LocalStats stats(&stats_);
  stats.Add(config::kNoLevel, kNumberKeysRead, n);
  // Range tombstones anywhere: tracked per key as in Get.
  const bool range_dels =
      view->version->has_range_deletions || view->mem->has_range_tombstones() ||
      (view->imm != nullptr && view->imm->has_range_tombstones());
  BatchVector<MultiGetKey> batch(n);
  BatchVector<MultiGetKey*> pending;  // the keys the memtables left open
  // Their lookup keys, back to back; reserved whole, so never moved.
  std::string ikeys;
  size_t ikeys_size = 0;
  for (std::string_view key : keys) {
    ikeys_size += key.size() + kInternalKeyTrailerSize;
  }
  ikeys.reserve(ikeys_size);
  for (size_t i = 0; i < n; ++i) {
    MultiGetKey& k = batch[i];
    k.user_key = keys[i];
    k.prefix = UserKeyPrefix(keys[i]);
    k.hash = KeyHash(keys[i]);
    k.value = &(*values)[i];
    k.status = &statuses[i];
    const LookupKey lkey(keys[i], seq);
    SequenceNumber* const covering = range_dels ? &k.covering : nullptr;
    MemTable::GetResult mr =
        view->mem->Get(lkey, k.hash, k.value, &stats, covering);
    if (mr == MemTable::GetResult::kNotFound && view->imm != nullptr) {
      mr = view->imm->Get(lkey, k.hash, k.value, &stats, covering);
    }
    if (mr != MemTable::GetResult::kNotFound) {
      stats.Add(config::kNoLevel, kMemtableHit);
      k.done = true;
      k.found = mr == MemTable::GetResult::kFound;
      continue;
    }
    stats.Add(config::kNoLevel, kMemtableMiss);
    const size_t begin = ikeys.size();
    ikeys.append(lkey.internal_key());
    k.internal_key = std::string_view(ikeys).substr(begin);
    pending.push_back(&k);
  }
  std::sort(pending.begin(), pending.end(), UserKeyLess{&view->version->icmp});
  if (!pending.empty()) {
    view->version->MultiGet(options, pending, table_cache_.get(), &stats,
                            range_dels);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!statuses[i].ok()) continue;
    if (batch[i].found) {
      stats.Add(config::kNoLevel, kNumberKeysFound);
    } else {
      statuses[i] = absl::NotFoundError("");  // as Get: no allocation
    }
  }
  return statuses;
}

}  // namespace sift
