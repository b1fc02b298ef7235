// CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the
// checksum of every block trailer, WAL record and MANIFEST record.
//
// Extend() uses the SSE4.2 crc32 instruction when the CPU has it (decided
// once, at first use) and a portable slice-by-8 table otherwise; both give
// the same bits. Values are the standard CRC-32C (init and final xor
// 0xffffffff), e.g. Value("123456789") == 0xe3069283 (RFC 3720 B.4 vectors
// are in tests/crc32c_test.cc).

#ifndef SIFT_UTIL_CRC32C_H_
#define SIFT_UTIL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace sift::crc32c {

// Returns the CRC-32C of A+data[0,n-1], where init_crc is the CRC-32C of
// some string A. Extend(Value(a), b) == Value(a + b).
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// Returns the CRC-32C of data[0,n-1].
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// Stored CRCs are masked. Computing the CRC of a string that contains
// embedded CRCs is problematic (a CRC appended to its data makes the CRC of
// the whole a constant), so a stored CRC is rotated right by 15 bits and a
// constant added, the scheme LevelDB documents for its log and table formats.
constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// Inverse of Mask: Unmask(Mask(c)) == c for every c.
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

namespace internal {

// The table-driven implementation, always available. Exposed so tests can
// check it on machines where Extend() picks the hardware path.
uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n);

// True if the hardware path exists in this build and the CPU supports it.
bool HaveHardwareCrc();

// The SSE4.2 implementation. REQUIRES: HaveHardwareCrc().
uint32_t ExtendHardware(uint32_t init_crc, const char* data, size_t n);

}  // namespace internal
}  // namespace sift::crc32c

#endif  // SIFT_UTIL_CRC32C_H_
