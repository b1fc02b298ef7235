// Version: reading one snapshot of the LSM tree (point lookups, iterators,
// overlap queries).

#include "db/version.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
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

// Most batches fit these without touching the heap.
constexpr size_t kInlineKeys = 32;
template <typename T>
using BatchVector = absl::InlinedVector<T, kInlineKeys>;

// A file a point read asks: its metadata, pinned table (or null: from the
// cache's LRU) and level.
struct Candidate {
  const FileMetaData* file;
  const Table* table;
  int level;
};

bool HasRangeDeletions(const FileMetaData& f) {
  SIFT_INVARIANT(f.facts.has_value(),
                 "FileMetaData::facts is set in every installed Version");
  return f.facts->num_range_deletions > 0;
}

// The probe core of Get and MultiGet: asks files, in the order the read
// visits them, for runs of keys, and remembers the files asked that hold
// range tombstones. Once a file finds an entry for a key, those of them
// whose range holds the key (with the finder) are the newer sources whose
// tombstones may delete it, and are read only then: a miss reads none.
class PointLookup {
 public:
  PointLookup(const ReadContext& ctx, const KeyComparator& icmp)
      : ctx_(ctx), icmp_(icmp) {}

  // Asks c for each key of `keys` (ascending) not yet done; each key the
  // file decides is done. The table asks its filter first and counts.
  void Ask(const Candidate& c, absl::Span<KeyLookup* const> keys) {
    std::shared_ptr<const Table> holder;
    const Table* table = c.table;
    if (table == nullptr) {
      absl::StatusOr<std::shared_ptr<const Table>> t =
          ctx_.cache->GetUnpinned(*c.file);
      if (!t.ok()) {
        for (KeyLookup* k : keys) {
          if (!k->done) Fail(k, t.status());
        }
        return;
      }
      holder = *std::move(t);
      table = holder.get();
      // Overlap the filter misses of a batch (pinned tables were
      // prefetched before their level was asked).
      if (keys.size() > 1) {
        for (const KeyLookup* k : keys) table->PrefetchFilter(k->hash);
      }
    }
    if (keys.size() == 1) {
      // Get's case: no batch buffers.
      if (!keys[0]->done) {
        Table::Lookup l = LookupOf(*keys[0]);
        TableReadCounters counters;
        table->Get(ctx_.options, &l, &counters);
        AddTableCounters(c.level, counters, ctx_.stats);
        Decide(c, *table, l, keys[0]);
      }
    } else {
      lookups_.clear();
      asked_.clear();
      for (KeyLookup* k : keys) {
        if (k->done) continue;
        lookups_.push_back(LookupOf(*k));
        asked_.push_back(k);
      }
      if (!lookups_.empty()) {
        TableReadCounters counters;
        table->MultiGet(ctx_.options, absl::MakeSpan(lookups_), &counters);
        AddTableCounters(c.level, counters, ctx_.stats);
        for (size_t j = 0; j < lookups_.size(); ++j) {
          Decide(c, *table, lookups_[j], asked_[j]);
        }
      }
    }
    if (ctx_.range_dels && HasRangeDeletions(*c.file)) {
      with_tombstones_.push_back(c);
    }
  }

 private:
  static Table::Lookup LookupOf(const KeyLookup& k) {
    Table::Lookup l;
    l.key = k.internal_key;
    l.hash = k.hash;
    l.value = k.value;
    return l;
  }

  // Takes c's answer l (from table t) for k: an error fails k, an entry
  // decides it.
  void Decide(const Candidate& c, const Table& t, const Table::Lookup& l,
              KeyLookup* k) {
    if (!l.status.ok()) {
      Fail(k, l.status);
    } else if (l.result == Table::LookupResult::kFound ||
               l.result == Table::LookupResult::kDeleted) {
      k->done = true;
      k->found = l.result == Table::LookupResult::kFound &&
                 !Covered(c, t, k, l.sequence);
    }
  }

