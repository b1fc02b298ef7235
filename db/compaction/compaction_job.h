// Running one compaction: RunCompaction merges a Compaction's inputs into
// new files (the map of compaction: db/compaction/compaction.h).

#ifndef SIFT_DB_COMPACTION_COMPACTION_JOB_H_
#define SIFT_DB_COMPACTION_COMPACTION_JOB_H_

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "db/builder.h"
#include "db/compaction/compaction.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "sift/env.h"
#include "sift/options.h"

namespace sift {

// What RunCompaction needs from the DB.
struct CompactionContext {
  std::string dbname;
  Options options;     // the options in force: filters are built with these
  TableFamily family;  // the family compacted, recorded in every output
  Env* env = nullptr;
  TableCache* table_cache = nullptr;
  // Sequences of live snapshots, ascending; the latest state is always
  // visible and need not be listed.
  std::vector<SequenceNumber> snapshots;
  // Allocates a file number and protects it from deletion until the
  // compaction is installed (called with the DB mutex not held).
  std::function<uint64_t()> new_file_number;
  StatisticsImpl* stats = nullptr;
  // When *memtable_waiting turns true, RunCompaction calls flush_memtable
  // (without the DB mutex) before it goes on, as LevelDB does: a full
  // memtable must not wait for a long compaction, or writers stall. A
  // flush error ends the compaction with it.
  const std::atomic<bool>* memtable_waiting = nullptr;
  std::function<absl::Status()> flush_memtable;
};

// Why a compaction drops an input entry; kKeep: it is written out.
enum class DropReason {
  kKeep,
  kShadowed,           // a newer entry of its key hides it from every reader
  kTombstoneAtBottom,  // a point tombstone every reader sees, nothing below
  kRangeDeleted,       // a range tombstone hides it from every reader
};

// The rules that drop entries, one entry at a time in the order a
// compaction reads them (user key ascending, then sequence descending).
// They keep the state of the current key's run: the sequence of the entry
// before, which bounds the snapshots that can see this one.
class DropRules {
 public:
  // snapshots: the sequences of live snapshots, ascending (the latest
  // state is always seen). Must outlive the rules.
  explicit DropRules(const std::vector<SequenceNumber>& snapshots);

  // entry: the next input entry; new_key: it is the first of its user key.
  // base_level() says whether no level below the output holds the key; it
  // is asked only for a point tombstone every reader sees. range_deleted()
  // says whether a range tombstone hides the entry from every reader; it is
  // asked only when the other rules keep the entry.
  DropReason Next(const ParsedInternalKey& entry, bool new_key,
                  absl::FunctionRef<bool()> base_level,
                  absl::FunctionRef<bool()> range_deleted);

 private:
  // Whether a snapshot (or the latest state) sees sequence seq as the
  // newest entry of its key: seq <= S < newer_seq_.
  bool VisibleToSomeSnapshot(SequenceNumber seq) const;

  const std::vector<SequenceNumber>& snapshots_;
  // Anything at or below it is seen by every reader.
  const SequenceNumber oldest_snapshot_;
  // The sequence of the key's entry before this one; above every sequence
  // for the first.
  uint64_t newer_seq_ = UINT64_MAX;
};

// Merges c's inputs into new files, opens each output through the table
// cache, and records the outputs (with their facts) and input deletions in
// c->edit(). On error the outputs written so far are evicted and deleted.
// Runs without the DB mutex.
absl::Status RunCompaction(Compaction* c, const CompactionContext& ctx);

}  // namespace sift

#endif  // SIFT_DB_COMPACTION_COMPACTION_JOB_H_
