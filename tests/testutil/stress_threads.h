// The multi-threaded variant of the stress test (tests/stress_threads_test.cc):
// writers (batches, DeleteRanges, ingested files), readers (Gets, snapshots,
// iterators), flushes, compactions, RebuildFilters and checkpoints at once
// on one DB,
// checked against a shared expected state, in rounds that end with a clean
// reopen under changed options or a simulated machine crash.
//
// The expected state is exact per key because each writer owns a disjoint
// partition of the keys (RocksDB's db_stress does the same). A key's
// versions are numbered 1, 2, ... by its writer, and version v's content is
// a pure function of (key, v) (a Put of ValueOf, or a Delete when
// IsDeleteVersion), so a reader needs only two numbers per key: the version
// committed (acknowledged) before its read began, and the version pending
// (announced before the DB write starts) after it ended. A Get, a snapshot
// or an iterator must show, for every key, the content of some version in
// that window, and a snapshot or an iterator the same one on every read.
//
// At the end of a round the threads stop and each partition's
// ExpectedState checks the DB: after a clean reopen everything
// acknowledged, after a crash every synced write and a prefix of each
// writer's others.

#ifndef SIFT_TESTS_TESTUTIL_STRESS_THREADS_H_
#define SIFT_TESTS_TESTUTIL_STRESS_THREADS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/options.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/fault_env.h"
#include "util/random.h"

namespace sift::test {

struct ThreadedStressSize {
  int writers = 3;
  int readers = 2;
  int keys_per_writer = 200;
  int writes_per_round = 400;  // per writer
  int rounds = 6;
};

struct ThreadedStressCounts {
  uint64_t rounds = 0, ops = 0, writes_acked = 0, crashes = 0, reopens = 0;
  // Unsynced writes a crash dropped (allowed); losing an acknowledged synced
  // write fails the run instead.
  uint64_t writes_dropped = 0;
};

class ThreadedStressRunner {
 public:
  // A fresh in-memory file system behind a FaultInjectionEnv; options gives
  // the sizes to start with; seed decides every thread's choices (the
  // interleaving is the scheduler's).
  ThreadedStressRunner(uint64_t seed, const Options& options,
                       const ThreadedStressSize& size);
  ~ThreadedStressRunner();

  // All rounds; the first disagreement, naming the thread, key, what it
  // read and the versions that were possible.
  absl::Status Run();
  const ThreadedStressCounts& counts() const { return counts_; }

 private:
  struct Partition;  // one writer's keys
  struct View;       // per-key version windows around a read

  // Runs every thread to the end of the round, then checks the DB after a
  // crash or a reopen (drawn from seed).
  absl::Status Round(int round);
  absl::Status EndRound(int round, uint64_t seed);

  // Writes (single keys and batches), DeleteRanges and ingested files of
  // the partition's keys.
  void Writer(Partition* p, Random* rnd);
  void Reader(int id, Random* rnd);
  // Flushes, compactions, RebuildFilters and checkpoints, one per
  // kWritesPerMaintenance writes.
  void Maintainer(Random* rnd);

  // The owner's write steps. Announce gives each key its next version (a
  // Delete version if deletes) and returns the operations;
  // Acknowledge records them as written.
  WriteOps Announce(Partition* p, const std::vector<int>& keys, bool deletes);
  void Acknowledge(Partition* p, const std::vector<int>& keys, WriteOps ops,
                   bool durable);
  absl::Status WriteKeys(Partition* p, const std::vector<int>& keys, bool sync);
  absl::Status DeleteKeyRange(Partition* p, int first, int end, bool sync);
  // keys ascending; move: IngestOptions::move_files.
  absl::Status IngestKeys(Partition* p, const std::vector<int>& keys,
                          bool move);
  // Makes a checkpoint, opens it with paranoid checks and checks every key
  // against the versions possible during the call; then deletes it.
  absl::Status CheckCheckpoint();

  // One reader step each; an error describes the disagreement.
  // Creates a column family, writes and reads it, drops it under an open
  // iterator.
  absl::Status CheckColumnFamilyChurn(Random* rnd);
  absl::Status CheckGet(Partition* p, int i);
  absl::Status CheckSnapshotGets(Partition* p, uint64_t seed);
  absl::Status CheckScan(Partition* p, bool forward);
  absl::Status CheckSeekWalk(Partition* p, int from, int steps, bool forward);
  // The keys of p in [first, last] an iterator walked (seen, in order)
  // against view: every key seen in the window, every key skipped possibly
  // absent.
  absl::Status CheckRange(
      Partition* p, const View& view, int first, int last,
      const std::vector<std::pair<int, std::string>>& seen) const;

  // Records the first error and stops every thread.
  void Fail(absl::Status s);
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }

  absl::Status Open();
  void Close();
  // After the DB came back with some prefix of each writer's writes: the
  // versions every key now has.
  absl::Status ResetVersions(Partition* p);

  const uint64_t seed_;
  const ThreadedStressSize size_;
  std::unique_ptr<Env> base_;
  std::unique_ptr<FaultInjectionEnv> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::vector<std::unique_ptr<Partition>> partitions_;

  std::atomic<bool> stop_{false};
  std::atomic<int> writers_done_{0};
  std::atomic<uint64_t> ops_{0}, writes_acked_{0};
  absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  ThreadedStressCounts counts_;
  int checkpoints_ = 0;  // the maintenance thread's
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_STRESS_THREADS_H_
