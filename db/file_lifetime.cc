#include "db/file_lifetime.h"

#include <utility>

namespace sift {

PendingOutput::PendingOutput(PendingOutput&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      number_(std::exchange(other.number_, 0)) {}

PendingOutput& PendingOutput::operator=(PendingOutput&& other) noexcept {
  if (this != &other) {
    Release();
    owner_ = std::exchange(other.owner_, nullptr);
    number_ = std::exchange(other.number_, 0);
  }
  return *this;
}

void PendingOutput::Release() {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->Release(number_);
}

PendingOutput PendingOutputs::Reserve(uint64_t number) {
  MutexLock l(&mu_);
  numbers_.insert(number);
  return PendingOutput(this, number);
}

void PendingOutputs::Release(uint64_t number) {
  MutexLock l(&mu_);
  auto it = numbers_.find(number);
  if (it != numbers_.end()) numbers_.erase(it);
}

void PendingOutputs::AddTo(std::set<uint64_t>* numbers) const {
  MutexLock l(&mu_);
  numbers->insert(numbers_.begin(), numbers_.end());
}

size_t PendingOutputs::size() const {
  MutexLock l(&mu_);
  return numbers_.size();
}

bool LiveFiles::Obsolete(uint64_t number, FileType type) const {
  if (number >= next_file_number) return false;  // made after the capture
  switch (type) {
    case FileType::kLog:
      // A log is needed until a durable MANIFEST record's log number
      // passes it, and while a checkpoint copies it.
      return number < log_number && number != current_log &&
             number < pinned_logs;
    case FileType::kManifest:
      return number < durable_manifest;
    case FileType::kTable:
    case FileType::kFilter:
      return files.count(number) == 0;
    case FileType::kTemp:
      return number < manifest;
    case FileType::kCurrent:
    case FileType::kLock:
      return false;
  }
  return false;
}

}  // namespace sift
