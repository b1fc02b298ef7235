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

// One key of a point read on its way through the read view: DBImpl::Get
// asks with one, DBImpl::MultiGet with a batch, and both go the same way
// -- the memtables, then Version::Get or Version::MultiGet, which ask each
// file through one probe core (db/version.cc, PointLookup).
struct KeyLookup {
  std::string_view user_key;
  uint64_t prefix = 0;  // UserKeyPrefix(user_key): orders most bytewise pairs
  // user_key at the read's sequence, as a table lookup key (LookupKey's
  // internal_key).
  std::string_view internal_key;
  uint64_t hash = 0;  // KeyHash(user_key), computed once
  std::string* value = nullptr;
  absl::Status* status = nullptr;  // set only on an error
  // Found, deleted or failed: no later source is asked.
  bool done = false;
  bool found = false;
  // The newest visible range tombstone covering the key among the sources
  // asked so far (0: none); an entry found older than it is deleted. Kept
  // only when the view holds range tombstones (ReadContext::range_dels).
  SequenceNumber covering = 0;
};

// User-key order of KeyLookups under icmp. For the bytewise comparator the
// stored prefixes decide most pairs inline (a sort of a batch makes many
// comparisons per key).
struct KeyLookupLess {
  const KeyComparator* icmp;
  bool operator()(const KeyLookup* a, const KeyLookup* b) const {
    if (!icmp->bytewise()) {
      return icmp->CompareUser(a->user_key, b->user_key) < 0;
    }
    if (a->prefix != b->prefix) return a->prefix < b->prefix;
    return a->user_key < b->user_key;
  }
};

// What every file asked by one point read shares.
struct ReadContext {
  const ReadOptions& options;
  TableCache* cache;
  LocalStats* stats;
  // Whether the read view holds range tombstones anywhere (memtables or
  // files). False, the common case: no tombstone is ever looked at.
  bool range_dels;
};

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

  // Looks key (not done) up file by file: level 0 newest first, then one
  // candidate per deeper level. Each candidate is range-checked, then the
  // table asks its filter with the key's hash; only on "maybe" is a data
  // block read. The first file holding an entry decides: key->found if a
  // value, else deleted; an error sets *key->status. With range_dels,
  // once a file finds an entry, the tombstones covering the key in that
  // file and in every candidate before it raise key->covering -- also
  // those whose filter said "no", which says nothing about their range
  // deletions -- and the entry reads as deleted if older. A miss reads no
  // tombstones.
  void Get(const ReadContext& ctx, KeyLookup* key) const;

  // Get for each undecided key of `keys` (sorted by KeyLookupLess;
  // duplicates allowed), visiting files in the order Get does for each: a
  // key is done at the first file that decides it. It goes a level at a
  // time: it requests the filter cache line of every key in every pinned
  // file of the level, then asks each file once for all its keys, so the
  // keys the filter lets through share each data block they need.
  void MultiGet(const ReadContext& ctx,
                absl::Span<KeyLookup* const> keys) const;

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
