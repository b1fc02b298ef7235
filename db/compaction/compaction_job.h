// Running one compaction: RunCompaction merges a Compaction's inputs into
// new files (the map of compaction: db/compaction/compaction.h).

#ifndef SIFT_DB_COMPACTION_COMPACTION_JOB_H_
#define SIFT_DB_COMPACTION_COMPACTION_JOB_H_

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "db/compaction/compaction.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "sift/env.h"
#include "sift/options.h"

namespace sift {

// What RunCompaction needs from the DB.
struct CompactionContext {
  std::string dbname;
  Options options;  // the options in force: filters are built with these
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

// Merges c's inputs into new files, opens each output through the table
// cache, and records the outputs (with their facts) and input deletions in
// c->edit(). On error the outputs written so far are evicted and deleted.
// Runs without the DB mutex.
absl::Status RunCompaction(Compaction* c, const CompactionContext& ctx);

}  // namespace sift

#endif  // SIFT_DB_COMPACTION_COMPACTION_JOB_H_
