#include "util/arena.h"

#include <cstdint>
#include <new>

namespace sift {

// Blocks come from new char[], which (having no array cookie) returns memory
// aligned to __STDCPP_DEFAULT_NEW_ALIGNMENT__; the first aligned allocation
// of a fresh block relies on that.
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= Arena::kAlignment);
static_assert((Arena::kAlignment & (Arena::kAlignment - 1)) == 0,
              "alignment must be a power of two");

Arena::Arena() = default;
Arena::~Arena() = default;

char* Arena::AllocateAligned(size_t bytes) {
  assert(bytes > 0);
  const size_t misalign = reinterpret_cast<uintptr_t>(ptr_) & (kAlignment - 1);
  const size_t pad = misalign == 0 ? 0 : kAlignment - misalign;
  const size_t needed = bytes + pad;
  char* result;
  if (needed <= remaining_) {
    result = ptr_ + pad;
    ptr_ += needed;
    remaining_ -= needed;
  } else {
    // A fresh block is already aligned (see the static_assert above).
    result = AllocateFallback(bytes);
  }
  assert((reinterpret_cast<uintptr_t>(result) & (kAlignment - 1)) == 0);
  return result;
}

char* Arena::AllocateFallback(size_t bytes) {
  if (bytes > kBlockSize / 4) {
    // Own block, and keep the current block's tail for later small requests.
    return AllocateNewBlock(bytes);
  }
  // The rest of the current block is abandoned: wasted space is < 1/4 block.
  ptr_ = AllocateNewBlock(kBlockSize);
  remaining_ = kBlockSize;
  char* result = ptr_;
  ptr_ += bytes;
  remaining_ -= bytes;
  return result;
}

char* Arena::AllocateNewBlock(size_t block_bytes) {
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_bytes));
  memory_usage_.fetch_add(block_bytes + sizeof(blocks_.back()),
                          std::memory_order_relaxed);
  return blocks_.back().get();
}

}  // namespace sift
