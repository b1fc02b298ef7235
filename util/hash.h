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

}  // namespace sift

#endif  // SIFT_UTIL_HASH_H_
