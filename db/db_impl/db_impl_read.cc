// DBImpl's reads: Get, NewIterator and snapshots (docs/DESIGN.md, "Read
// path").

#include <memory>
#include <string>
#include <vector>

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

absl::Status DBImpl::Get(const ReadOptions& options, std::string_view key,
                         std::string* value) {
  // Take the view, then the sequence. The other order can lose a key: a
  // flush and a compaction installed in between may drop the version at
  // or below the sequence in favour of a newer one the read cannot see.
  // In this order, anything the view's Version dropped was shadowed by an
  // entry already published (<= seq); entries the view lacks are all newer
  // than everything in it, so the read sees the state as of the view.
  const ReadViewCache::Ref view = views_.Acquire();
  const SequenceNumber seq = ReadSequence(options);
  const uint64_t hash = KeyHash(key);
  const LookupKey lkey(key, seq);
  LocalStats stats(&stats_);
  stats.Add(config::kNoLevel, kNumberKeysRead);
  absl::Status s;
  bool found = false;
  // Range tombstones anywhere: each source's tombstones covering the key
  // raise `covering`, and the entry found counts only if newer. None (the
  // common case): the checks are skipped whole.
  SequenceNumber covering_seq = 0;
  SequenceNumber* const covering =
      view->version->has_range_deletions || view->mem->has_range_tombstones() ||
              (view->imm != nullptr && view->imm->has_range_tombstones())
          ? &covering_seq
          : nullptr;
  MemTable::GetResult mr = view->mem->Get(lkey, hash, value, &stats, covering);
  if (mr == MemTable::GetResult::kNotFound && view->imm != nullptr) {
    mr = view->imm->Get(lkey, hash, value, &stats, covering);
  }
  if (mr != MemTable::GetResult::kNotFound) {
    stats.Add(config::kNoLevel, kMemtableHit);
    found = mr == MemTable::GetResult::kFound;
  } else {
    stats.Add(config::kNoLevel, kMemtableMiss);
    Version::GetResult vr;
    s = view->version->Get(options, lkey, hash, table_cache_.get(), value, &vr,
                           &stats, covering);
    found = s.ok() && vr == Version::GetResult::kFound;
  }
  if (found) stats.Add(config::kNoLevel, kNumberKeysFound);
  if (!s.ok()) return s;
  // An empty message keeps the miss path free of allocation.
  return found ? absl::OkStatus() : absl::NotFoundError("");
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  // First: see Get. The iterator keeps its own reference to the view.
  std::shared_ptr<const ReadView> view = views_.Acquire().Share();
  const SequenceNumber seq = ReadSequence(options);
  absl::StatusOr<std::shared_ptr<const FragmentedRangeTombstones>> range_dels =
      CollectRangeTombstones(*view, table_cache_.get(), seq);
  if (!range_dels.ok()) return NewEmptyIterator(range_dels.status());
  std::vector<std::unique_ptr<Iterator>> children;
  children.push_back(view->mem->NewIterator());
  if (view->imm != nullptr) children.push_back(view->imm->NewIterator());
  view->version->AddIterators(options, table_cache_.get(), &stats_, &children);
  std::unique_ptr<Iterator> it = NewUserIterator(
      view->version->icmp,
      NewMergingIterator(view->version->icmp, std::move(children)), seq,
      *std::move(range_dels));
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
