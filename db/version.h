// Version: one immutable snapshot of which tables exist at which level,
// and the reads over it -- point lookups (Get, MultiGet), iterators and
// overlap queries. VersionSet (db/version_set.h) makes new Versions from
// VersionEdits; readers hold a std::shared_ptr<const Version> and read
// without any lock. A file is live while some Version names it.

#ifndef SIFT_DB_VERSION_H_
#define SIFT_DB_VERSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "db/dbformat.h"
#include "db/file_meta.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "sift/iterator.h"
#include "sift/options.h"

namespace sift {

struct MultiGetKey;

class Version {
 public:
  explicit Version(KeyComparator icmp) : icmp(icmp) {}

  // The order of the files' keys (Options::comparator).
  const KeyComparator icmp;
  // Level 0 newest first (highest file number first); levels >= 1 sorted
  // by smallest key, disjoint.
  FileList files[config::kNumLevels];
  // From the table cache when the Version is installed: each file's pinned
  // table or null (same order as files), read by Get with no lock.
  PinnedTables pinned;

  enum class GetResult : uint8_t { kNotFound, kFound, kDeleted };
  // Looks the key up file by file: level 0 newest first, then one candidate
  // per deeper level. Each candidate is range-checked, then its filter is
  // probed with `hash`; only on "maybe" is a data block read.
  // With covering null, range tombstones are not consulted (there are
  // none: see has_range_deletions). Otherwise, once a file finds an entry
  // for the key, the tombstones covering it in that file and in every
  // candidate before it raise *covering -- also those whose filter said
  // "no", which says nothing about their range deletions -- and the entry
  // reads as deleted if older than *covering. A miss reads no tombstones.
  absl::Status Get(const ReadOptions& options, const LookupKey& key,
                   uint64_t hash, TableCache* cache, std::string* value,
                   GetResult* result, LocalStats* stats,
                   SequenceNumber* covering = nullptr) const;

  // Get for each undecided key of `keys` (sorted by user key under icmp;
  // duplicates allowed), in the order Get visits files for each: a key is done
  // at the first file that decides it. Each candidate file is opened and its
  // filter probed once for all the keys in its range (db/multi_get.h).
  // With range_dels, range tombstones are consulted as Get does with a
  // covering sequence, each key's in MultiGetKey::covering.
  void MultiGet(const ReadOptions& options, absl::Span<MultiGetKey* const> keys,
                TableCache* cache, LocalStats* stats, bool range_dels) const;

  // Adds one iterator per level-0 file and one concatenating iterator per
  // deeper level; their block reads are counted in stats, per level.
  void AddIterators(const ReadOptions& options, TableCache* cache,
                    StatisticsImpl* stats,
                    std::vector<std::unique_ptr<Iterator>>* iters) const;

  // True if some file at level overlaps [smallest, largest] (user keys;
  // nullopt = unbounded).
  bool OverlapInLevel(int level, std::optional<std::string_view> smallest,
                      std::optional<std::string_view> largest) const;
  // Files at level overlapping the user-key range [begin, end]. At level 0
  // the range grows to cover every transitively overlapping file.
  FileList GetOverlappingInputs(int level,
                                std::optional<std::string_view> begin,
                                std::optional<std::string_view> end) const;
  // The level a flushed memtable with this key range should go to.
  int PickLevelForMemTableOutput(std::string_view smallest,
                                 std::string_view largest,
                                 uint64_t max_file_size) const;

  // The first file at `level` >= 1 whose largest key is at or after ikey
  // (whose user key is user_key): FindFile, but searching the contiguous
  // 8-byte prefixes of the files' largest user keys first (bytewise
  // comparator only), so that a Get does not chase a pointer per step of
  // the binary search.
  size_t FindFileFast(int level, std::string_view user_key,
                      std::string_view ikey) const;
  // Fills largest_prefix from files; VersionSet::Finalize calls it.
  void BuildSearchIndex();

  int NumFiles(int level) const {
    return static_cast<int>(files[level].size());
  }
  uint64_t LevelBytes(int level) const;

  // Per level, UserKeyPrefix of each file's largest user key (file order);
  // empty unless icmp is bytewise.
  std::vector<uint64_t> largest_prefix[config::kNumLevels];
  // True if some file holds range tombstones (FileFacts). Set with
  // largest_prefix; while false, reads skip every tombstone check.
  bool has_range_deletions = false;

  // The pinned table of files[level][i], or null (not pinned, or a Version
  // made without a table cache).
  const Table* PinnedTable(int level, size_t i) const {
    const auto& p = pinned.level[level];
    return i < p.size() ? p[i].get() : nullptr;
  }

  // Set by VersionSet::Finalize: the level most in need of compaction and
  // its score (>= 1 means compaction is due; kNoLevel: no level can be).
  int compaction_level = config::kNoLevel;
  double compaction_score = -1;
};

// Index of the first file in a sorted, disjoint level whose largest key is
// >= ikey under icmp (files.size() if none).
size_t FindFile(const KeyComparator& icmp, const FileList& files,
                std::string_view ikey);

}  // namespace sift

#endif  // SIFT_DB_VERSION_H_
