#include "tests/testutil/gate_env.h"

#include <utility>

namespace sift::test {

void GateEnv::Arm(Op op, std::string path_substring, absl::Status result) {
  std::lock_guard<std::mutex> l(mu_);
  armed_ = true;
  op_ = op;
  substring_ = std::move(path_substring);
  result_ = std::move(result);
}

bool GateEnv::WaitUntilHeld(std::chrono::seconds limit) {
  std::unique_lock<std::mutex> l(mu_);
  return cv_.wait_for(l, limit, [this] { return held_ > released_; });
}

void GateEnv::Open() {
  std::lock_guard<std::mutex> l(mu_);
  if (held_ > released_) {
    released_ = held_;
  } else {
    armed_ = false;
  }
  cv_.notify_all();
}

std::string GateEnv::held_path() const {
  std::lock_guard<std::mutex> l(mu_);
  return held_path_;
}

absl::Status GateEnv::Pass(Op op, const std::string& path) {
  std::unique_lock<std::mutex> l(mu_);
  if (!armed_ || op != op_ || path.find(substring_) == std::string::npos) {
    return absl::OkStatus();
  }
  armed_ = false;
  const absl::Status result = result_;
  const uint64_t ticket = ++held_;
  held_path_ = path;
  cv_.notify_all();
  cv_.wait(l, [&] { return released_ >= ticket; });
  return result;
}

absl::StatusOr<std::unique_ptr<WritableFile>> GateEnv::NewWritableFile(
    const std::string& path) {
  absl::Status s = Pass(Op::kNewWritableFile, path);
  if (!s.ok()) return s;
  return EnvWrapper::NewWritableFile(path);
}

absl::Status GateEnv::RemoveFile(const std::string& path) {
  absl::Status s = Pass(Op::kRemoveFile, path);
  if (!s.ok()) return s;
  return EnvWrapper::RemoveFile(path);
}

absl::Status GateEnv::SyncDir(const std::string& dir) {
  absl::Status s = Pass(Op::kSyncDir, dir);
  if (!s.ok()) return s;
  return EnvWrapper::SyncDir(dir);
}

}  // namespace sift::test
