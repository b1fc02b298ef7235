// Key sets for the Bloom filter tests (tests/bloom_test.cc and friends):
// the shapes that defeat weak hashing, generated deterministically from a
// seed, with added keys and probe keys disjoint by construction.

#ifndef SIFT_TESTS_BLOOM_TEST_KEYS_H_
#define SIFT_TESTS_BLOOM_TEST_KEYS_H_

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "sift/options.h"

namespace sift::bloom_test {

inline constexpr FilterLayout kLayouts[] = {FilterLayout::kStandard,
                                            FilterLayout::kBlocked};

inline const char* LayoutName(FilterLayout layout) {
  return layout == FilterLayout::kBlocked ? "blocked" : "standard";
}

enum class Shape { kUrl, kBigEndian, kLastByte, kRandom };
inline constexpr Shape kShapes[] = {Shape::kUrl, Shape::kBigEndian,
                                    Shape::kLastByte, Shape::kRandom};

inline const char* ShapeName(Shape shape) {
  switch (shape) {
    case Shape::kUrl:
      return "url";
    case Shape::kBigEndian:
      return "bigendian";
    case Shape::kLastByte:
      return "lastbyte";
    case Shape::kRandom:
      return "random";
  }
  return "?";
}

// Calls fn(key) for keys i = 0..count-1 of one shape. Added keys
// (probe = false) and probe keys (probe = true) never coincide:
//   kUrl       URL-like strings with the index in the path
//   kBigEndian 8-byte big-endian integers: consecutive for added keys,
//              consecutive from 2^40 for probes (rocksdb#3780's case)
//   kLastByte  groups of 128 keys sharing a 24-byte random prefix; added
//              keys end in an even byte, probes in an odd one, so every probe
//              differs from an added key in its last byte only
//   kRandom    12..31 random bytes (96+ random bits: no collisions)
template <typename Fn>
void ForEachKey(Shape shape, uint64_t seed, bool probe, uint64_t count,
                Fn&& fn) {
  std::mt19937_64 rng(seed * 2 + (probe ? 1 : 0));
  std::string key;
  for (uint64_t i = 0; i < count; ++i) {
    switch (shape) {
      case Shape::kUrl:
        key =
            absl::StrCat("https://www.example.com/", probe ? "p" : "a",
                         "/users/", i, "/profile?tab=", i % 7, "&seed=", seed);
        break;
      case Shape::kBigEndian: {
        const uint64_t v =
            (probe ? (uint64_t{1} << 40) : 0) + i + ((seed & 0xff) << 48);
        key.resize(8);
        for (int b = 0; b < 8; ++b)
          key[b] = static_cast<char>(v >> (56 - 8 * b));
        break;
      }
      case Shape::kLastByte: {
        const uint64_t group = i / 128;
        if (i % 128 == 0) {
          std::mt19937_64 prefix_rng(seed ^ (group * 0x9e3779b97f4a7c15ULL));
          key.resize(25);
          for (int b = 0; b < 24; ++b) key[b] = static_cast<char>(prefix_rng());
        }
        key[24] = static_cast<char>(2 * (i % 128) + (probe ? 1 : 0));
        break;
      }
      case Shape::kRandom: {
        key.resize(12 + rng() % 20);
        for (char& c : key) c = static_cast<char>(rng());
        break;
      }
    }
    fn(std::string_view(key));
  }
}

}  // namespace sift::bloom_test

#endif  // SIFT_TESTS_BLOOM_TEST_KEYS_H_
