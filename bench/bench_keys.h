// Keys and values exactly as RocksDB's db_bench makes them, so workloads
// and scripts carry over between the engines.

#ifndef SIFT_BENCH_BENCH_KEYS_H_
#define SIFT_BENCH_BENCH_KEYS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/random.h"

namespace sift::bench {

// The key number as up to 8 big-endian bytes, then '0' padding to
// key_size (db_bench's GenerateKeyFromInt without prefixes). A key for
// readmissing is the same with key_size + 1: one more '0', so it sorts
// right after an existing key, inside every file's key range.
inline void MakeKey(uint64_t n, size_t key_size, std::string* key) {
  key->clear();
  const size_t bytes = std::min<size_t>(key_size, 8);
  for (size_t i = 0; i < bytes; ++i) {
    key->push_back(static_cast<char>((n >> (8 * (bytes - 1 - i))) & 0xff));
  }
  key->resize(key_size, '0');
}

// Values that compress to about `ratio` of their size: a pool of pieces
// whose first ratio*len bytes are random and the rest repeat them.
class ValueGenerator {
 public:
  ValueGenerator(uint64_t seed, double ratio) {
    Random rnd(seed);
    std::string piece;
    while (data_.size() < (1 << 20)) {
      const size_t len = 100;
      const size_t raw = std::max<size_t>(
          1, static_cast<size_t>(static_cast<double>(len) * ratio));
      rnd.RandomString(raw, &piece);
      std::string out;
      while (out.size() < len) out.append(piece);
      out.resize(len);
      data_.append(out);
    }
  }

  // A value of len bytes (a view into the pool; valid until the next call
  // needs more than the pool holds).
  std::string_view Next(size_t len) {
    if (pos_ + len > data_.size()) pos_ = 0;
    if (len > data_.size()) {
      while (data_.size() < len) data_.append(data_);
    }
    std::string_view v(data_.data() + pos_, len);
    pos_ += len;
    return v;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

}  // namespace sift::bench

#endif  // SIFT_BENCH_BENCH_KEYS_H_