  // Whether the entry for k found in c (at sequence `found`, table `t`)
  // is deleted by a range tombstone newer than it in c or in a file asked
  // before c. A failure to open one of those fails k.
  bool Covered(const Candidate& c, const Table& t, KeyLookup* k,
               SequenceNumber found) {
    if (!ctx_.range_dels) return false;
    for (const Candidate& older : with_tombstones_) {
      const FileMetaData& f = *older.file;
      if (icmp_.CompareUser(k->user_key, f.smallest_user_key()) < 0 ||
          icmp_.CompareUser(k->user_key, f.largest_user_key()) > 0) {
        continue;
      }
      std::shared_ptr<const Table> holder;
      const Table* table = older.table;
      if (table == nullptr) {
        absl::StatusOr<std::shared_ptr<const Table>> opened =
            ctx_.cache->GetUnpinned(f);
        if (!opened.ok()) {
          *k->status = opened.status();
          return false;
        }
        holder = *std::move(opened);
        table = holder.get();
      }
      RaiseCovering(*table, k);
    }
    if (HasRangeDeletions(*c.file)) RaiseCovering(t, k);
    return found < k->covering;
  }

  static void RaiseCovering(const Table& table, KeyLookup* k) {
    const SequenceNumber read_seq =
        ExtractTrailer(k->internal_key) >> kValueTypeBits;
    k->covering = std::max(k->covering, table.range_tombstones().MaxCoveringSeq(
                                            k->user_key, read_seq));
  }

  static void Fail(KeyLookup* k, const absl::Status& s) {
    *k->status = s;
    k->done = true;
  }

  const ReadContext& ctx_;
  const KeyComparator& icmp_;
  absl::InlinedVector<Candidate, 4> with_tombstones_;
  BatchVector<Table::Lookup> lookups_;
  BatchVector<KeyLookup*> asked_;  // the key of each lookup
};

}  // namespace

void Version::Get(const ReadContext& ctx, KeyLookup* key) const {
  const std::string_view user_key = key->user_key;
  PointLookup lookup(ctx, icmp);
  // Candidates are gathered a batch at a time -- level-0 files newest first
  // whose range holds the key, then at most one file per deeper level --
  // and each one's filter cache line is requested before any is asked, so
  // the cache misses overlap instead of following one another.
  constexpr int kBatch = 16;
  Candidate batch[kBatch];
  int n = 0;
  auto add = [&](int level, size_t i) {
    const Table* t = PinnedTable(level, i);
    if (t != nullptr) t->PrefetchFilter(key->hash);
    batch[n++] = Candidate{files[level][i].get(), t, level};
  };
  // Asks the batch in order; true once a file decided the lookup.
  auto ask = [&]() {
    for (int c = 0; c < n; ++c) {
      lookup.Ask(batch[c], absl::MakeConstSpan(&key, 1));
      if (key->done) return true;
    }
    n = 0;
    return false;
  };
  for (size_t i = 0; i < files[0].size(); ++i) {
    const FileMetaData& f = *files[0][i];
    if (icmp.CompareUser(user_key, f.smallest_user_key()) >= 0 &&
        icmp.CompareUser(user_key, f.largest_user_key()) <= 0) {
      add(0, i);
      if (n == kBatch && ask()) return;
    }
  }
  if (n > kBatch - config::kNumLevels && ask()) return;
  for (int level = 1; level < config::kNumLevels; ++level) {
    const FileList& fl = files[level];
    if (fl.empty()) continue;
    const size_t i = FindFileFast(level, user_key, key->internal_key);
    if (i < fl.size() &&
        icmp.CompareUser(user_key, fl[i]->smallest_user_key()) >= 0) {
      add(level, i);
    }
  }
  ask();
}

