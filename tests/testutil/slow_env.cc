#include "tests/testutil/slow_env.h"

#include <thread>

namespace sift::test {

absl::Status SlowSyncDirEnv::SyncDir(const std::string& dir) {
  sync_dirs_.fetch_add(1, std::memory_order_relaxed);
  std::this_thread::sleep_for(delay_);
  return EnvWrapper::SyncDir(dir);
}

}  // namespace sift::test
