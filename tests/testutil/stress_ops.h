// The metamorphic stress test's pieces (tests/stress_test.cc): operations
// as data, a seeded generator of operation sequences, and a runner that
// applies a sequence to a DB under one configuration and checks every
// answer against a model.
//
// Operations are data, decided by the generator before anything runs, so
// one sequence runs under several configurations, a failure replays from
// its seed, and a minimizer can drop operations and rerun.
//
// The model is a std::map plus snapshots' copies. Crashes (FaultInjectionEnv
// drops what was not synced) and injected write failures make some writes'
// fate unknown; the runner then checks the DB against an ExpectedState
// (every synced or otherwise durable write present, a prefix of the rest,
// no hole, no torn batch) and takes what it found as the model again.

#ifndef SIFT_TESTS_TESTUTIL_STRESS_OPS_H_
#define SIFT_TESTS_TESTUTIL_STRESS_OPS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/model_checks.h"

namespace sift::test {

struct StressOp {
  enum Kind : uint8_t {
    kWrite,     // batch (one entry: a Put or Delete), sync or not
    kGet,       // key, through snapshot n % live (if flag)
    kScan,      // whole DB, forward if flag
    kSeekWalk,  // Seek(key), then n random steps (seeded by n)
    kSnapshot,  // take one
    kRelease,   // release snapshot n % live
    kFlush,     //
    kCompact,   // [key, key2], "" = unbounded
    kReopen,    // close, reopen with options drawn from seed n
    kCrash,     // machine crash: unsynced data dropped, reopen
    kFault,     // inject fault n, write until it fails, recover
    kMultiGet,  // keys (repeats allowed), through snapshot n % live (if flag)
    kDeleteRange,  // [key, key2), sync or not
  };
  Kind kind;
  std::string key, key2;
  WriteOps batch;
  std::vector<std::string> keys;  // kMultiGet
  bool sync = false;
  bool flag = false;  // kFault: recover by Resume (else reopen)
  uint32_t n = 0;

  std::string ToString() const;
};

// A deterministic sequence of n operations from seed.
std::vector<StressOp> GenerateStressOps(uint64_t seed, int n);

struct StressCounts {
  uint64_t ops = 0, writes_acked = 0, crashes = 0, faults = 0, reopens = 0;
  // Writes a crash or failure was allowed to drop and did: never synced
  // (or never acknowledged) ones. An acknowledged synced write lost fails
  // the run instead.
  uint64_t writes_dropped = 0;
};

// Sets every option a reopen may change (filter fp chance and layout,
// compression, memtable, file and block sizes, max_open_files, level-0
// trigger, rate limiter, filter budget) from seed; the rest of *options
// stays.
void DrawReopenOptions(uint32_t seed, Options* options);

class StressRunner {
 public:
  // Runs on a fresh in-memory file system behind a FaultInjectionEnv;
  // options gives the sizes and settings to start with.
  explicit StressRunner(const Options& options);
  ~StressRunner();

  // Applies ops in order; the first disagreement with the model, as
  // "op <i> (<op>): <what>".
  absl::Status Run(const std::vector<StressOp>& ops);
  const StressCounts& counts() const { return counts_; }

 private:
  using Model = ModelMap;
  struct Snap {
    const Snapshot* snapshot;
    Model model;
  };

  absl::Status Apply(const StressOp& op);
  absl::Status Write(const WriteOps& ops, bool sync);
  absl::Status DeleteRange(const StressOp& op);
  absl::Status Get(const StressOp& op);
  absl::Status MultiGet(const StressOp& op);
  static absl::Status CheckRead(const Model& m, const std::string& key,
                                const absl::Status& s, const std::string& v);
  absl::Status Scan(bool forward);
  absl::Status SeekWalk(const StressOp& op);
  absl::Status Reopen(uint32_t seed);
  absl::Status Crash();
  absl::Status Fault(const StressOp& op);
  absl::Status Open();
  void Close();
  // Checks the DB against expected_ and takes what it holds as the model.
  absl::Status Settle(const char* after);

  std::unique_ptr<Env> base_;
  std::unique_ptr<FaultInjectionEnv> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  Model model_;
  ExpectedState expected_;
  std::vector<Snap> snaps_;
  StressCounts counts_;
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_STRESS_OPS_H_
