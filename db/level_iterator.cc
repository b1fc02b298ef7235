#include "db/level_iterator.h"

#include <utility>

#include "table/table_reader.h"

namespace sift {
namespace {

class LevelIterator final : public Iterator {
 public:
  LevelIterator(const ReadOptions& options, TableCache* cache, FileList files)
      : options_(options), cache_(cache), files_(std::move(files)) {}

  bool Valid() const override { return iter_ != nullptr && iter_->Valid(); }
  std::string_view key() const override { return iter_->key(); }
  std::string_view value() const override { return iter_->value(); }
  absl::Status status() const override {
    if (!status_.ok()) return status_;
    return iter_ != nullptr ? iter_->status() : absl::OkStatus();
  }

  void SeekToFirst() override {
    if (!Open(0)) return;
    iter_->SeekToFirst();
    SkipForward();
  }
  void SeekToLast() override {
    if (files_.empty() || !Open(files_.size() - 1)) return;
    iter_->SeekToLast();
    SkipBackward();
  }
  void Seek(std::string_view target) override {
    if (!Open(FindFile(files_, target))) return;
    iter_->Seek(target);
    SkipForward();
  }
  void Next() override {
    iter_->Next();
    SkipForward();
  }
  void Prev() override {
    iter_->Prev();
    SkipBackward();
  }

 private:
  // Positions on file i's table (not within it). False past the end or on
  // an error (kept in status_).
  bool Open(size_t i) {
    index_ = i;
    if (i >= files_.size()) {
      iter_.reset();
      return false;
    }
    if (iter_ != nullptr && !iter_->status().ok() && status_.ok()) {
      status_ = iter_->status();
    }
    iter_.reset();  // before its table may go
    auto t = cache_->Get(*files_[i]);
    if (!t.ok()) {
      if (status_.ok()) status_ = t.status();
      iter_.reset();
      return false;
    }
    table_ = *std::move(t);
    iter_ = table_->NewIterator(options_);
    return true;
  }

  void SkipForward() {
    while (iter_ != nullptr && !iter_->Valid()) {
      if (!iter_->status().ok() || !Open(index_ + 1)) return;
      iter_->SeekToFirst();
    }
  }

  void SkipBackward() {
    while (iter_ != nullptr && !iter_->Valid()) {
      if (!iter_->status().ok() || index_ == 0) return;
      if (!Open(index_ - 1)) return;
      iter_->SeekToLast();
    }
  }

  const ReadOptions options_;
  TableCache* const cache_;
  const FileList files_;
  size_t index_ = 0;
  std::shared_ptr<const Table> table_;  // declared before iter_: outlives it
  std::unique_ptr<Iterator> iter_;
  absl::Status status_;
};

}  // namespace

std::unique_ptr<Iterator> NewLevelIterator(const ReadOptions& options,
                                           TableCache* cache, FileList files) {
  return std::make_unique<LevelIterator>(options, cache, std::move(files));
}

}  // namespace sift
