// A small, fast, deterministic pseudo-random generator for tests and
// benchmarks. Not for anything that needs unpredictability.
//
// The generator is xoshiro256** (Blackman & Vigna, "Scrambled Linear
// Pseudorandom Number Generators", ACM TOMS 2021; https://prng.di.unimi.it/),
// period 2^256 - 1, seeded by expanding the 64-bit seed with SplitMix64
// (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number Generators",
// OOPSLA 2014), as the xoshiro authors recommend: any seed, including 0, gives
// a well-mixed, non-zero state. The same seed gives the same sequence on every
// platform, so a failing randomized test replays from its printed seed.
//
// Not thread-safe: give each thread its own Random.

#ifndef SIFT_UTIL_RANDOM_H_
#define SIFT_UTIL_RANDOM_H_

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sift {

class Random {
 public:
  explicit Random(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t& word : state_) word = SplitMix64(&x);
  }

  // 64 uniformly distributed bits.
  uint64_t Next64() {
    const uint64_t result = std::rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = std::rotl(state_[3], 45);
    return result;
  }

  // 32 uniformly distributed bits (the high half of Next64, the better-mixed
  // half).
  uint32_t Next() { return static_cast<uint32_t>(Next64() >> 32); }

  // Uniform in [0, n), without modulo bias: Lemire's multiply-and-reject
  // ("Fast Random Integer Generation in an Interval", ACM TOMACS 2019), which
  // needs a division only in the rare rejection case.
  // REQUIRES: n > 0.
  uint32_t Uniform(uint32_t n) {
    assert(n > 0);
    uint64_t m = uint64_t{Next()} * n;
    uint32_t low = static_cast<uint32_t>(m);
    if (low < n) {
      const uint32_t threshold = (0u - n) % n;  // 2^32 mod n
      while (low < threshold) {
        m = uint64_t{Next()} * n;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // True with probability 1/n. REQUIRES: n > 0.
  bool OneIn(uint32_t n) { return Uniform(n) == 0; }

  // LevelDB's skewed distribution: picks base uniformly in [0, max_log], then
  // returns Uniform(2^base). Small values are exponentially more likely than
  // large ones, which suits key and value sizes in tests.
  // REQUIRES: 0 <= max_log <= 31.
  uint32_t Skewed(int max_log) {
    assert(max_log >= 0 && max_log <= 31);
    const uint32_t base = Uniform(static_cast<uint32_t>(max_log) + 1);
    return Uniform(uint32_t{1} << base);
  }

  // Replaces *dst with len printable ASCII characters (' ' to '~'), so test
  // keys and values stay readable in failure messages.
  void RandomString(size_t len, std::string* dst) {
    dst->resize(len);
    for (size_t i = 0; i < len; ++i) {
      (*dst)[i] = static_cast<char>(' ' + Uniform(95));
    }
  }

 private:
  static uint64_t SplitMix64(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }

  uint64_t state_[4];
};

}  // namespace sift

#endif  // SIFT_UTIL_RANDOM_H_
