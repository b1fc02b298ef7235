#include "table/two_level_iterator.h"

#include <string>
#include <utility>

namespace sift {
namespace {

class TwoLevelIterator final : public Iterator {
 public:
  TwoLevelIterator(std::unique_ptr<Iterator> index, SecondLevelOpener open)
      : index_(std::move(index)), open_(std::move(open)) {}

  // Invariant: data_ is null whenever status_ holds an error; valid_ and
  // key_ are data_'s, cached after every move (a merge above asks for them
  // several times per entry, and each ask of data_ is a virtual call).
  bool Valid() const override { return valid_; }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return data_->value(); }
  absl::Status status() const override { return status_; }

  void SeekToFirst() override {
    status_ = absl::OkStatus();
    index_->SeekToFirst();
    if (OpenData()) {
      data_->SeekToFirst();
      SkipEmptyForward();
    }
    Cache();
  }

  void SeekToLast() override {
    status_ = absl::OkStatus();
    index_->SeekToLast();
    if (OpenData()) {
      data_->SeekToLast();
      SkipEmptyBackward();
    }
    Cache();
  }

  void Seek(std::string_view target) override {
    status_ = absl::OkStatus();
    index_->Seek(target);
    if (OpenData()) {
      data_->Seek(target);
      SkipEmptyForward();
    }
    Cache();
  }

  void Next() override {
    data_->Next();
    SkipEmptyForward();
    Cache();
  }

  void Prev() override {
    data_->Prev();
    SkipEmptyBackward();
    Cache();
  }

 private:
  void Cache() {
    valid_ = data_ != nullptr && data_->Valid();
    key_ = valid_ ? data_->key() : std::string_view();
  }

  // Stops the iteration with s (see the error policy in the header).
  void Stop(absl::Status s) {
    status_ = std::move(s);
    data_.reset();
    data_value_.clear();
  }

  // Points data_ at the second level of the index's current entry, not yet
  // positioned within it. False, with data_ null, past either end of the
  // index or on an error. A seek that stays in the second level already
  // open (the common case for nearby seeks) keeps it rather than reopening.
  bool OpenData() {
    if (!index_->Valid()) {
      if (!index_->status().ok()) {
        Stop(index_->status());
      } else {
        data_.reset();
        data_value_.clear();
      }
      return false;
    }
    const std::string_view v = index_->value();
    if (data_ != nullptr && data_->status().ok() && v == data_value_) {
      return true;
    }
    data_.reset();  // before what it reads may be released
    absl::StatusOr<std::unique_ptr<Iterator>> it = open_(v);
    if (!it.ok()) {
      Stop(it.status());
      return false;
    }
    data_ = *std::move(it);
    data_value_.assign(v);
    return true;
  }

  // Moves on from an exhausted (or failed) second level to the next one
  // that has an entry.
  void SkipEmptyForward() {
    while (data_ != nullptr && !data_->Valid()) {
      if (!data_->status().ok()) {
        Stop(data_->status());
        return;
      }
      index_->Next();
      if (!OpenData()) return;
      data_->SeekToFirst();
    }
  }

  void SkipEmptyBackward() {
    while (data_ != nullptr && !data_->Valid()) {
      if (!data_->status().ok()) {
        Stop(data_->status());
        return;
      }
      index_->Prev();
      if (!OpenData()) return;
      data_->SeekToLast();
    }
  }

  const std::unique_ptr<Iterator> index_;
  const SecondLevelOpener open_;
  std::unique_ptr<Iterator> data_;  // null: not positioned
  bool valid_ = false;
  std::string_view key_;
  std::string data_value_;  // the index value data_ was opened for
  absl::Status status_;
};

}  // namespace

std::unique_ptr<Iterator> NewTwoLevelIterator(std::unique_ptr<Iterator> index,
                                              SecondLevelOpener open) {
  return std::make_unique<TwoLevelIterator>(std::move(index), std::move(open));
}

}  // namespace sift
