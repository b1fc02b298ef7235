// Table::NewIterator: walks the in-memory index and, block by block, the
// data blocks it names (a two-level iteration).

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "table/internal_key.h"
#include "table/table_reader.h"

namespace sift {

class Table::Iter final : public Iterator {
 public:
  Iter(const Table* table, const ReadOptions& options)
      : table_(table), options_(options) {}

  bool Valid() const override { return block_iter_ && block_iter_->Valid(); }
  absl::Status status() const override { return status_; }
  std::string_view key() const override { return block_iter_->key(); }
  std::string_view value() const override { return block_iter_->value(); }

  void SeekToFirst() override {
    status_ = absl::OkStatus();
    if (!LoadBlock(0)) return;
    block_iter_->SeekToFirst();
    SkipEmptyForward();
  }

  void SeekToLast() override {
    status_ = absl::OkStatus();
    if (table_->index_.empty() || !LoadBlock(table_->index_.size() - 1)) {
      return;
    }
    block_iter_->SeekToLast();
    SkipEmptyBackward();
  }

  void Seek(std::string_view target) override {
    status_ = absl::OkStatus();
    if (!LoadBlock(table_->FindBlock(target))) return;
    block_iter_->Seek(target);
    SkipEmptyForward();
  }

  void Next() override {
    block_iter_->Next();
    SkipEmptyForward();
  }

  void Prev() override {
    block_iter_->Prev();
    SkipEmptyBackward();
  }

 private:
  // Positions on block i (unpositioned within it). False, with the
  // iterator invalid, past the last block or on a read error.
  bool LoadBlock(size_t i) {
    block_iter_.reset();
    block_.reset();
    index_ = i;
    if (i >= table_->index_.size()) return false;
    TableReadCounters unused;
    auto block =
        table_->ReadDataBlock(options_, table_->index_[i].handle, &unused);
    if (!block.ok()) {
      status_ = block.status();
      return false;
    }
    block_ = *std::move(block);
    block_iter_.emplace(block_.get(), CompareInternalKeys);
    return true;
  }

  // Remembers a block-level error with its file and offset, and stops.
  bool CheckBlockStatus() {
    if (block_iter_->status().ok()) return true;
    status_ =
        absl::Status(block_iter_->status().code(),
                     absl::StrCat(table_->file_name_, ": data block at offset ",
                                  table_->index_[index_].handle.offset, ": ",
                                  block_iter_->status().message()));
    block_iter_.reset();
    return false;
  }

  void SkipEmptyForward() {
    while (block_iter_ && !block_iter_->Valid()) {
      if (!CheckBlockStatus() || !LoadBlock(index_ + 1)) return;
      block_iter_->SeekToFirst();
    }
  }

  void SkipEmptyBackward() {
    while (block_iter_ && !block_iter_->Valid()) {
      if (!CheckBlockStatus() || index_ == 0) {
        block_iter_.reset();
        return;
      }
      if (!LoadBlock(index_ - 1)) return;
      block_iter_->SeekToLast();
    }
  }

  const Table* const table_;
  const ReadOptions options_;
  size_t index_ = 0;
  std::shared_ptr<const Block> block_;
  std::optional<Block::Iter> block_iter_;
  absl::Status status_;
};

std::unique_ptr<Iterator> Table::NewIterator(const ReadOptions& options) const {
  return std::make_unique<Iter>(this, options);
}

}  // namespace sift
