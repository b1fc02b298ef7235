#include "util/coding.h"

namespace sift {

void PutFixed32(std::string* dst, uint32_t value) {
  char buf[sizeof(uint32_t)];
  EncodeFixed32(buf, value);
  dst->append(buf, sizeof(buf));
}

void PutFixed64(std::string* dst, uint64_t value) {
  char buf[sizeof(uint64_t)];
  EncodeFixed64(buf, value);
  dst->append(buf, sizeof(buf));
}

char* EncodeVarint32(char* dst, uint32_t value) {
  return EncodeVarint64(dst, value);
}

char* EncodeVarint64(char* dst, uint64_t value) {
  auto* p = reinterpret_cast<unsigned char*>(dst);
  while (value >= kVarintMoreBit) {
    *p++ = static_cast<unsigned char>(value | kVarintMoreBit);
    value >>= kVarintPayloadBits;
  }
  *p++ = static_cast<unsigned char>(value);
  return reinterpret_cast<char*>(p);
}

void PutVarint32(std::string* dst, uint32_t value) {
  char buf[kMaxVarint32Bytes];
  dst->append(buf, EncodeVarint32(buf, value) - buf);
}

void PutVarint64(std::string* dst, uint64_t value) {
  char buf[kMaxVarint64Bytes];
  dst->append(buf, EncodeVarint64(buf, value) - buf);
}

void PutLengthPrefixed(std::string* dst, std::string_view value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value.data(), value.size());
}

int VarintLength(uint64_t value) {
  int len = 1;
  while (value >= kVarintMoreBit) {
    value >>= kVarintPayloadBits;
    ++len;
  }
  return len;
}

const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* value) {
  // The last byte may hold only the bits left below 64 (one), and no
  // continuation: anything else is a value wider than 64 bits.
  constexpr int kLastShift = (kMaxVarint64Bytes - 1) * kVarintPayloadBits;
  uint64_t result = 0;
  for (int shift = 0; shift <= kLastShift && p < limit;
       shift += kVarintPayloadBits) {
    uint64_t byte = static_cast<unsigned char>(*p++);
    if (shift == kLastShift && (byte >> (64 - kLastShift)) != 0) {
      return nullptr;
    }
    result |= (byte & kVarintPayloadMask) << shift;
    if ((byte & kVarintMoreBit) == 0) {
      *value = result;
      return p;
    }
  }
  return nullptr;
}

const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* value) {
  // The last byte may hold only the bits left below 32 (four), and no
  // continuation: anything else is a value wider than 32 bits.
  constexpr int kLastShift = (kMaxVarint32Bytes - 1) * kVarintPayloadBits;
  uint32_t result = 0;
  for (int shift = 0; shift <= kLastShift && p < limit;
       shift += kVarintPayloadBits) {
    uint32_t byte = static_cast<unsigned char>(*p++);
    if (shift == kLastShift && (byte >> (32 - kLastShift)) != 0) {
      return nullptr;
    }
    result |= (byte & kVarintPayloadMask) << shift;
    if ((byte & kVarintMoreBit) == 0) {
      *value = result;
      return p;
    }
  }
  return nullptr;
}

bool GetFixed32(std::string_view* input, uint32_t* value) {
  if (input->size() < sizeof(uint32_t)) return false;
  *value = DecodeFixed32(input->data());
  input->remove_prefix(sizeof(uint32_t));
  return true;
}

bool GetFixed64(std::string_view* input, uint64_t* value) {
  if (input->size() < sizeof(uint64_t)) return false;
  *value = DecodeFixed64(input->data());
  input->remove_prefix(sizeof(uint64_t));
  return true;
}

bool GetVarint32(std::string_view* input, uint32_t* value) {
  const char* begin = input->data();
  const char* end = begin + input->size();
  const char* q = GetVarint32Ptr(begin, end, value);
  if (q == nullptr) return false;
  input->remove_prefix(q - begin);
  return true;
}

bool GetVarint64(std::string_view* input, uint64_t* value) {
  const char* begin = input->data();
  const char* end = begin + input->size();
  const char* q = GetVarint64Ptr(begin, end, value);
  if (q == nullptr) return false;
  input->remove_prefix(q - begin);
  return true;
}

bool GetLengthPrefixed(std::string_view* input, std::string_view* result) {
  uint32_t len;
  if (!GetVarint32(input, &len) || input->size() < len) return false;
  *result = input->substr(0, len);
  input->remove_prefix(len);
  return true;
}

}  // namespace sift
