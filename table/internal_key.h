// Internal keys: a user key followed by a fixed64 (sequence << 8) | type.
// The byte layout is specified in table/FORMAT.md ("Internal keys").
//
// This lives in table/ (not db/) because tables store internal keys and the
// table reader must order and parse them; db/dbformat.h adds what only the DB
// needs (lookup keys, snapshots).

#ifndef SIFT_TABLE_INTERNAL_KEY_H_
#define SIFT_TABLE_INTERNAL_KEY_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "sift/comparator.h"
#include "util/coding.h"

namespace sift {

using SequenceNumber = uint64_t;

// Stored on disk in every internal key and WAL record: DO NOT CHANGE.
// kTypeRangeDeletion marks a range tombstone: a WAL record (db/FORMAT.md)
// or an entry of a table's range-deletion block (FORMAT.md), never a data
// block entry, so ParseInternalKey rejects it.
enum ValueType : uint8_t {
  kTypeDeletion = 0,
  kTypeValue = 1,
  kTypeRangeDeletion = 2,
};

// The trailer is (sequence << kValueTypeBits) | type: the low byte holds the
// ValueType, the 56 bits above it the sequence (FORMAT.md, "Internal keys").
constexpr int kValueTypeBits = 8;
constexpr uint64_t kValueTypeMask = (uint64_t{1} << kValueTypeBits) - 1;
constexpr SequenceNumber kMaxSequenceNumber =
    (uint64_t{1} << (64 - kValueTypeBits)) - 1;

// When seeking to (user_key, s), use the type that sorts first among entries
// with sequence s: the trailer sorts descending, so the largest type value.
constexpr ValueType kValueTypeForSeek = kTypeValue;

constexpr size_t kInternalKeyTrailerSize = 8;

inline uint64_t PackSequenceAndType(SequenceNumber seq, ValueType type) {
  return (seq << kValueTypeBits) | type;
}

inline void AppendInternalKey(std::string* dst, std::string_view user_key,
                              SequenceNumber seq, ValueType type) {
  dst->append(user_key.data(), user_key.size());
  PutFixed64(dst, PackSequenceAndType(seq, type));
}

// REQUIRES: ikey.size() >= 8
inline std::string_view ExtractUserKey(std::string_view ikey) {
  return ikey.substr(0, ikey.size() - kInternalKeyTrailerSize);
}

// REQUIRES: ikey.size() >= 8
inline uint64_t ExtractTrailer(std::string_view ikey) {
  return DecodeFixed64(ikey.data() + ikey.size() - kInternalKeyTrailerSize);
}

struct ParsedInternalKey {
  std::string_view user_key;
  SequenceNumber sequence = 0;
  ValueType type = kTypeValue;
};

// False if ikey is too short or carries an unknown type.
inline bool ParseInternalKey(std::string_view ikey, ParsedInternalKey* out) {
  if (ikey.size() < kInternalKeyTrailerSize) return false;
  const uint64_t trailer = ExtractTrailer(ikey);
  const uint8_t type = trailer & kValueTypeMask;
  if (type > kTypeValue) return false;
  out->user_key = ExtractUserKey(ikey);
  out->sequence = trailer >> kValueTypeBits;
  out->type = static_cast<ValueType>(type);
  return true;
}

// The first 8 bytes of a user key as a big-endian integer, zero-padded
// when the key is shorter. Prefixes order as the keys do: a smaller prefix
// means a smaller key, a larger one a larger key; equal prefixes decide
// nothing.
inline uint64_t UserKeyPrefix(std::string_view key) {
  if (std::endian::native == std::endian::little && key.size() >= 8) {
    uint64_t p;
    std::memcpy(&p, key.data(), 8);
    return __builtin_bswap64(p);
  }
  uint64_t p = 0;
  for (size_t i = 0; i < 8; ++i) {
    p = (p << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
  }
  return p;
}

// Bytewise order of user keys (KeyComparator's fast path for
// BytewiseComparator()). The prefixes decide most comparisons with
// one integer compare instead of a memcmp call; ties fall through to the
// full compare.
inline int CompareUserKeys(std::string_view a, std::string_view b) {
  const uint64_t x = UserKeyPrefix(a);
  const uint64_t y = UserKeyPrefix(b);
  if (x != y) return x < y ? -1 : 1;
  return a.compare(b);
}

// The order of the keys of one sorted structure (block, table, memtable,
// level, iterator): internal keys -- user key ascending under the user's
// Comparator, then trailer descending -- or, for metaindex and properties
// blocks, whole keys as bytes. A small value: copy it freely; the user
// Comparator it points to outlives the DB (Options::comparator).
//
// The bytewise user comparator is never called through its virtual
// methods: its compares take CompareUserKeys' 8-byte prefix fast path, and
// the one branch on kind_ is all any other comparator adds to that path.
// No other comparator ever takes the prefix path.
class KeyComparator {
 public:
  // Internal keys ordered by `user` (REQUIRES: not null).
  static KeyComparator Internal(const Comparator* user) {
    return KeyComparator(user == BytewiseComparator() ? Kind::kInternalBytewise
                                                      : Kind::kInternalCustom,
                         user);
  }
  // Whole keys as bytes: metaindex and properties blocks.
  static KeyComparator Bytes() {
    return KeyComparator(Kind::kBytes, BytewiseComparator());
  }

  // Internal keys shorter than a trailer (never written by siftdb, but
  // possible in a corrupt file) sort as plain bytes so the order stays
  // total. The default order is decided inline; the others out of line.
  int Compare(std::string_view a, std::string_view b) const {
    if (kind_ == Kind::kInternalBytewise &&
        a.size() >= kInternalKeyTrailerSize &&
        b.size() >= kInternalKeyTrailerSize) {
      const int r = CompareUserKeys(ExtractUserKey(a), ExtractUserKey(b));
      return r != 0 ? r : CompareTrailers(a, b);
    }
    return CompareOther(a, b);
  }
  int operator()(std::string_view a, std::string_view b) const {
    return Compare(a, b);
  }

  // The order of user keys alone.
  int CompareUser(std::string_view a, std::string_view b) const {
    if (kind_ != Kind::kInternalCustom) return CompareUserKeys(a, b);
    return user_->Compare(a, b);
  }
  // True when a and b are the same user key.
  bool SameUser(std::string_view a, std::string_view b) const {
    if (kind_ != Kind::kInternalCustom) return a == b;
    return user_->Compare(a, b) == 0;
  }

  // True for internal keys (not Bytes()).
  bool internal() const { return kind_ != Kind::kBytes; }
  // True when user keys take the bytewise prefix fast path (Bytes(), or
  // Internal(BytewiseComparator())): a smaller UserKeyPrefix then means a
  // smaller key.
  bool bytewise() const { return kind_ != Kind::kInternalCustom; }
  const Comparator* user_comparator() const { return user_; }

  // Shortening of index keys (FORMAT.md, "Index block") through the user
  // comparator's hooks: *start is replaced by a short internal key k with
  // start <= k < limit, when one exists.
  void ShortenSeparator(std::string* start, std::string_view limit) const;
  // *key is replaced by a short internal key >= it.
  void ShortenSuccessor(std::string* key) const;

 private:
  enum class Kind : uint8_t { kBytes, kInternalBytewise, kInternalCustom };
  KeyComparator(Kind kind, const Comparator* user) : kind_(kind), user_(user) {}

  // Trailers sort descending: the newest entry of a user key first.
  static int CompareTrailers(std::string_view a, std::string_view b) {
    const uint64_t ta = ExtractTrailer(a);
    const uint64_t tb = ExtractTrailer(b);
    return ta > tb ? -1 : (ta < tb ? 1 : 0);
  }
  // Compare for Bytes(), a user comparator, and keys shorter than a trailer.
  int CompareOther(std::string_view a, std::string_view b) const;

  // Replaces the user key of *ikey by `user` when that is shorter and sorts
  // after the old one (and before `limit`'s user key, if given), with the
  // trailer that sorts first for that user key.
  void ReplaceUserKeyIfShorter(std::string* ikey, const std::string& user,
                               const std::string_view* limit) const;

  Kind kind_;
  const Comparator* user_;
};

// A readable form for tools and test failures: 'user' @ seq : type.
std::string InternalKeyDebugString(std::string_view ikey);

}  // namespace sift

#endif  // SIFT_TABLE_INTERNAL_KEY_H_
