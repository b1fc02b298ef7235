// Where sift-server keeps its data in its one siftdb database: the record
// layout of server/FORMAT.md. Every record's key starts with a byte naming
// its keyspace, so each keyspace is one contiguous key range (and becomes
// one column family once siftdb has them: server/FORMAT.md, "Moving to
// column families").

#ifndef SIFT_SERVER_KEYS_H_
#define SIFT_SERVER_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace sift::server {

// ---- Keyspace prefixes (server/FORMAT.md). DO NOT CHANGE. -----------------
inline constexpr char kStringPrefix = 'k';  // 'k' key -> value
inline constexpr char kBloomPrefix = 'b';   // BF.* filter records
inline constexpr char kMetaPrefix = 'z';    // the server's own records
// Tags after a filter's key (server/FORMAT.md, "Filter records").
inline constexpr char kBloomHeaderTag = 0x01;
inline constexpr char kBloomPieceTag = 0x02;
inline constexpr char kBloomDeltaTag = 0x03;
// Bytes of one stored piece of a sub-filter's bits.
inline constexpr uint32_t kBloomPieceBytes = 64 * 1024;
// ---- End of on-disk constants. -------------------------------------------

inline std::string StringKey(std::string_view key) {
  std::string k;
  k.reserve(key.size() + 1);
  k.push_back(kStringPrefix);
  k.append(key);
  return k;
}

inline void AppendBigEndian(std::string* dst, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

inline uint64_t ReadBigEndian(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  }
  return v;
}

// 'b' fixed32-big-endian(length) key: every record of one filter starts
// with it, and no other filter's records do.
inline std::string BloomPrefix(std::string_view key) {
  std::string k;
  k.reserve(key.size() + 5);
  k.push_back(kBloomPrefix);
  AppendBigEndian(&k, key.size(), 4);
  k.append(key);
  return k;
}

inline std::string BloomHeaderKey(std::string_view key) {
  std::string k = BloomPrefix(key);
  k.push_back(kBloomHeaderTag);
  return k;
}

inline std::string BloomPieceKey(std::string_view key, uint32_t sub,
                                 uint32_t piece) {
  std::string k = BloomPrefix(key);
  k.push_back(kBloomPieceTag);
  AppendBigEndian(&k, sub, 4);
  AppendBigEndian(&k, piece, 4);
  return k;
}

inline std::string BloomDeltaKey(std::string_view key, uint64_t seq) {
  std::string k = BloomPrefix(key);
  k.push_back(kBloomDeltaTag);
  AppendBigEndian(&k, seq, 8);
  return k;
}

// The first key after every key starting with prefix (prefix is never all
// 0xff bytes here: it starts with a keyspace letter).
inline std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xff) {
    prefix.pop_back();
  }
  if (!prefix.empty()) prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

}  // namespace sift::server

#endif  // SIFT_SERVER_KEYS_H_
