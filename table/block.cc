#include "table/block.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "util/coding.h"

namespace sift {

Block::Block(BlockContents contents)
    : contents_(std::move(contents)), data_(contents_.data) {
  if (data_.size() < sizeof(uint32_t)) {
    status_ = absl::DataLossError("block too small for its restart count");
    return;
  }
  // Restart offsets and their count are fixed32s (FORMAT.md).
  const uint64_t max_restarts =
      (data_.size() - sizeof(uint32_t)) / sizeof(uint32_t);
  const uint32_t n =
      DecodeFixed32(data_.data() + data_.size() - sizeof(uint32_t));
  if (n == 0 || n > max_restarts) {
    status_ = absl::DataLossError(absl::StrCat("block restart count ", n,
                                               " is impossible for a block "
                                               "of ",
                                               data_.size(), " bytes"));
    return;
  }
  const uint32_t restart_offset = static_cast<uint32_t>(
      data_.size() - (1 + uint64_t{n}) * sizeof(uint32_t));
  // Restart offsets must increase and point into the entry area, so a seek
  // can trust them.
  uint32_t prev = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r =
        DecodeFixed32(data_.data() + restart_offset + sizeof(uint32_t) * i);
    if ((i == 0 && r != 0) || (i > 0 && r <= prev) ||
        (restart_offset > 0 && r >= restart_offset) ||
        (restart_offset == 0 && r != 0)) {
      status_ = absl::DataLossError(
          absl::StrCat("block restart point ", i, " (", r, ") is invalid"));
      return;
    }
    prev = r;
  }
  restart_offset_ = restart_offset;
  num_restarts_ = n;
}

std::unique_ptr<Iterator> Block::NewIterator(KeyComparator cmp) const {
  if (!status_.ok()) return NewEmptyIterator(status_);
  return std::make_unique<Iter>(this, cmp);
}

Block::Iter::Iter(const Block* block, KeyComparator cmp)
    : cmp_(cmp),
      data_(block->data_.data()),
      restarts_(block->restart_offset_),
      num_restarts_(block->num_restarts_),
      current_(restarts_),
      restart_index_(num_restarts_) {}

uint32_t Block::Iter::RestartPoint(uint32_t index) const {
  return DecodeFixed32(data_ + restarts_ + index * sizeof(uint32_t));
}

void Block::Iter::SeekToRestartPoint(uint32_t index) {
  key_.clear();
  restart_index_ = index;
  // ParseNextKey starts at the end of value_, so point it at the restart.
  value_ = std::string_view(data_ + RestartPoint(index), 0);
}

void Block::Iter::MarkCorrupted(std::string_view what) {
  current_ = restarts_;
  restart_index_ = num_restarts_;
  status_ = absl::DataLossError(absl::string_view(what.data(), what.size()));
  key_.clear();
  value_ = {};
}

bool Block::Iter::ParseNextKey() {
  current_ = NextEntryOffset();
  const char* p = data_ + current_;
  const char* limit = data_ + restarts_;
  if (p >= limit) {
    current_ = restarts_;
    restart_index_ = num_restarts_;
    return false;
  }
  uint32_t shared, non_shared, value_length;
  p = GetVarint32PtrFast(p, limit, &shared);
  if (p != nullptr) p = GetVarint32PtrFast(p, limit, &non_shared);
  if (p != nullptr) p = GetVarint32PtrFast(p, limit, &value_length);
  if (p == nullptr || shared > key_.size() ||
      non_shared > static_cast<uint64_t>(limit - p) ||
      value_length > static_cast<uint64_t>(limit - p) - non_shared) {
    MarkCorrupted(
        absl::StrCat("corrupted block entry at block offset ", current_));
    return false;
  }
  key_.resize(shared);
  key_.append(p, non_shared);
  value_ = std::string_view(p + non_shared, value_length);
  while (restart_index_ + 1 < num_restarts_ &&
         RestartPoint(restart_index_ + 1) < current_) {
    ++restart_index_;
  }
  return true;
}

void Block::Iter::Next() { ParseNextKey(); }

void Block::Iter::Prev() {
  // Back up to the restart point before current_, then scan forward.
  const uint32_t original = current_;
  while (RestartPoint(restart_index_) >= original) {
    if (restart_index_ == 0) {
      current_ = restarts_;
      restart_index_ = num_restarts_;
      return;
    }
    --restart_index_;
  }
  SeekToRestartPoint(restart_index_);
  do {
    if (!ParseNextKey()) return;
  } while (NextEntryOffset() < original);
}

void Block::Iter::SeekToFirst() {
  status_ = absl::OkStatus();
  SeekToRestartPoint(0);
  ParseNextKey();
}

void Block::Iter::SeekToLast() {
  status_ = absl::OkStatus();
  SeekToRestartPoint(num_restarts_ - 1);
  while (ParseNextKey() && NextEntryOffset() < restarts_) {
  }
}

void Block::Iter::Seek(std::string_view target) {
  status_ = absl::OkStatus();
  // Binary search for the last restart point whose key is < target.
  uint32_t left = 0;
  uint32_t right = num_restarts_ - 1;
  while (left < right) {
    const uint32_t mid = (left + right + 1) / 2;
    const uint32_t offset = RestartPoint(mid);
    uint32_t shared, non_shared, value_length;
    const char* limit = data_ + restarts_;
    const char* p = GetVarint32PtrFast(data_ + offset, limit, &shared);
    if (p != nullptr) p = GetVarint32PtrFast(p, limit, &non_shared);
    if (p != nullptr) p = GetVarint32PtrFast(p, limit, &value_length);
    if (p == nullptr || shared != 0 ||
        non_shared > static_cast<uint64_t>(limit - p)) {
      MarkCorrupted(
          absl::StrCat("corrupted restart entry at block offset ", offset));
      return;
    }
    if (cmp_(std::string_view(p, non_shared), target) < 0) {
      left = mid;
    } else {
      right = mid - 1;
    }
  }
  SeekToRestartPoint(left);
  // Linear scan to the first key >= target.
  while (ParseNextKey()) {
    if (cmp_(key_, target) >= 0) return;
  }
}

}  // namespace sift
