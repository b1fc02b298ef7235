// GateEnv: an Env wrapper that stops one chosen call at a gate until the
// test opens it. Tests use it to make an interleaving of the DB's threads
// certain rather than likely: "while the compaction is writing its output,
// a write fails", "while a file is being deleted, a Put completes".
#ifndef SIFT_TESTS_TESTUTIL_GATE_ENV_H_
#define SIFT_TESTS_TESTUTIL_GATE_ENV_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "sift/env.h"

namespace sift::test {

class GateEnv : public EnvWrapper {
 public:
  enum class Op { kNewWritableFile, kRemoveFile, kSyncDir };

  explicit GateEnv(Env* target) : EnvWrapper(target) {}

  // The next call of op whose path contains path_substring waits at the
  // gate. When the gate opens, it returns `result` if that is an error
  // (doing nothing), else it goes on to the target. A call caught by the
  // rule uses it up. Arming again while a call is held sets a new rule
  // for later calls.
  void Arm(Op op, std::string path_substring,
           absl::Status result = absl::OkStatus());

  // Waits until a call is held at the gate; false if that did not happen
  // within `limit` (the test then fails instead of hanging).
  bool WaitUntilHeld(std::chrono::seconds limit = std::chrono::seconds(60));

  // Lets the held calls go on; with none held, drops the armed rule.
  void Open();

  // The path of the call held last.
  std::string held_path() const;

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::Status RemoveFile(const std::string& path) override;
  absl::Status SyncDir(const std::string& dir) override;

 private:
  // Holds the call if it is the armed one; returns what it should return
  // instead of going on to the target (OK: go on).
  absl::Status Pass(Op op, const std::string& path);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  Op op_ = Op::kNewWritableFile;
  std::string substring_;
  absl::Status result_;
  // Calls caught so far, and how many of them were let go.
  uint64_t held_ = 0;
  uint64_t released_ = 0;
  std::string held_path_;
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_GATE_ENV_H_
