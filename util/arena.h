// Arena: a bump allocator for memtable entries and skiplist nodes. Memory is
// handed out from 4 KiB blocks and freed only when the Arena is destroyed,
// which makes an allocation a pointer bump and frees a whole memtable at once.
//
// Thread safety: Allocate and AllocateAligned need external synchronization
// (the memtable has one writer). MemoryUsage may be called from any thread at
// any time, e.g. by a thread deciding whether the memtable is full.

#ifndef SIFT_UTIL_ARENA_H_
#define SIFT_UTIL_ARENA_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <memory>
#include <vector>

namespace sift {

class Arena {
 public:
  // Size of a regular block. Requests over a quarter of it get a block of
  // their own, so at most a quarter of a block is wasted when a large request
  // does not fit the current block's remainder.
  static constexpr size_t kBlockSize = 4096;
  // Every AllocateAligned result is a multiple of this.
  static constexpr size_t kAlignment = alignof(std::max_align_t);

  Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  // Returns bytes of uninitialized memory, valid until the Arena is
  // destroyed. No alignment guarantee.
  // REQUIRES: bytes > 0.
  char* Allocate(size_t bytes) {
    assert(bytes > 0);
    if (bytes <= remaining_) {
      char* result = ptr_;
      ptr_ += bytes;
      remaining_ -= bytes;
      return result;
    }
    return AllocateFallback(bytes);
  }

  // Like Allocate, aligned to kAlignment.
  // REQUIRES: bytes > 0.
  char* AllocateAligned(size_t bytes);

  // Bytes obtained from the system so far (blocks plus bookkeeping), an
  // upper bound on what callers were given.
  size_t MemoryUsage() const {
    return memory_usage_.load(std::memory_order_relaxed);
  }

 private:
  char* AllocateFallback(size_t bytes);
  char* AllocateNewBlock(size_t block_bytes);

  // Invariant: [ptr_, ptr_ + remaining_) is the unused tail of the current
  // block.
  char* ptr_ = nullptr;
  size_t remaining_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  // Atomic because MemoryUsage() is read without the writer's lock.
  std::atomic<size_t> memory_usage_{0};
};

}  // namespace sift

#endif  // SIFT_UTIL_ARENA_H_
