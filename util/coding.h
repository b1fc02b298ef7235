// Little-endian fixed-width and LEB128 varint encodings of integers, the
// building blocks of every on-disk format (table/FORMAT.md, db/FORMAT.md).
//
// Decoders that take a std::string_view* consume what they parse and return
// false on truncated or malformed input, never reading past the view.

#ifndef SIFT_UTIL_CODING_H_
#define SIFT_UTIL_CODING_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sift {

// A varint (LEB128) carries kVarintPayloadBits bits of the value per byte,
// low bits first; a byte's high bit (kVarintMoreBit) says another follows.
// So a 32-bit value takes at most 5 bytes and a 64-bit value at most 10.
constexpr int kVarintPayloadBits = 7;
constexpr uint32_t kVarintMoreBit = 0x80;
constexpr uint32_t kVarintPayloadMask = kVarintMoreBit - 1;
constexpr int kMaxVarint32Bytes = 5;
constexpr int kMaxVarint64Bytes = 10;

inline void EncodeFixed32(char* dst, uint32_t value) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(dst, &value, sizeof(value));
  } else {
    for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(value >> (8 * i));
  }
}
inline void EncodeFixed64(char* dst, uint64_t value) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(dst, &value, sizeof(value));
  } else {
    for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(value >> (8 * i));
  }
}
inline uint32_t DecodeFixed32(const char* p) {
  if constexpr (std::endian::native == std::endian::little) {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  } else {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
           (static_cast<uint32_t>(b[2]) << 16) |
           (static_cast<uint32_t>(b[3]) << 24);
  }
}
inline uint64_t DecodeFixed64(const char* p) {
  if constexpr (std::endian::native == std::endian::little) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  } else {
    return static_cast<uint64_t>(DecodeFixed32(p)) |
           (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
  }
}

void PutFixed32(std::string* dst, uint32_t value);
void PutFixed64(std::string* dst, uint64_t value);
void PutVarint32(std::string* dst, uint32_t value);
void PutVarint64(std::string* dst, uint64_t value);
// A varint32 length followed by the bytes.
void PutLengthPrefixed(std::string* dst, std::string_view value);

// Writes value at dst and returns one past the last byte written.
// REQUIRES: dst has room for kMaxVarint32Bytes / kMaxVarint64Bytes.
char* EncodeVarint32(char* dst, uint32_t value);
char* EncodeVarint64(char* dst, uint64_t value);
int VarintLength(uint64_t value);

// Parse from [p, limit); return one past the parsed bytes, or nullptr if the
// input is truncated or overlong.
const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* value);
const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* value);

bool GetFixed32(std::string_view* input, uint32_t* value);
bool GetFixed64(std::string_view* input, uint64_t* value);
bool GetVarint32(std::string_view* input, uint32_t* value);
bool GetVarint64(std::string_view* input, uint64_t* value);
bool GetLengthPrefixed(std::string_view* input, std::string_view* result);

// Fast path for the common one-byte varint, as used in block decoding.
inline const char* GetVarint32PtrFast(const char* p, const char* limit,
                                      uint32_t* value) {
  if (p < limit) {
    uint32_t b = static_cast<unsigned char>(*p);
    if ((b & kVarintMoreBit) == 0) {
      *value = b;
      return p + 1;
    }
  }
  return GetVarint32Ptr(p, limit, value);
}

}  // namespace sift

#endif  // SIFT_UTIL_CODING_H_
