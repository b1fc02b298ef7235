#include "tests/testutil/counting_env.h"

#include <utility>

#include "util/status_macros.h"

namespace sift {
namespace {

class CountingRandomAccessFile final : public RandomAccessFile {
 public:
  CountingRandomAccessFile(std::unique_ptr<RandomAccessFile> file,
                           std::shared_ptr<CountingEnv::Counters> total,
                           std::shared_ptr<CountingEnv::Counters> mine)
      : file_(std::move(file)),
        total_(std::move(total)),
        mine_(std::move(mine)) {}

  absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                    char* scratch) const override {
    absl::Status s = file_->Read(offset, n, result, scratch);
    const uint64_t bytes = s.ok() ? result->size() : 0;
    for (CountingEnv::Counters* c : {total_.get(), mine_.get()}) {
      c->reads.fetch_add(1, std::memory_order_relaxed);
      c->bytes.fetch_add(bytes, std::memory_order_relaxed);
    }
    return s;
  }

 private:
  const std::unique_ptr<RandomAccessFile> file_;
  const std::shared_ptr<CountingEnv::Counters> total_;
  const std::shared_ptr<CountingEnv::Counters> mine_;
};

}  // namespace

CountingEnv::CountingEnv(Env* target) : EnvWrapper(target) {}
CountingEnv::~CountingEnv() = default;

absl::StatusOr<std::unique_ptr<RandomAccessFile>>
CountingEnv::NewRandomAccessFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   target()->NewRandomAccessFile(path));
  std::shared_ptr<Counters> mine;
  {
    MutexLock l(&mu_);
    std::shared_ptr<Counters>& entry = by_path_[path];
    if (entry == nullptr) entry = std::make_shared<Counters>();
    mine = entry;
  }
  total_->opens.fetch_add(1, std::memory_order_relaxed);
  mine->opens.fetch_add(1, std::memory_order_relaxed);
  return std::make_unique<CountingRandomAccessFile>(std::move(file), total_,
                                                    std::move(mine));
}

uint64_t CountingEnv::reads() const {
  return total_->reads.load(std::memory_order_relaxed);
}

uint64_t CountingEnv::bytes_read() const {
  return total_->bytes.load(std::memory_order_relaxed);
}

uint64_t CountingEnv::Sum(std::string_view path_substring,
                          std::atomic<uint64_t> Counters::*field) const {
  MutexLock l(&mu_);
  uint64_t sum = 0;
  for (const auto& [path, c] : by_path_) {
    if (path.find(path_substring) != std::string::npos) {
      sum += ((*c).*field).load(std::memory_order_relaxed);
    }
  }
  return sum;
}

uint64_t CountingEnv::ReadsOf(std::string_view path_substring) const {
  return Sum(path_substring, &Counters::reads);
}

uint64_t CountingEnv::BytesReadOf(std::string_view path_substring) const {
  return Sum(path_substring, &Counters::bytes);
}

uint64_t CountingEnv::OpensOf(std::string_view path_substring) const {
  return Sum(path_substring, &Counters::opens);
}

void CountingEnv::Reset() {
  auto zero = [](Counters* c) {
    c->reads.store(0, std::memory_order_relaxed);
    c->bytes.store(0, std::memory_order_relaxed);
    c->opens.store(0, std::memory_order_relaxed);
  };
  MutexLock l(&mu_);
  zero(total_.get());
  for (auto& [path, c] : by_path_) zero(c.get());
}

}  // namespace sift
