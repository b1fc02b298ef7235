#include "table/internal_key.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace sift {
namespace {

// Bytewise: the shortest user key k with start <= k < limit, written over
// *start, when it is shorter than *start.
void ShortestUserSeparator(std::string* start, std::string_view limit) {
  const size_t min_len = std::min(start->size(), limit.size());
  size_t diff = 0;
  while (diff < min_len && (*start)[diff] == limit[diff]) ++diff;
  if (diff >= min_len) return;  // one is a prefix of the other
  const auto byte = static_cast<uint8_t>((*start)[diff]);
  if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[diff])) {
    (*start)[diff] = static_cast<char>(byte + 1);
    start->resize(diff + 1);
  }
}

// The shortest key >= *key: bump the first byte that can be bumped.
void ShortUserSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const auto byte = static_cast<uint8_t>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
  // All 0xff: leave it.
}

// Replaces the user key of *ikey by `user` when that is shorter and sorts
// after the old one, with the trailer that sorts first for that user key.
void ReplaceUserKeyIfShorter(std::string* ikey, const std::string& user) {
  std::string_view old_user = ExtractUserKey(*ikey);
  if (user.size() < old_user.size() && old_user.compare(user) < 0) {
    std::string shorter = user;
    PutFixed64(&shorter,
               PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    ikey->swap(shorter);
  }
}

}  // namespace

void ShortenInternalSeparator(std::string* start, std::string_view limit) {
  if (start->size() < kInternalKeyTrailerSize ||
      limit.size() < kInternalKeyTrailerSize) {
    return;
  }
  std::string user(ExtractUserKey(*start));
  ShortestUserSeparator(&user, ExtractUserKey(limit));
  ReplaceUserKeyIfShorter(start, user);
}

void ShortenInternalSuccessor(std::string* key) {
  if (key->size() < kInternalKeyTrailerSize) return;
  std::string user(ExtractUserKey(*key));
  ShortUserSuccessor(&user);
  ReplaceUserKeyIfShorter(key, user);
}

std::string InternalKeyDebugString(std::string_view ikey) {
  ParsedInternalKey parsed;
  if (ikey.size() >= kInternalKeyTrailerSize &&
      (ExtractTrailer(ikey) & kValueTypeMask) == kTypeRangeDeletion) {
    // A range tombstone, or a file's bound at a tombstone's end.
    const std::string_view user = ExtractUserKey(ikey);
    return absl::StrCat(
        "'", absl::CEscape(absl::string_view(user.data(), user.size())), "' @ ",
        ExtractTrailer(ikey) >> kValueTypeBits, " : ",
        static_cast<int>(kTypeRangeDeletion));
  }
  if (!ParseInternalKey(ikey, &parsed)) {
    return absl::StrCat(
        "(bad internal key) '",
        absl::CEscape(absl::string_view(ikey.data(), ikey.size())), "'");
  }
  return absl::StrCat("'",
                      absl::CEscape(absl::string_view(parsed.user_key.data(),
                                                      parsed.user_key.size())),
                      "' @ ", parsed.sequence, " : ",
                      static_cast<int>(parsed.type));
}

}  // namespace sift