void Version::MultiGet(const ReadContext& ctx,
                       absl::Span<KeyLookup* const> keys) const {
  PointLookup lookup(ctx, icmp);
  // The files of one level the batch asks, each with its run of keys
  // (keys_[begin, end)).
  struct FileKeys {
    Candidate file;
    size_t begin, end;
  };
  absl::InlinedVector<FileKeys, 8> plan;
  BatchVector<KeyLookup*> planned;
  auto add_file = [&](int level, size_t i) {
    plan.push_back(
        FileKeys{Candidate{files[level][i].get(), PinnedTable(level, i), level},
                 planned.size(), planned.size()});
  };
  auto add_key = [&](KeyLookup* k) {
    planned.push_back(k);
    ++plan.back().end;
  };
  // Requests the filter line of every planned key in every pinned table,
  // so that the cache misses of the whole level overlap, then asks the
  // files in plan order for their keys not yet done.
  auto run = [&]() {
    for (const FileKeys& fk : plan) {
      if (fk.file.table == nullptr) continue;
      for (size_t i = fk.begin; i < fk.end; ++i) {
        fk.file.table->PrefetchFilter(planned[i]->hash);
      }
    }
    const absl::Span<KeyLookup* const> all(planned);
    for (const FileKeys& fk : plan) {
      if (fk.begin < fk.end) {
        lookup.Ask(fk.file, all.subspan(fk.begin, fk.end - fk.begin));
      }
    }
    plan.clear();
    planned.clear();
  };
  // Level 0, newest file first: each takes the open keys in its range (a
  // key an earlier file decides is skipped when its turn comes).
  for (size_t i = 0; i < files[0].size(); ++i) {
    const FileMetaData& f = *files[0][i];
    KeyLookup first;
    first.user_key = f.smallest_user_key();
    first.prefix = UserKeyPrefix(first.user_key);
    add_file(0, i);
    for (auto it = std::lower_bound(keys.begin(), keys.end(), &first,
                                    KeyLookupLess{&icmp});
         it != keys.end() &&
         icmp.CompareUser((*it)->user_key, f.largest_user_key()) <= 0;
         ++it) {
      if (!(*it)->done) add_key(*it);
    }
  }
  run();
  // Deeper levels: the keys ascend, and so do their files. A key's file is
  // the one FindFile gives (the first whose largest key is at or after the
  // key's lookup key), as in Get, and the keys after it stay in that file
  // while they are at or below its largest key.
  for (int level = 1; level < config::kNumLevels; ++level) {
    const FileList& fl = files[level];
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
      add_file(level, i);
      for (; k < keys.size() &&
             icmp.Compare(f.largest, keys[k]->internal_key) >= 0;
           ++k) {
        if (!keys[k]->done &&
            icmp.CompareUser(keys[k]->user_key, f.smallest_user_key()) >= 0) {
          add_key(keys[k]);
        }
      }
    }
    run();
  }
}

void Version::AddIterators(
    const ReadOptions& options, TableCache* cache, StatisticsImpl* stats,
    std::vector<std::unique_ptr<Iterator>>* iters) const {
  // A file wholly outside the iterator's bounds holds no key it may show:
  // it is left out, never opened.
  const std::optional<std::string>& lower = options.iterate_lower_bound;
  const std::optional<std::string>& upper = options.iterate_upper_bound;
  auto in_bounds = [&](const FileMetaData& f) {
    return !(lower && icmp.CompareUser(f.largest_user_key(), *lower) < 0) &&
           !(upper && icmp.CompareUser(f.smallest_user_key(), *upper) >= 0);
  };
  const bool bounded = lower.has_value() || upper.has_value();
  for (const auto& f : files[0]) {
    if (bounded && !in_bounds(*f)) {
      stats->Add(0, kIterateBoundsFilesSkipped);
      continue;
    }
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
    FileList kept;
    if (bounded) {
      for (const auto& f : files[level]) {
        if (in_bounds(*f)) kept.push_back(f);
      }
      const size_t skipped = files[level].size() - kept.size();
      if (skipped > 0) stats->Add(level, kIterateBoundsFilesSkipped, skipped);
    }
    const FileList& list = bounded ? kept : files[level];
    if (!list.empty()) {
      iters->push_back(NewLevelIterator(icmp, options, cache, list,
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
