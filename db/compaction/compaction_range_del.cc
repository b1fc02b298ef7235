#include "db/compaction/compaction_range_del.h"

#include <algorithm>
#include <string>
#include <utility>

#include "table/table.h"
#include "util/invariant.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// True if some snapshot S has from <= S < to: it sees an entry at `from`
// but not a tombstone at `to`.
bool SnapshotBetween(const std::vector<SequenceNumber>& snapshots,
                     SequenceNumber from, SequenceNumber to) {
  auto it = std::lower_bound(snapshots.begin(), snapshots.end(), from);
  return it != snapshots.end() && *it < to;
}

// True if tombstones newer than every entry of f, with no snapshot between
// f's entries and them, cover f's whole user-key range.
bool CoveredWhole(const FragmentedRangeTombstones& t, const FileMetaData& f,
                  const std::vector<SequenceNumber>& snapshots) {
  SIFT_INVARIANT(f.facts.has_value(),
                 "FileMetaData::facts is set in every installed Version");
  const auto& frags = t.fragments();
  std::string_view at = f.smallest_user_key();
  auto it = std::upper_bound(frags.begin(), frags.end(), at,
                             [](std::string_view k, const auto& fr) {
                               return CompareUserKeys(k, fr.begin) < 0;
                             });
  if (it == frags.begin()) return false;
  --it;
  for (; it != frags.end(); ++it) {
    if (CompareUserKeys(it->begin, at) > 0 ||
        CompareUserKeys(at, it->end) >= 0) {
      return false;  // a gap
    }
    // The oldest tombstone here newer than the file decides: a snapshot
    // between the file and it would still see the file's entries.
    SequenceNumber oldest_newer = 0;
    for (SequenceNumber s : it->seqs) {
      if (s <= f.facts->largest_seq) break;
      oldest_newer = s;
    }
    if (oldest_newer == 0 ||
        SnapshotBetween(snapshots, f.facts->smallest_seq, oldest_newer)) {
      return false;
    }
    if (CompareUserKeys(f.largest_user_key(), it->end) < 0) return true;
    at = it->end;
  }
  return false;
}

}  // namespace

absl::StatusOr<CompactionRangeDels> CompactionRangeDels::Load(
    const Compaction& c, TableCache* cache,
    const std::vector<SequenceNumber>& snapshots) {
  CompactionRangeDels r;
  r.snapshots_ = snapshots;
  std::vector<std::pair<uint64_t, std::vector<RangeTombstone>>> per_file;
  std::vector<RangeTombstone> every;
  for (int which = 0; which < 2; ++which) {
    for (const auto& f : c.inputs(which)) {
      SIFT_INVARIANT(f->facts.has_value(),
                     "FileMetaData::facts is set in every installed Version");
      if (f->facts->num_range_deletions == 0) continue;
      ASSIGN_OR_RETURN(std::shared_ptr<const Table> table, cache->Get(*f));
      per_file.emplace_back(f->number,
                            table->range_tombstones().ToTombstones());
      every.insert(every.end(), per_file.back().second.begin(),
                   per_file.back().second.end());
    }
  }
  if (every.empty()) return r;
  const FragmentedRangeTombstones candidates(every);
  for (int which = 0; which < 2; ++which) {
    for (const auto& f : c.inputs(which)) {
      if (CoveredWhole(candidates, *f, snapshots)) {
        r.covered_files_.insert(f->number);
      }
    }
  }
  // A covered file's own tombstones are older than the ones covering it,
  // over a part of its range: they go with it.
  every.clear();
  for (auto& [number, tombstones] : per_file) {
    if (r.covered_files_.count(number)) continue;
    every.insert(every.end(), tombstones.begin(), tombstones.end());
  }
  r.all_ = FragmentedRangeTombstones(every);
  const SequenceNumber oldest_snapshot =
      snapshots.empty() ? kMaxSequenceNumber : snapshots.front();
  for (const auto& fr : r.all_.fragments()) {
    const bool bottom = c.IsBaseLevelForRange(fr.begin, fr.end);
    SequenceNumber newer = kMaxSequenceNumber + 1;
    for (SequenceNumber s : fr.seqs) {  // newest first
      // Shadowed by the newer tombstone here for every snapshot, or at
      // the bottom with nothing left to delete and seen by every reader.
      const bool shadowed =
          !SnapshotBetween(snapshots, s, newer) && newer <= kMaxSequenceNumber;
      const bool done = bottom && s <= oldest_snapshot;
      if (!shadowed && !done) r.kept_.push_back({fr.begin, fr.end, s});
      newer = s;
    }
  }
  return r;
}

bool CompactionRangeDels::Covers(std::string_view user_key,
                                 SequenceNumber seq) const {
  const SequenceNumber t = all_.MinCoveringSeqAbove(user_key, seq);
  return t != 0 && !SnapshotBetween(snapshots_, seq, t);
}

std::vector<RangeTombstone> CompactionRangeDels::ForOutput(
    std::optional<std::string_view> lower,
    std::optional<std::string_view> upper) const {
  std::vector<RangeTombstone> out;
  for (const RangeTombstone& t : kept_) {
    RangeTombstone piece = t;
    if (lower && CompareUserKeys(piece.begin, *lower) < 0) {
      piece.begin.assign(*lower);
    }
    if (upper && CompareUserKeys(piece.end, *upper) > 0) {
      piece.end.assign(*upper);
    }
    if (CompareUserKeys(piece.begin, piece.end) < 0) {
      out.push_back(std::move(piece));
    }
  }
  return out;
}

}  // namespace sift
