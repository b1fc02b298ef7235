// GetApproximateSizes: how many bytes of storage a key range takes, from
// the files' key ranges and the tables' in-memory indexes (LevelDB's
// ApproximateOffsetOf, summed over the files of a Version).

#include <string>

#include "absl/status/status.h"
#include "db/db_impl/db_impl.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// The internal key sorting before every entry of user_key.
std::string SeekKey(std::string_view user_key) {
  std::string ikey;
  AppendInternalKey(&ikey, user_key, kMaxSequenceNumber, kValueTypeForSeek);
  return ikey;
}

// Where the data for user keys >= key starts in the file at files[i] of
// level: 0 when the whole file is at or after key, its size when it is
// wholly before, and otherwise the table's own offset (opening it if it is
// not pinned).
absl::StatusOr<uint64_t> OffsetInFile(const Version& v, int level, size_t i,
                                      std::string_view ikey,
                                      TableCache* cache) {
  const FileMetaData& f = *v.files[level][i];
  if (v.icmp.Compare(ikey, f.smallest) <= 0) return 0;
  if (v.icmp.Compare(ikey, f.largest) > 0) return f.file_size;
  if (const Table* pinned = v.PinnedTable(level, i); pinned != nullptr) {
    return pinned->ApproximateOffsetOf(ikey);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const Table> t, cache->GetUnpinned(f));
  return t->ApproximateOffsetOf(ikey);
}

// Bytes of the Version's files between the internal keys start and limit
// (start < limit).
absl::StatusOr<uint64_t> FileBytesInRange(const Version& v,
                                          std::string_view start,
                                          std::string_view limit,
                                          TableCache* cache) {
  uint64_t sum = 0;
  for (int level = 0; level < config::kNumLevels; ++level) {
    const FileList& files = v.files[level];
    // Levels >= 1 are sorted and disjoint: start at the first file that can
    // reach start and stop at the first one wholly at or after limit.
    const size_t first = level == 0 ? 0 : FindFile(v.icmp, files, start);
    for (size_t i = first; i < files.size(); ++i) {
      const FileMetaData& f = *files[i];
      if (v.icmp.Compare(f.largest, start) < 0) continue;
      if (v.icmp.Compare(f.smallest, limit) >= 0) {
        if (level == 0) continue;
        break;
      }
      ASSIGN_OR_RETURN(uint64_t from, OffsetInFile(v, level, i, start, cache));
      ASSIGN_OR_RETURN(uint64_t to, OffsetInFile(v, level, i, limit, cache));
      if (to > from) sum += to - from;
    }
  }
  return sum;
}

// Bytes of keys and values mem holds for internal keys in [start, limit)
// (ordered by icmp).
uint64_t MemTableBytesInRange(const MemTable& mem, const KeyComparator& icmp,
                              std::string_view start, std::string_view limit) {
  uint64_t sum = 0;
  std::unique_ptr<Iterator> it = mem.NewIterator();
  for (it->Seek(start); it->Valid() && icmp.Compare(it->key(), limit) < 0;
       it->Next()) {
    sum += it->key().size() + it->value().size();
  }
  return sum;
}

}  // namespace

absl::StatusOr<std::vector<uint64_t>> DBImpl::GetApproximateSizes(
    const SizeApproximationOptions& options, absl::Span<const Range> ranges) {
  return GetApproximateSizesImpl(options, default_cf_, ranges);
}

absl::StatusOr<std::vector<uint64_t>> DBImpl::GetApproximateSizesImpl(
    const SizeApproximationOptions& options, ColumnFamilyData* cfd,
    absl::Span<const Range> ranges) {
  if (!options.include_files && !options.include_memtables) {
    return absl::InvalidArgumentError(
        "GetApproximateSizes: SizeApproximationOptions includes neither "
        "files nor memtables");
  }
  const ReadViewCache::Ref view = cfd->views.Acquire();
  const KeyComparator& icmp = view->version->icmp;
  std::vector<uint64_t> sizes;
  sizes.reserve(ranges.size());
  for (const Range& r : ranges) {
    if (icmp.CompareUser(r.limit, r.start) <= 0) {
      sizes.push_back(0);
      continue;
    }
    const std::string start = SeekKey(r.start);
    const std::string limit = SeekKey(r.limit);
    uint64_t size = 0;
    if (options.include_files) {
      ASSIGN_OR_RETURN(size, FileBytesInRange(*view->version, start, limit,
                                              cfd->table_cache()));
    }
    if (options.include_memtables) {
      size += MemTableBytesInRange(*view->mem, icmp, start, limit);
      if (view->imm != nullptr) {
        size += MemTableBytesInRange(*view->imm, icmp, start, limit);
      }
    }
    sizes.push_back(size);
  }
  return sizes;
}

}  // namespace sift
