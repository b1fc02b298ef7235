// DBImpl's reads: Get and MultiGet (one path: the memtables, then the
// Version's probe core in db/version.cc), NewIterator and snapshots
// (docs/DESIGN.md, "Read path" and "MultiGet").

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "db/db_impl/db_impl.h"
#include "db/iterator/merging_iterator.h"
#include "db/iterator/range_del_read.h"
#include "db/iterator/user_iterator.h"
#include "util/hash.h"

namespace sift {

class DBImpl::SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber seq) : sequence(seq) {}
  ~SnapshotImpl() override = default;
  const SequenceNumber sequence;
};

SequenceNumber DBImpl::ReadSequence(const ReadOptions& options) const {
  return options.snapshot != nullptr
             ? static_cast<const SnapshotImpl*>(options.snapshot)->sequence
             : versions_->LastSequence();
}

namespace {

// Whether any source of the view holds range tombstones: if none (the
// common case), point reads skip every tombstone check.
bool HasRangeTombstones(const ReadView& view) {
  return view.version->has_range_deletions ||
         view.mem->has_range_tombstones() ||
         (view.imm != nullptr && view.imm->has_range_tombstones());
}

// Looks k up in the view's memtables, newest first; true (k done) when one
// of them decided it. Each memtable's tombstones covering the key raise
// k->covering when the view has any.
bool GetFromMemTables(const ReadView& view, const LookupKey& lkey,
                      bool range_dels, KeyLookup* k, LocalStats* stats) {
  SequenceNumber* const covering = range_dels ? &k->covering : nullptr;
  MemTable::GetResult mr =
      view.mem->Get(lkey, k->hash, k->value, stats, covering);
  if (mr == MemTable::GetResult::kNotFound && view.imm != nullptr) {
    mr = view.imm->Get(lkey, k->hash, k->value, stats, covering);
  }
  if (mr == MemTable::GetResult::kNotFound) {
    stats->Add(config::kNoLevel, kMemtableMiss);
    return false;
  }
  stats->Add(config::kNoLevel, kMemtableHit);
  k->done = true;
  k->found = mr == MemTable::GetResult::kFound;
  return true;
}

// Most batches fit without touching the heap.
template <typename T>
using BatchVector = absl::InlinedVector<T, 32>;

}  // namespace

absl::Status DBImpl::Get(const ReadOptions& options, std::string_view key,
                         std::string* value) {
  return GetImpl(options, default_cf_, key, value);
}

absl::Status DBImpl::GetImpl(const ReadOptions& options, ColumnFamilyData* cfd,
                             std::string_view key, std::string* value) {
  // Take the view, then the sequence. The other order can lose a key: a
  // flush and a compaction installed in between may drop the version at
  // or below the sequence in favour of a newer one the read cannot see.
  // In this order, anything the view's Version dropped was shadowed by an
  // entry already published (<= seq); entries the view lacks are all newer
  // than everything in it, so the read sees the state as of the view.
  const ReadViewCache::Ref view = cfd->views.Acquire();
  const SequenceNumber seq = ReadSequence(options);
  const LookupKey lkey(key, seq);
  LocalStats stats(cfd->read_stats());
  stats.Add(config::kNoLevel, kNumberKeysRead);
  absl::Status s;
  KeyLookup k;
  k.user_key = key;
  k.internal_key = lkey.internal_key();
  k.hash = KeyHash(key);
  k.value = value;
  k.status = &s;
  const ReadContext ctx{options, cfd->table_cache(), &stats,
                        HasRangeTombstones(*view)};
  if (!GetFromMemTables(*view, lkey, ctx.range_dels, &k, &stats)) {
    view->version->Get(ctx, &k);
  }
  if (!s.ok()) return s;
  if (!k.found) return absl::NotFoundError("");  // no message: no allocation
  stats.Add(config::kNoLevel, kNumberKeysFound);
  return absl::OkStatus();
}

std::vector<absl::Status> DBImpl::MultiGet(
    const ReadOptions& options, absl::Span<const std::string_view> keys,
    std::vector<std::string>* values) {
  return MultiGetImpl(options, default_cf_, keys, values);
}

std::vector<absl::Status> DBImpl::MultiGetImpl(
    const ReadOptions& options, ColumnFamilyData* cfd,
    absl::Span<const std::string_view> keys, std::vector<std::string>* values) {
  // One view, then one sequence, for the whole batch (the order: see Get).
  const ReadViewCache::Ref view = cfd->views.Acquire();
  const SequenceNumber seq = ReadSequence(options);
  std::vector<absl::Status> statuses(keys.size());
  values->resize(keys.size());
  MultiGetAt(options, cfd, *view, seq, keys, absl::MakeSpan(*values),
             absl::MakeSpan(statuses));
  return statuses;
}

