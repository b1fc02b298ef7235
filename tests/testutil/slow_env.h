// SlowSyncDirEnv: an Env wrapper whose SyncDir sleeps before it syncs.
// VersionSet::LogAndApply releases the DB mutex for the directory sync and
// the MANIFEST write; a slow SyncDir widens that window so that tests of
// what other threads may do meanwhile (delete files, install filters,
// ingest) meet it often instead of once in a long while.

#ifndef SIFT_TESTS_TESTUTIL_SLOW_ENV_H_
#define SIFT_TESTS_TESTUTIL_SLOW_ENV_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "sift/env.h"

namespace sift::test {

class SlowSyncDirEnv : public EnvWrapper {
 public:
  // target must outlive this env.
  SlowSyncDirEnv(Env* target, std::chrono::microseconds delay)
      : EnvWrapper(target), delay_(delay) {}

  absl::Status SyncDir(const std::string& dir) override;

  // SyncDir calls so far (each one delayed).
  uint64_t sync_dirs() const {
    return sync_dirs_.load(std::memory_order_relaxed);
  }

 private:
  const std::chrono::microseconds delay_;
  std::atomic<uint64_t> sync_dirs_{0};
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_SLOW_ENV_H_
