// ColumnFamilyData: one column family's state (docs/DESIGN.md, "Column
// families"): its options, its table cache, its memtables and read view,
// and its tree of Versions with the compaction state that goes with it --
// the compaction pointers and the work in flight (the picker is
// db/compaction/compaction_picker.cc). What the families share -- the WAL,
// the sequence, the file numbers and the MANIFEST -- is the DB's
// (db/version_set.h). Every member is guarded by the DB mutex
// (DBImpl::mu_) but for the read view, which readers take without it.

#ifndef SIFT_DB_COLUMN_FAMILY_H_
#define SIFT_DB_COLUMN_FAMILY_H_

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "db/read_view.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "db/version.h"
#include "sift/column_family.h"
#include "sift/options.h"

namespace sift {

class Compaction;

// Where work in flight writes: a level and the user keys its outputs span.
struct OutputRange {
  int level = 0;
  std::string smallest, largest;

  // Whether user keys [lo, hi] meet this range.
  bool Overlaps(const KeyComparator& icmp, std::string_view lo,
                std::string_view hi) const {
    return icmp.CompareUser(lo, largest) <= 0 &&
           icmp.CompareUser(hi, smallest) >= 0;
  }
};

class ColumnFamilyData {
 public:
  // options: the DB's options with this family's ColumnFamilyOptions.
  ColumnFamilyData(uint32_t id, std::string name, const Options& options,
                   std::unique_ptr<TableCache> table_cache);
  ~ColumnFamilyData();
  ColumnFamilyData(const ColumnFamilyData&) = delete;
  ColumnFamilyData& operator=(const ColumnFamilyData&) = delete;

  uint32_t id() const { return id_; }
  const std::string& name() const { return name_; }
  const Options& options() const { return options_; }
  const KeyComparator& icmp() const { return icmp_; }
  TableCache* table_cache() const { return table_cache_.get(); }
  // What point reads of this family count (filters, blocks, keys read):
  // GetProperty(handle, "sift.filter-stats") shows them; the DB's
  // statistics sum every family's (DBImpl::GetStatistics).
  StatisticsImpl* read_stats() { return &read_stats_; }

  // Set once DropColumnFamily has recorded the drop: the family takes no
  // more reads or writes, and its files go once no Version names them.
  bool dropped() const { return dropped_.load(std::memory_order_acquire); }
  void SetDropped() { dropped_.store(true, std::memory_order_release); }

  // ---- Versions (installed by VersionSet, which writes the MANIFEST).
  std::shared_ptr<const Version> current() const { return current_; }
  // Makes v current (checking its invariants in the check mode) and
  // scores its levels for compaction.
  void AppendVersion(std::shared_ptr<Version> v);
  // Drops every file from the tree (a dropped family): older Versions
  // keep theirs while an iterator holds them.
  void ClearVersion();
  // Files named by any live Version: tables and their replacement filters.
  void AddLiveFiles(std::set<uint64_t>* live);
  const std::string& compact_pointer(int level) const {
    return compact_pointer_[level];
  }
  void SetCompactPointer(int level, std::string key) {
    compact_pointer_[level] = std::move(key);
  }

  // ---- Compaction picking (db/compaction/compaction_picker.cc).
  bool NeedsCompaction() const { return current_->compaction_score >= 1; }
  // The due compaction that conflicts with no work in flight (below), from
  // the levels by score, highest first; null when none is due or every
  // due one conflicts. The result is registered as running.
  std::unique_ptr<Compaction> PickCompaction();

  // Work in flight (docs/DESIGN.md, "Background work"). A compaction is
  // running from its pick (PickCompaction, CompactRange and RewriteFile
  // register every one they return) until RemoveRunning, after its
  // install. A flush's table is in flight from its placement until its
  // install. No two conflict: the picker skips a compaction that shares
  // an input file with a running one, is a second one from level 0, or
  // writes user keys a running one writes at the same level -- or, for a
  // flush in flight, at its level or above (older data must stay below
  // newer). A flush places its table above every running compaction
  // writing its keys (FlushLevel).
  void RemoveRunning(const Compaction& c);
  size_t NumRunning() const { return running_.size(); }
  void SetFlushInFlight(std::optional<OutputRange> r) {
    flush_in_flight_ = std::move(r);
  }
  // The level a flushed table of user keys [smallest, largest] goes to:
  // `want` (from Version::PickLevelForMemTableOutput), raised above every
  // running compaction that writes those keys at `want` or above.
  int FlushLevel(int want, std::string_view smallest,
                 std::string_view largest) const;
  // A compaction of [begin, end] (user keys) from level into level + 1;
  // null if no file at level overlaps. At level 0 only files numbered
  // below max_file_number count (older than the manual compaction: newer
  // level-0 files hold newer data, so leaving them above is safe).
  // Registered as running, as PickCompaction's. REQUIRES: level <
  // kNumLevels - 1.
  std::unique_ptr<Compaction> CompactRange(
      int level, std::optional<std::string_view> begin,
      std::optional<std::string_view> end,
      uint64_t max_file_number = UINT64_MAX);
  // A compaction that rewrites one file in place at its level (rebuilding
  // its filter with the current settings, dropping what is obsolete);
  // registered as running.
  std::unique_ptr<Compaction> RewriteFile(int level,
                                          std::shared_ptr<FileMetaData> f);

