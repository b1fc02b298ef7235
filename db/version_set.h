// Version: one immutable snapshot of which tables exist at which level.
// VersionSet: the current Version, the counters (file numbers, last
// sequence, log number), and the MANIFEST that makes them durable.
//
// Readers hold a std::shared_ptr<const Version> and read without any lock;
// the background thread builds new Versions from VersionEdits. A file is
// live while some Version (current, or held by an iterator) names it.

#ifndef SIFT_DB_VERSION_SET_H_
#define SIFT_DB_VERSION_SET_H_

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "db/dbformat.h"
#include "db/log_writer.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "util/mutex.h"

namespace sift {

class Compaction;
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

class VersionSet {
 public:
  VersionSet(std::string dbname, const Options& options,
             TableCache* table_cache, Env* env);
  ~VersionSet();

  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Creates the MANIFEST and CURRENT of a new, empty database.
  absl::Status CreateNew();
  // Reads CURRENT and the MANIFEST it names; opens every table (checking
  // it exists and its size matches) and fills the facts of files recorded
  // without them (format 1) from their properties. DataLoss names the file
  // and offset.
  absl::Status Recover();

  // Applies edit to the current version, writes it to the MANIFEST (a new
  // one, with a full snapshot, the first time after Recover/CreateNew),
  // syncs, and installs the result as current. The mutex is released while
  // writing. REQUIRES: *mu held; only one caller at a time (the background
  // thread, or Open).
  absl::Status LogAndApply(VersionEdit* edit, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  std::shared_ptr<const Version> current() const { return current_; }

  uint64_t NewFileNumber() { return next_file_number_++; }
  // The number NewFileNumber would give next; every file made later has a
  // number at least this.
  uint64_t next_file_number() const { return next_file_number_; }
  void MarkFileNumberUsed(uint64_t n) {
    if (next_file_number_ <= n) next_file_number_ = n + 1;
  }
  uint64_t manifest_file_number() const { return manifest_file_number_; }
  // The MANIFEST that CURRENT names on disk now.
  uint64_t durable_manifest_number() const { return durable_manifest_number_; }
  uint64_t log_number() const { return log_number_; }

  SequenceNumber LastSequence() const {
    return last_sequence_.load(std::memory_order_acquire);
  }
  void SetLastSequence(SequenceNumber s) {
    last_sequence_.store(s, std::memory_order_release);
  }

  // Files named by any live Version: tables and their replacement filters.
  void AddLiveFiles(std::set<uint64_t>* live);

  // Compaction picking (version_set_compaction.cc). Null when nothing is due.
  bool NeedsCompaction() const { return current_->compaction_score >= 1; }
  std::unique_ptr<Compaction> PickCompaction();
  // A compaction of [begin, end] (user keys) from level into level + 1;
  // null if no file at level overlaps. At level 0 only files numbered
  // below max_file_number count (older than the manual compaction: newer
  // level-0 files hold newer data, so leaving them above is safe).
  // REQUIRES: level < kNumLevels - 1.
  std::unique_ptr<Compaction> CompactRange(
      int level, std::optional<std::string_view> begin,
      std::optional<std::string_view> end,
      uint64_t max_file_number = UINT64_MAX);
  // A compaction that rewrites one file in place at its level (rebuilding
  // its filter with the current settings, dropping what is obsolete).
  std::unique_ptr<Compaction> RewriteFile(int level,
                                          std::shared_ptr<FileMetaData> f);

  // Bytes a level may hold before it is due for compaction (level >= 1).
  uint64_t MaxBytesForLevel(int level) const;
  uint64_t max_file_size() const { return options_.max_file_size; }

  std::string LevelSummary() const;

 private:
  class Builder;
  friend class Compaction;

  void Finalize(Version* v) const;
  void AppendVersion(std::shared_ptr<Version> v);
  absl::Status WriteSnapshot(log::Writer* log) const;
  absl::Status ReadManifest(const std::string& name, VersionEdit* merged,
                            Builder* builder);
  void SetupOtherInputs(Compaction* c);

  const std::string dbname_;
  const Options options_;
  const KeyComparator icmp_;  // from options_.comparator
  TableCache* const table_cache_;
  Env* const env_;

  // The fields below are guarded by the DB mutex (DBImpl::mu_, the `mu`
  // of LogAndApply), except last_sequence_, which is atomic so readers take
  // their sequence without it. They carry no ABSL_GUARDED_BY: the mutex is
  // DBImpl's, and clang's analysis cannot tell that DBImpl's `mu_` and a
  // pointer to it kept here are one lock, so each of the ~30 calls from
  // DBImpl (all made with mu_ held, which DBImpl's own annotations check)
  // would need an assertion that checks nothing at run time.
  uint64_t next_file_number_ = 2;
  uint64_t manifest_file_number_ = 0;
  uint64_t durable_manifest_number_ = 0;
  uint64_t log_number_ = 0;
  std::atomic<SequenceNumber> last_sequence_{0};

  std::unique_ptr<WritableFile> manifest_file_;
  std::unique_ptr<log::Writer> manifest_log_;

  std::shared_ptr<const Version> current_;
  std::list<std::weak_ptr<const Version>> all_versions_;
  // Per level: where the next compaction of that level starts (round-robin
  // over the key space); an internal key, empty = from the start.
  std::string compact_pointer_[config::kNumLevels];
};

}  // namespace sift

#endif  // SIFT_DB_VERSION_SET_H_
