#include "table/range_tombstone.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace sift {
namespace {

bool UserKeyLess(std::string_view a, std::string_view b) {
  return CompareUserKeys(a, b) < 0;
}

}  // namespace

FragmentedRangeTombstones::FragmentedRangeTombstones(
    const std::vector<RangeTombstone>& tombstones) {
  std::vector<const RangeTombstone*> sorted;
  std::vector<std::string_view> bounds;
  for (const RangeTombstone& t : tombstones) {
    if (CompareUserKeys(t.begin, t.end) >= 0) continue;
    sorted.push_back(&t);
    bounds.push_back(t.begin);
    bounds.push_back(t.end);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const RangeTombstone* a, const RangeTombstone* b) {
              return UserKeyLess(a->begin, b->begin);
            });
  std::sort(bounds.begin(), bounds.end(), UserKeyLess);
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  // Sweep the bounds left to right. Every fragment lies between two
  // consecutive bounds, so the tombstones covering all of [bounds[i],
  // bounds[i + 1]) are exactly those begun at or before bounds[i] and not
  // yet ended there.
  std::vector<const RangeTombstone*> active;
  size_t next = 0;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    const std::string_view at = bounds[i];
    while (next < sorted.size() &&
           CompareUserKeys(sorted[next]->begin, at) <= 0) {
      active.push_back(sorted[next++]);
    }
    std::erase_if(active, [at](const RangeTombstone* t) {
      return CompareUserKeys(t->end, at) <= 0;
    });
    if (active.empty()) continue;
    std::vector<SequenceNumber> seqs;
    for (const RangeTombstone* t : active) seqs.push_back(t->seq);
    std::sort(seqs.begin(), seqs.end(), std::greater<>());
    seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
    // Neighbours with the same sequences are one fragment: fewer to search.
    if (!fragments_.empty() && fragments_.back().end == at &&
        fragments_.back().seqs == seqs) {
      fragments_.back().end.assign(bounds[i + 1]);
      continue;
    }
    fragments_.push_back(
        Fragment{std::string(at), std::string(bounds[i + 1]), std::move(seqs)});
  }
  for (const Fragment& f : fragments_) {
    memory_ += sizeof(Fragment) + f.begin.capacity() + f.end.capacity() +
               f.seqs.capacity() * sizeof(SequenceNumber);
  }
}

const FragmentedRangeTombstones::Fragment* FragmentedRangeTombstones::Find(
    std::string_view user_key) const {
  // The last fragment beginning at or before user_key holds it, if any.
  auto it = std::upper_bound(fragments_.begin(), fragments_.end(), user_key,
                             [](std::string_view k, const Fragment& f) {
                               return CompareUserKeys(k, f.begin) < 0;
                             });
  if (it == fragments_.begin()) return nullptr;
  --it;
  return CompareUserKeys(user_key, it->end) < 0 ? &*it : nullptr;
}

SequenceNumber FragmentedRangeTombstones::MaxCoveringSeq(
    std::string_view user_key, SequenceNumber read_seq) const {
  const Fragment* f = Find(user_key);
  if (f == nullptr) return 0;
  for (SequenceNumber s : f->seqs) {  // newest first
    if (s <= read_seq) return s;
  }
  return 0;
}

SequenceNumber FragmentedRangeTombstones::MinCoveringSeqAbove(
    std::string_view user_key, SequenceNumber seq) const {
  const Fragment* f = Find(user_key);
  if (f == nullptr) return 0;
  SequenceNumber found = 0;
  for (SequenceNumber s : f->seqs) {  // newest first
    if (s <= seq) break;
    found = s;
  }
  return found;
}

std::vector<RangeTombstone> FragmentedRangeTombstones::ToTombstones() const {
  std::vector<RangeTombstone> out;
  for (const Fragment& f : fragments_) {
    for (SequenceNumber s : f.seqs) out.push_back({f.begin, f.end, s});
  }
  return out;
}

}  // namespace sift
