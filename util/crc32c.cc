#include "util/crc32c.h"

#include <array>
#include <cassert>
#include <cstring>

#include "util/coding.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIFT_CRC32C_HAVE_SSE42_PATH 1
#include <nmmintrin.h>
#else
#define SIFT_CRC32C_HAVE_SSE42_PATH 0
#endif

namespace sift::crc32c {
namespace {

constexpr uint32_t kPolyReflected = 0x82f63b78u;

// tables[0] is the classic byte-at-a-time table; tables[k][b] is the CRC
// contribution of byte b followed by k zero bytes. That lets the slice-by-8
// loop fold 8 input bytes with 8 independent lookups instead of a chain of 8
// dependent ones (Kounavis & Berry, "A Systematic Approach to Building High
// Performance Software-based CRC Generators", 2005).
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ ((crc & 1) ? kPolyReflected : 0);
    }
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t prev = t[k - 1][b];
      t[k][b] = (prev >> 8) ^ t[0][prev & 0xff];
    }
  }
  return t;
}

constexpr Tables kTables = MakeTables();

inline uint32_t StepByte(uint32_t crc, unsigned char byte) {
  return (crc >> 8) ^ kTables[0][(crc ^ byte) & 0xff];
}

// The CRC register update is linear over GF(2): running a register r over
// bytes A then B gives Shift_|B|(run(r, A)) ^ run(0, B), where Shift_n is
// what n zero bytes do to a register. So a buffer can be split into three
// stretches whose CRCs are computed at once -- the crc32 instruction has a
// latency of 3 cycles but issues every cycle -- and then joined with two
// shifts. A ZeroShift applies Shift_n as four byte-indexed table lookups
// (the operator's columns folded per byte).
struct ZeroShift {
  std::array<std::array<uint32_t, 256>, 4> t;

  explicit ZeroShift(size_t n) {
    uint32_t column[32];
    for (int bit = 0; bit < 32; ++bit) {
      uint32_t r = uint32_t{1} << bit;
      for (size_t i = 0; i < n; ++i) r = StepByte(r, 0);
      column[bit] = r;
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int bit = 0; bit < 8; ++bit) {
          if ((b >> bit) & 1) v ^= column[8 * k + bit];
        }
        t[k][b] = v;
      }
    }
  }

  uint32_t operator()(uint32_t r) const {
    return t[0][r & 0xff] ^ t[1][(r >> 8) & 0xff] ^ t[2][(r >> 16) & 0xff] ^
           t[3][r >> 24];
  }
};

#if SIFT_CRC32C_HAVE_SSE42_PATH
// Three interleaved stretches of `kLen` bytes each, joined with ZeroShifts.
template <size_t kLen>
__attribute__((target("sse4.2"))) inline uint64_t ThreeWay(
    uint64_t crc, const unsigned char** pp, const unsigned char* end,
    const ZeroShift& shift) {
  const unsigned char* p = *pp;
  while (static_cast<size_t>(end - p) >= 3 * kLen) {
    uint64_t c0 = crc, c1 = 0, c2 = 0;
    for (size_t i = 0; i < kLen; i += 8) {
      uint64_t w0, w1, w2;
      std::memcpy(&w0, p + i, 8);
      std::memcpy(&w1, p + kLen + i, 8);
      std::memcpy(&w2, p + 2 * kLen + i, 8);
      c0 = _mm_crc32_u64(c0, w0);
      c1 = _mm_crc32_u64(c1, w1);
      c2 = _mm_crc32_u64(c2, w2);
    }
    crc = shift(shift(static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1)) ^
          static_cast<uint32_t>(c2);
    p += 3 * kLen;
  }
  *pp = p;
  return crc;
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t init_crc,
                                                       const char* data,
                                                       size_t n) {
  constexpr size_t kLong = 1024, kShort = 128;
  static const ZeroShift* const long_shift = new ZeroShift(kLong);
  static const ZeroShift* const short_shift = new ZeroShift(kShort);
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const unsigned char* end = p + n;
  uint64_t crc = init_crc ^ 0xffffffffu;
  // Byte steps up to an 8-byte boundary so the wide loads are aligned.
  while (p != end && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = _mm_crc32_u8(static_cast<uint32_t>(crc), *p++);
  }
  crc = ThreeWay<kLong>(crc, &p, end, *long_shift);
  crc = ThreeWay<kShort>(crc, &p, end, *short_shift);
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    crc = _mm_crc32_u64(crc, word);
    p += 8;
  }
  while (p != end) {
    crc = _mm_crc32_u8(static_cast<uint32_t>(crc), *p++);
  }
  return static_cast<uint32_t>(crc) ^ 0xffffffffu;
}
#endif

using ExtendFn = uint32_t (*)(uint32_t, const char*, size_t);

ExtendFn ChooseExtend() {
  return internal::HaveHardwareCrc() ? internal::ExtendHardware
                                     : internal::ExtendPortable;
}

}  // namespace

namespace internal {

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const unsigned char* end = p + n;
  uint32_t crc = init_crc ^ 0xffffffffu;
  while (end - p >= 8) {
    // DecodeFixed32 reads little-endian, which is what the reflected CRC
    // consumes first, so this is correct on big-endian machines too.
    uint32_t lo = crc ^ DecodeFixed32(reinterpret_cast<const char*>(p));
    uint32_t hi = DecodeFixed32(reinterpret_cast<const char*>(p + 4));
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^
          kTables[5][(lo >> 16) & 0xff] ^ kTables[4][lo >> 24] ^
          kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
          kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
    p += 8;
  }
  while (p != end) crc = StepByte(crc, *p++);
  return crc ^ 0xffffffffu;
}

bool HaveHardwareCrc() {
#if SIFT_CRC32C_HAVE_SSE42_PATH
  // __builtin_cpu_init is only required before constructors run, but it is
  // cheap and makes this safe to call from a static initializer.
  static const bool have = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return have;
#else
  return false;
#endif
}

uint32_t ExtendHardware(uint32_t init_crc, const char* data, size_t n) {
#if SIFT_CRC32C_HAVE_SSE42_PATH
  assert(HaveHardwareCrc());
  return ExtendSse42(init_crc, data, n);
#else
  assert(false && "no hardware CRC-32C in this build");
  return ExtendPortable(init_crc, data, n);
#endif
}

}  // namespace internal

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
  // Decided once; the function-local static costs one predictable branch.
  static const ExtendFn extend = ChooseExtend();
  return extend(init_crc, data, n);
}

}  // namespace sift::crc32c
