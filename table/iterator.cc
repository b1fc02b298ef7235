#include "sift/iterator.h"

#include <utility>

namespace sift {

Iterator::~Iterator() {
  for (auto& fn : cleanups_) fn();
}

void Iterator::RegisterCleanup(std::function<void()> fn) {
  cleanups_.push_back(std::move(fn));
}

namespace {

class EmptyIterator final : public Iterator {
 public:
  explicit EmptyIterator(absl::Status status) : status_(std::move(status)) {}
  bool Valid() const override { return false; }
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Seek(std::string_view) override {}
  void Next() override {}
  void Prev() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  absl::Status status() const override { return status_; }

 private:
  absl::Status status_;
};

}  // namespace

std::unique_ptr<Iterator> NewEmptyIterator(absl::Status status) {
  return std::make_unique<EmptyIterator>(std::move(status));
}

}  // namespace sift