  // Bytes a level may hold before it is due for compaction (level >= 1).
  uint64_t MaxBytesForLevel(int level) const;
  std::string LevelSummary() const;

  // ---- Memtables, DBImpl's (db/db_impl/db_impl_write.cc switches them,
  // db/db_impl/db_impl_background.cc flushes imm).
  std::shared_ptr<MemTable> mem;
  std::shared_ptr<MemTable> imm;  // null when no flush is pending
  // What readers of this family take (db/read_view.h).
  ReadViewCache views;

 private:
  void Finalize(Version* v) const;
  // In the invariant-check mode (util/invariant.h), aborts unless v keeps
  // Version's promises (docs/DESIGN.md, "Invariants"): every file has its
  // facts and smallest <= largest; level 0 is ordered newest (highest
  // number) first; levels >= 1 are sorted and disjoint (internal keys).
  void CheckInvariants(const Version& v) const;
  // Fills c's output-level inputs and grandparents from its inputs(0).
  void SetupOtherInputs(Compaction* c);
  // The next compaction of c's level starts after c's end.
  void AdvanceCompactPointer(Compaction* c);
  // A due compaction of `level` that conflicts with nothing in flight.
  std::unique_ptr<Compaction> PickAt(int level);
  // A new compaction of this family at current_.
  std::unique_ptr<Compaction> NewCompaction(int level, int output_level);
  bool ConflictsWithRunning(const Compaction& c) const;
  // Level 0: files / level0_compaction_trigger; deeper: bytes / target.
  // skip_busy: without the files running compactions take.
  double LevelScore(const Version& v, int level, bool skip_busy = false) const;
  bool IsBusy(uint64_t file_number) const;
  void AddRunning(const Compaction& c);

  const uint32_t id_;
  const std::string name_;
  const Options options_;
  const KeyComparator icmp_;  // from options_.comparator
  const std::unique_ptr<TableCache> table_cache_;
  StatisticsImpl read_stats_;
  std::atomic<bool> dropped_{false};

  std::shared_ptr<const Version> current_;
  std::list<std::weak_ptr<const Version>> all_versions_;
  // Per level: where the next compaction of that level starts (round-robin
  // over the key space); an internal key, empty = from the start.
  std::string compact_pointer_[config::kNumLevels];

  // Work in flight (AddRunning): each running compaction's levels, input
  // files and output range.
  struct Running {
    const Compaction* c;
    int level;
    OutputRange output;
    std::vector<uint64_t> inputs;
  };
  std::vector<Running> running_;
  std::optional<OutputRange> flush_in_flight_;
};

// The public handle on a family (sift/column_family.h): names it for one
// DB. It keeps the family's state alive, so it stays valid for GetName
// after a drop.
class ColumnFamilyHandleImpl final : public ColumnFamilyHandle {
 public:
  ColumnFamilyHandleImpl(std::shared_ptr<ColumnFamilyData> cfd, const void* db)
      : cfd_(std::move(cfd)), db_(db) {}
  ~ColumnFamilyHandleImpl() override = default;
  const std::string& GetName() const override { return cfd_->name(); }
  uint32_t GetID() const override { return cfd_->id(); }

  ColumnFamilyData* cfd() const { return cfd_.get(); }
  const std::shared_ptr<ColumnFamilyData>& shared() const { return cfd_; }
  // The DB the handle came from.
  const void* db() const { return db_; }

 private:
  const std::shared_ptr<ColumnFamilyData> cfd_;
  const void* const db_;
};

}  // namespace sift

#endif  // SIFT_DB_COLUMN_FAMILY_H_
