// The one key hash of siftdb: XXH3 64-bit, seed 0. A user key is hashed once
// when a table is built and once per Get; every filter probe derives its bit
// positions from that single 64-bit value (util/bloom.h).
//
// XXH3 is inlined (XXH_INLINE_ALL) so the hash of a short key costs a few
// nanoseconds and no call. The value is stored nowhere on disk except as
// filter bits: changing the hash means a new filter format version.

#ifndef SIFT_UTIL_HASH_H_
#define SIFT_UTIL_HASH_H_

#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace sift {

inline uint64_t KeyHash(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

// The step of SplitMix64's state: 2^64 / golden ratio, odd.
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// SplitMix64's finalizer (G. Steele, D. Lea, C. Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014; constants from S. Vigna's
// splitmix64.c): a bijection on 64 bits with full avalanche. Filters derive
// every position and value from KeyHash by remixing it (util/bloom.h).
inline uint64_t Remix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// floor(x * n / 2^64): maps a 64-bit value onto [0, n) with one multiply
// (D. Lemire, "Fast random integer generation in an interval", 2019).
inline uint64_t FastRange(uint64_t x, uint64_t n) {
  __extension__ using U128 = unsigned __int128;
  return static_cast<uint64_t>((static_cast<U128>(x) * n) >> 64);
}

}  // namespace sift

#endif  // SIFT_UTIL_HASH_H_