std::vector<absl::Status> DBImpl::MultiGet(
    const ReadOptions& options, absl::Span<ColumnFamilyHandle* const> families,
    absl::Span<const std::string_view> keys, std::vector<std::string>* values) {
  const size_t n = keys.size();
  values->assign(n, std::string());
  if (families.size() != n) {
    return std::vector<absl::Status>(
        n, absl::InvalidArgumentError(absl::StrCat(
               "MultiGet: ", families.size(), " column families for ", n,
               " keys (one per key)")));
  }
  std::vector<absl::Status> statuses(n);
  // The keys of each family, in order of first appearance.
  struct Group {
    ColumnFamilyData* cfd;
    std::shared_ptr<const ReadView> view;
    std::vector<size_t> at;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<ColumnFamilyData*> cfd = FamilyOf(families[i], "MultiGet");
    if (!cfd.ok()) {
      statuses[i] = cfd.status();
      continue;
    }
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.cfd == *cfd; });
    if (g == groups.end()) {
      groups.push_back(Group{*cfd, (*cfd)->views.Acquire().Share(), {}});
      g = groups.end() - 1;
    }
    g->at.push_back(i);
  }
  // Every view, then one sequence (the order: see Get).
  const SequenceNumber seq = ReadSequence(options);
  for (const Group& g : groups) {
    std::vector<std::string_view> group_keys;
    for (size_t i : g.at) group_keys.push_back(keys[i]);
    std::vector<std::string> group_values(g.at.size());
    std::vector<absl::Status> group_statuses(g.at.size());
    MultiGetAt(options, g.cfd, *g.view, seq, group_keys,
               absl::MakeSpan(group_values), absl::MakeSpan(group_statuses));
    for (size_t j = 0; j < g.at.size(); ++j) {
      (*values)[g.at[j]] = std::move(group_values[j]);
      statuses[g.at[j]] = std::move(group_statuses[j]);
    }
  }
  return statuses;
}

void DBImpl::MultiGetAt(const ReadOptions& options, ColumnFamilyData* cfd,
                        const ReadView& view, SequenceNumber seq,
                        absl::Span<const std::string_view> keys,
                        absl::Span<std::string> values,
                        absl::Span<absl::Status> statuses) {
  const size_t n = keys.size();
  for (std::string& v : values) v.clear();
  if (n == 0) return;
  LocalStats stats(cfd->read_stats());
  stats.Add(config::kNoLevel, kNumberKeysRead, n);
  const ReadContext ctx{options, cfd->table_cache(), &stats,
                        HasRangeTombstones(view)};
  BatchVector<KeyLookup> batch(n);
  BatchVector<KeyLookup*> pending;  // the keys the memtables left open
  // Their lookup keys, back to back; reserved whole, so never moved.
  std::string ikeys;
  size_t ikeys_size = 0;
  for (std::string_view key : keys) {
    ikeys_size += key.size() + kInternalKeyTrailerSize;
  }
  ikeys.reserve(ikeys_size);
  for (size_t i = 0; i < n; ++i) {
    KeyLookup& k = batch[i];
    k.user_key = keys[i];
    k.prefix = UserKeyPrefix(keys[i]);
    k.hash = KeyHash(keys[i]);
    k.value = &values[i];
    k.status = &statuses[i];
    const LookupKey lkey(keys[i], seq);
    const size_t begin = ikeys.size();
    ikeys.append(lkey.internal_key());
    k.internal_key = std::string_view(ikeys).substr(begin);
    if (!GetFromMemTables(view, lkey, ctx.range_dels, &k, &stats)) {
      pending.push_back(&k);
    }
  }
  if (!pending.empty()) {
    std::sort(pending.begin(), pending.end(),
              KeyLookupLess{&view.version->icmp});
    view.version->MultiGet(ctx, pending);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!statuses[i].ok()) continue;
    if (batch[i].found) {
      stats.Add(config::kNoLevel, kNumberKeysFound);
    } else {
      statuses[i] = absl::NotFoundError("");  // as Get: no allocation
    }
  }
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  // First: see Get. The iterator keeps its own reference to the view.
  std::shared_ptr<const ReadView> view = default_cf_->views.Acquire().Share();
  return NewIteratorAt(options, default_cf_, std::move(view),
                       ReadSequence(options));
}

std::unique_ptr<Iterator> DBImpl::NewIteratorAt(
    const ReadOptions& options, ColumnFamilyData* cfd,
    std::shared_ptr<const ReadView> view, SequenceNumber seq) {
  absl::StatusOr<std::shared_ptr<const FragmentedRangeTombstones>> range_dels =
      CollectRangeTombstones(*view, cfd->table_cache(), seq);
  if (!range_dels.ok()) return NewEmptyIterator(range_dels.status());
  std::vector<std::unique_ptr<Iterator>> children;
  children.push_back(view->mem->NewIterator());
  if (view->imm != nullptr) children.push_back(view->imm->NewIterator());
  view->version->AddIterators(options, cfd->table_cache(), &stats_, &children);
  std::unique_ptr<Iterator> it = NewUserIterator(
      view->version->icmp,
      NewMergingIterator(view->version->icmp, std::move(children)), seq,
      *std::move(range_dels), UserKeyBounds::Of(options));
  // Cleanups run after the children are gone: the view outlives them.
  it->RegisterCleanup([view = std::move(view)] {});
  return it;
}

const Snapshot* DBImpl::GetSnapshot() {
  MutexLock l(&mu_);
  const SequenceNumber seq = versions_->LastSequence();
  snapshots_.insert(seq);
  return new SnapshotImpl(seq);
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  const auto* s = static_cast<const SnapshotImpl*>(snapshot);
  {
    MutexLock l(&mu_);
    auto it = snapshots_.find(s->sequence);
    if (it != snapshots_.end()) snapshots_.erase(it);
  }
  delete s;
}

}  // namespace sift
