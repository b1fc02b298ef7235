// DynamicBloom: a kBlocked Bloom filter (util/bloom.h) that is filled while
// it is read -- the memtable's whole-key filter.
//
// It is the table filters' kBlocked layout, not a second design: a key's k
// bits fall in block FastRange(h, num_blocks), at the in-block positions
// ForEachBlockedBit(h, k) gives, with h = KeyHash(user key), the one hash a
// Get computes and reuses for every filter it probes. So the model of
// util/bloom.h (BlockedFpRate) predicts its false-positive rate for the
// bits per key it ends up holding. Unlike a table filter, its size is fixed
// before the number of keys is known (the memtable sizes it from its write
// buffer): it never says "absent" for a key added, only its rate rises if
// it holds more keys than it was sized for.
//
// Thread safety: one writer (AddHash) at a time, any number of concurrent
// readers. Bits are set by the one writer with relaxed atomic loads and
// stores (no locked read-modify-write); a reader sees a key's bits once it
// has a happens-before edge with that AddHash (the memtable's readers get it
// from the DB's release/acquire publication of sequence numbers).

#ifndef SIFT_UTIL_DYNAMIC_BLOOM_H_
#define SIFT_UTIL_DYNAMIC_BLOOM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "util/bloom.h"

namespace sift {

class DynamicBloom {
 public:
  // num_bits is rounded up to whole 512-bit blocks; 0 means no filter
  // (MayContainHash is always true). REQUIRES: 1 <= num_probes <=
  // kBloomMaxProbes.
  DynamicBloom(uint64_t num_bits, int num_probes);

  DynamicBloom(const DynamicBloom&) = delete;
  DynamicBloom& operator=(const DynamicBloom&) = delete;

  // REQUIRES: external serialization of writers.
  void AddHash(uint64_t hash) {
    if (num_blocks_ == 0) return;
    Block& b = blocks_[bloom_internal::FastRange(hash, num_blocks_)];
    bloom_internal::ForEachBlockedBit(hash, num_probes_, [&b](uint32_t i) {
      std::atomic<uint64_t>& w = b.words[i >> 6];
      w.store(w.load(std::memory_order_relaxed) | (uint64_t{1} << (i & 63)),
              std::memory_order_relaxed);
    });
  }

  // False means no key with this hash was added.
  bool MayContainHash(uint64_t hash) const {
    if (num_blocks_ == 0) return true;
    const Block& b = blocks_[bloom_internal::FastRange(hash, num_blocks_)];
    uint64_t all_set = 1;
    bloom_internal::ForEachBlockedBit(hash, num_probes_, [&](uint32_t i) {
      all_set &= b.words[i >> 6].load(std::memory_order_relaxed) >> (i & 63);
    });
    return all_set & 1;
  }

  uint64_t num_bits() const { return num_blocks_ * kBloomBlockBits; }
  int num_probes() const { return num_probes_; }
  size_t MemoryUsage() const { return num_blocks_ * sizeof(Block); }

  // The probes that minimize BlockedFpRate(bits_per_key, k): what a filter
  // expected to hold that many bits per key should use.
  static int OptimalProbes(double bits_per_key);

 private:
  // One cache line: the 512 bits of one block, in the bit order of a table
  // filter (bit i of the block is bit i % 64 of word i / 64; on this
  // little-endian layout, byte i / 8 bit i % 8, as a table filter reads it).
  struct alignas(kBloomBlockBytes) Block {
    std::atomic<uint64_t> words[kBloomBlockBits / 64];
  };

  const uint64_t num_blocks_;
  const int num_probes_;
  std::unique_ptr<Block[]> blocks_;
};

}  // namespace sift

#endif  // SIFT_UTIL_DYNAMIC_BLOOM_H_
