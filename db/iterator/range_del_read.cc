#include "db/iterator/range_del_read.h"

#include <vector>

#include "table/table.h"
#include "util/status_macros.h"

namespace sift {
namespace {

void AddVisible(const FragmentedRangeTombstones& from, SequenceNumber seq,
                std::vector<RangeTombstone>* to) {
  for (const auto& f : from.fragments()) {
    for (SequenceNumber s : f.seqs) {
      if (s <= seq) to->push_back({f.begin, f.end, s});
    }
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<const FragmentedRangeTombstones>>
CollectRangeTombstones(const ReadView& view, TableCache* cache,
                       SequenceNumber seq) {
  std::vector<RangeTombstone> visible;
  for (const MemTable* m : {view.mem.get(), view.imm.get()}) {
    if (m != nullptr && m->has_range_tombstones()) {
      AddVisible(*m->RangeTombstones(), seq, &visible);
    }
  }
  if (view.version->has_range_deletions) {
    for (const FileList& level : view.version->files) {
      for (const auto& f : level) {
        if (f->facts->num_range_deletions == 0) continue;
        ASSIGN_OR_RETURN(std::shared_ptr<const Table> table, cache->Get(*f));
        AddVisible(table->range_tombstones(), seq, &visible);
      }
    }
  }
  if (visible.empty()) return nullptr;
  return std::make_shared<const FragmentedRangeTombstones>(visible);
}

}  // namespace sift
