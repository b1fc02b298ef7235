// db_bench's keys and values, made the way RocksDB's db_bench makes them so
// that scripts and results carry over between the two.
//
// Key: the key number as 8 bytes big-endian, then '0' bytes up to key_size.
// Keys therefore sort by number, and a key with one more '0' appended (what
// readmissing asks for) is absent yet sorts right after its number's key:
// inside the key range of the files that hold its neighbours, so every filter
// on the read path is consulted.
//
// Value: a slice of a pool of data built from 100-byte pieces, each a random
// printable string of 100 * compression_ratio bytes repeated to fill the
// piece, so a block of values compresses to about compression_ratio of its
// size (RocksDB's RandomGenerator approach; this is our own code).

#ifndef SIFT_BENCH_DB_BENCH_KEYS_H_
#define SIFT_BENCH_DB_BENCH_KEYS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/random.h"

namespace sift::bench {

// Writes key number `num` as a db_bench key of key_size bytes into *key.
// REQUIRES: key_size >= 8 (shorter keys would drop bytes of the number).
inline void MakeKey(uint64_t num, size_t key_size, std::string* key) {
  key->assign(key_size, '0');
  for (int i = 0; i < 8; ++i) {
    (*key)[i] = static_cast<char>(num >> (8 * (7 - i)));
  }
}

// Uniform in [0, n): the high 64 bits of a 64x64-bit product, which needs no
// division and has a bias of at most n / 2^64 (Lemire, "Fast random integer
// generation in an interval", 2019). REQUIRES: n > 0.
inline uint64_t RandomKeyNum(Random* rnd, uint64_t n) {
  __extension__ using U128 = unsigned __int128;
  return static_cast<uint64_t>((static_cast<U128>(rnd->Next64()) * n) >> 64);
}

class ValueGenerator {
 public:
  // REQUIRES: 0 < compression_ratio <= 1.
  ValueGenerator(double compression_ratio, size_t value_size) {
    constexpr size_t kPiece = 100;
    constexpr size_t kPoolBytes = 1 << 20;
    // A fixed seed, as in RocksDB: every run writes the same values.
    Random rnd(301);
    const size_t raw = std::max<size_t>(
        1,
        static_cast<size_t>(static_cast<double>(kPiece) * compression_ratio));
    std::string fragment;
    const size_t want = std::max(kPoolBytes, value_size);
    while (pool_.size() < want) {
      rnd.RandomString(raw, &fragment);
      for (size_t n = 0; n < kPiece; n += raw) {
        pool_.append(fragment, 0, std::min(raw, kPiece - n));
      }
    }
  }

  // The next len bytes of the pool (wrapping to its start), valid as long
  // as the generator. REQUIRES: len <= the value_size given at construction
  // or 1 MiB, whichever is larger.
  std::string_view Generate(size_t len) {
    if (pos_ + len > pool_.size()) pos_ = 0;
    pos_ += len;
    return std::string_view(pool_.data() + pos_ - len, len);
  }

 private:
  std::string pool_;
  size_t pos_ = 0;
};

}  // namespace sift::bench

#endif  // SIFT_BENCH_DB_BENCH_KEYS_H_
