// Version: reading one snapshot of the LSM tree (point lookups, iterators,
// overlap queries).

#include "db/version.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "db/file_probe.h"
#include "db/iterator/level_iterator.h"
#include "table/table.h"
#include "util/invariant.h"
#include "util/status_macros.h"

namespace sift {

size_t FindFile(const KeyComparator& icmp, const FileList& files,
                std::string_view ikey) {
  auto it = std::lower_bound(
      files.begin(), files.end(), ikey,
      [&icmp](const std::shared_ptr<FileMetaData>& f, std::string_view k) {
        return icmp.Compare(f->largest, k) < 0;
      });
  return static_cast<size_t>(it - files.begin());
}

void Version::BuildSearchIndex() {
  has_range_deletions = false;
  for (const FileList& fl : files) {
    for (const auto& f : fl) {
      if (f->facts && f->facts->num_range_deletions > 0) {
        has_range_deletions = true;
      }
    }
  }
  for (int level = 1; level < config::kNumLevels; ++level) {
    largest_prefix[level].clear();
    // Prefixes order keys only bytewise: other comparators search the
    // files directly (FindFileFast sees the sizes differ).
    if (!icmp.bytewise()) continue;
    for (const auto& f : files[level]) {
      largest_prefix[level].push_back(UserKeyPrefix(f->largest_user_key()));
    }
  }
}

size_t Version::FindFileFast(int level, std::string_view user_key,
                             std::string_view ikey) const {
  const FileList& fl = files[level];
  const std::vector<uint64_t>& prefixes = largest_prefix[level];
  if (prefixes.size() != fl.size()) return FindFile(icmp, fl, ikey);
  // A smaller prefix means a smaller largest key, a larger one a larger
  // key: only the files of equal prefix (all of them, when every key shares
  // its first 8 bytes) need the full compare.
  const uint64_t p = UserKeyPrefix(user_key);
  const auto [lo, hi] = std::equal_range(prefixes.begin(), prefixes.end(), p);
  const auto first = fl.begin() + (lo - prefixes.begin());
  const auto last = fl.begin() + (hi - prefixes.begin());
  const auto it = std::lower_bound(
      first, last, ikey,
      [this](const std::shared_ptr<FileMetaData>& f, std::string_view k) {
        return icmp.Compare(f->largest, k) < 0;
      });
  return static_cast<size_t>(it - fl.begin());
}

uint64_t Version::LevelBytes(int level) const {
  uint64_t sum = 0;
  for (const auto& f : files[level]) sum += f->file_size;
  return sum;
}

namespace {

// The table of `f`: `pinned` when the version pins it, else from the
// cache's LRU, kept open by *holder.
absl::StatusOr<const Table*> TableOf(const FileMetaData& f, const Table* pinned,
                                     TableCache* cache,
                                     std::shared_ptr<const Table>* holder) {
  if (pinned != nullptr) return pinned;
  ASSIGN_OR_RETURN(*holder, cache->GetUnpinned(f));
  return holder->get();
}

// Probes one file, whose pinned table is `table` (null: not pinned, so from
// the cache's LRU). Returns true when the file decided the lookup; then
// *found_seq is the sequence of the entry it found.
bool ProbeFile(const ReadOptions& options, const FileMetaData& f,
               const Table* table, int level, const LookupKey& key,
               uint64_t hash, TableCache* cache, std::string* value,
               Version::GetResult* result, LocalStats* stats,
               absl::Status* status, SequenceNumber* found_seq) {
  std::shared_ptr<const Table> holder;
  absl::StatusOr<const Table*> t = TableOf(f, table, cache, &holder);
  if (!t.ok()) {
    *status = t.status();
    return true;
  }
  table = *t;
  if (!FilterMayMatch(*table, level, key.user_key(), hash, stats)) return false;
  Table::LookupResult r;
  TableReadCounters counters;
  *status =
      table->Get(options, key.internal_key(), value, &r, &counters, found_seq);
  AddTableReads(level, counters, stats);
  if (!status->ok()) return true;
  if (r == Table::LookupResult::kNotFound) return false;
  CountFilterTruePositive(*table, level, stats);
  *result = r == Table::LookupResult::kFound ? Version::GetResult::kFound
                                             : Version::GetResult::kDeleted;
  return true;
}

// Raises *covering to the newest range tombstone of `f` (pinned table
// `table`, or null) covering the key at the read's sequence.
absl::Status RaiseCovering(const FileMetaData& f, const Table* table,
                           const LookupKey& key, TableCache* cache,
                           SequenceNumber* covering) {
  std::shared_ptr<const Table> holder;
  ASSIGN_OR_RETURN(table, TableOf(f, table, cache, &holder));
  const SequenceNumber read_seq =
      ExtractTrailer(key.internal_key()) >> kValueTypeBits;
  *covering = std::max(*covering, table->range_tombstones().MaxCoveringSeq(
                                      key.user_key(), read_seq));
  return absl::OkStatus();
}

}  // namespace

absl::Status Version::Get(const ReadOptions& options, const LookupKey& key,
                          uint64_t hash, TableCache* cache, std::string* value,
                          GetResult* result, LocalStats* stats,
                          SequenceNumber* covering) const {
  *result = GetResult::kNotFound;
  const std::string_view user_key = key.user_key();
  // Candidates are gathered a batch at a time -- level-0 files newest first
  // whose range holds the key, then at most one file per deeper level --
  // and each one's filter cache line is requested before any is probed, so
  // the probes' cache misses overlap instead of following one another.
  constexpr int kBatch = 16;
  struct Candidate {
    const FileMetaData* file;
    const Table* table;  // pinned, or null
    int level;
  };
  Candidate batch[kBatch];
  int n = 0;
  absl::Status status;
  auto add = [&](int level, size_t i) {
    const Table* t = PinnedTable(level, i);
    if (t != nullptr) t->PrefetchFilter(hash);
    batch[n++] = Candidate{files[level][i].get(), t, level};
  };
  // Candidates probed so far whose file holds range tombstones. They are
  // consulted only once a file finds an entry for the key, which they may
  // delete: a miss, the common case, never reads them. Each candidate's
  // range holds its tombstones, so these are all the newer files whose
  // tombstones may cover the key.
  absl::InlinedVector<Candidate, 4> with_tombstones;
  // Whether the entry found by `decider` (at found_seq) is deleted by a
  // range tombstone newer than it.
  auto covered = [&](const Candidate& decider, SequenceNumber found_seq) {
    with_tombstones.push_back(decider);
    for (const Candidate& c : with_tombstones) {
      SIFT_INVARIANT(c.file->facts.has_value(),
                     "FileMetaData::facts is set in every installed Version");
      if (c.file->facts->num_range_deletions == 0) continue;
      status = RaiseCovering(*c.file, c.table, key, cache, covering);
      if (!status.ok()) return false;
    }
    return found_seq < *covering;
  };
  // Probes the batch in order; true once a file decided the lookup.
  auto probe = [&]() {
    for (int c = 0; c < n; ++c) {
      SequenceNumber found_seq = 0;
      if (ProbeFile(options, *batch[c].file, batch[c].table, batch[c].level,
                    key, hash, cache, value, result, stats, &status,
                    &found_seq)) {
        if (status.ok() && *result == GetResult::kFound &&
            covering != nullptr && covered(batch[c], found_seq)) {
          *result = GetResult::kDeleted;
        }
        return true;
      }
      SIFT_INVARIANT(batch[c].file->facts.has_value(),
                     "FileMetaData::facts is set in every installed Version");
      if (covering != nullptr && batch[c].file->facts->num_range_deletions) {
        with_tombstones.push_back(batch[c]);
      }
    }
    n = 0;
    return false;
  };
  for (size_t i = 0; i < files[0].size(); ++i) {
    const FileMetaData& f = *files[0][i];
    if (icmp.CompareUser(user_key, f.smallest_user_key()) >= 0 &&
        icmp.CompareUser(user_key, f.largest_user_key()) <= 0) {
      add(0, i);
      if (n == kBatch && probe()) return status;
    }
  }
  if (n > kBatch - config::kNumLevels && probe()) return status;
  for (int level = 1; level < config::kNumLevels; ++level) {
    const FileList& fl = files[level];
    if (fl.empty()) continue;
    const size_t i = FindFileFast(level, user_key, key.internal_key());
    if (i < fl.size() &&
        icmp.CompareUser(user_key, fl[i]->smallest_user_key()) >= 0) {
      add(level, i);
    }
  }
  probe();
  return status;
}

void Version::AddIterators(
    const ReadOptions& options, TableCache* cache, StatisticsImpl* stats,
    std::vector<std::unique_ptr<Iterator>>* iters) const {
  for (const auto& f : files[0]) {
    auto t = cache->Get(*f);
    if (!t.ok()) {
      iters->push_back(NewEmptyIterator(t.status()));
      continue;
    }
    std::unique_ptr<Iterator> it =
        (*t)->NewIterator(options, stats->IteratorSink(0));
    it->RegisterCleanup([t = *std::move(t)] {});
    iters->push_back(std::move(it));
  }
  for (int level = 1; level < config::kNumLevels; ++level) {
    if (!files[level].empty()) {
      iters->push_back(NewLevelIterator(icmp, options, cache, files[level],
                                        stats->IteratorSink(level)));
    }
  }
}

bool Version::OverlapInLevel(int level,
                             std::optional<std::string_view> smallest,
                             std::optional<std::string_view> largest) const {
  const FileList& fl = files[level];
  if (level == 0) {
    for (const auto& f : fl) {
      if ((smallest &&
           icmp.CompareUser(*smallest, f->largest_user_key()) > 0) ||
          (largest && icmp.CompareUser(*largest, f->smallest_user_key()) < 0)) {
        continue;
      }
      return true;
    }
    return false;
  }
  size_t i = 0;
  if (smallest) {
    std::string probe;
    AppendInternalKey(&probe, *smallest, kMaxSequenceNumber, kValueTypeForSeek);
    i = FindFile(icmp, fl, probe);
  }
  if (i >= fl.size()) return false;
  return !largest ||
         icmp.CompareUser(*largest, fl[i]->smallest_user_key()) >= 0;
}

FileList Version::GetOverlappingInputs(
    int level, std::optional<std::string_view> begin,
    std::optional<std::string_view> end) const {
  FileList inputs;
  std::string user_begin(begin.value_or("")), user_end(end.value_or(""));
  bool has_begin = begin.has_value(), has_end = end.has_value();
  const FileList& fl = files[level];
  for (size_t i = 0; i < fl.size();) {
    const auto& f = fl[i++];
    if ((has_end && icmp.CompareUser(f->smallest_user_key(), user_end) > 0) ||
        (has_begin &&
         icmp.CompareUser(f->largest_user_key(), user_begin) < 0)) {
      continue;
    }
    inputs.push_back(f);
    if (level == 0) {
      // Level-0 files overlap each other: widen the range and restart
      // whenever a file extends it.
      bool widened = false;
      if (has_begin &&
          icmp.CompareUser(f->smallest_user_key(), user_begin) < 0) {
        user_begin.assign(f->smallest_user_key());
        widened = true;
      }
      if (has_end && icmp.CompareUser(f->largest_user_key(), user_end) > 0) {
        user_end.assign(f->largest_user_key());
        widened = true;
      }
      if (widened) {
        inputs.clear();
        i = 0;
      }
    }
  }
  return inputs;
}

int Version::PickLevelForMemTableOutput(std::string_view smallest,
                                        std::string_view largest,
                                        uint64_t max_file_size) const {
  int level = 0;
  if (OverlapInLevel(0, smallest, largest)) return 0;
  // Push down while the next level does not overlap and the one after it
  // would not make the future compaction too expensive.
  while (level < config::kMaxMemCompactLevel) {
    if (OverlapInLevel(level + 1, smallest, largest)) break;
    if (level + 2 < config::kNumLevels) {
      uint64_t overlap = 0;
      for (const auto& f : GetOverlappingInputs(level + 2, smallest, largest)) {
        overlap += f->file_size;
      }
      if (overlap > config::kMaxGrandparentOverlapFiles * max_file_size) break;
    }
    ++level;
  }
  return level;
}

}  // namespace sift
