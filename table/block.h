// A read-only block in the format of table/FORMAT.md, and its iterator.
//
// A Block validates its restart array when constructed; entries are checked
// as they are decoded, so a corrupt block yields DataLoss from the iterator,
// never an out-of-bounds read.

#ifndef SIFT_TABLE_BLOCK_H_
#define SIFT_TABLE_BLOCK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/iterator.h"
#include "table/format.h"
#include "table/internal_key.h"

namespace sift {

class Block {
 public:
  explicit Block(BlockContents contents);

  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  // OK unless the restart array is malformed; a malformed block iterates as
  // empty with that error.
  const absl::Status& status() const { return status_; }
  size_t size() const { return data_.size(); }
  // Bytes of memory the block holds (for cache charges).
  size_t charge() const { return contents_.owned_size + sizeof(*this); }
  std::string_view data() const { return data_; }
  // Entries occupy data()[0, restart_offset()).
  uint32_t restart_offset() const { return restart_offset_; }

  class Iter;
  // cmp orders the keys: KeyComparator::Internal for data and index blocks,
  // KeyComparator::Bytes() for metaindex and properties blocks. The
  // iterator borrows the block: REQUIRES the block outlives it.
  std::unique_ptr<Iterator> NewIterator(KeyComparator cmp) const;

 private:
  friend class Iter;

  BlockContents contents_;
  std::string_view data_;
  uint32_t restart_offset_ = 0;  // where the restart array starts
  uint32_t num_restarts_ = 0;
  absl::Status status_;
};

// Exposed so the point-lookup path can use it without a virtual call.
class Block::Iter final : public Iterator {
 public:
  Iter(const Block* block, KeyComparator cmp);

  bool Valid() const override { return current_ < restarts_; }
  absl::Status status() const override { return status_; }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }

  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view target) override;
  void Next() override;
  void Prev() override;

 private:
  uint32_t NextEntryOffset() const {
    return static_cast<uint32_t>(value_.data() + value_.size() - data_);
  }
  uint32_t RestartPoint(uint32_t index) const;
  void SeekToRestartPoint(uint32_t index);
  bool ParseNextKey();
  void MarkCorrupted(std::string_view what);

  const KeyComparator cmp_;
  const char* const data_;
  const uint32_t restarts_;  // offset of the restart array
  const uint32_t num_restarts_;

  uint32_t current_;        // offset of the current entry; >= restarts_: !Valid
  uint32_t restart_index_;  // restart block holding current_
  std::string key_;
  std::string_view value_;
  absl::Status status_;
};

}  // namespace sift

#endif  // SIFT_TABLE_BLOCK_H_
