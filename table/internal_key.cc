#include "table/internal_key.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace sift {
int KeyComparator::CompareOther(std::string_view a, std::string_view b) const {
  if (kind_ == Kind::kBytes || a.size() < kInternalKeyTrailerSize ||
      b.size() < kInternalKeyTrailerSize) {
    return a.compare(b);
  }
  const int r = CompareUser(ExtractUserKey(a), ExtractUserKey(b));
  return r != 0 ? r : CompareTrailers(a, b);
}

void KeyComparator::ReplaceUserKeyIfShorter(
    std::string* ikey, const std::string& user,
    const std::string_view* limit) const {
  std::string_view old_user = ExtractUserKey(*ikey);
  // A user comparator's hook is trusted only as far as these checks go: a
  // separator outside [start, limit) would misdirect index searches.
  if (user.size() < old_user.size() && CompareUser(old_user, user) < 0 &&
      (limit == nullptr || CompareUser(user, *limit) < 0)) {
    std::string shorter = user;
    PutFixed64(&shorter,
               PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    ikey->swap(shorter);
  }
}

void KeyComparator::ShortenSeparator(std::string* start,
                                     std::string_view limit) const {
  if (!internal() || start->size() < kInternalKeyTrailerSize ||
      limit.size() < kInternalKeyTrailerSize) {
    return;
  }
  std::string user(ExtractUserKey(*start));
  const std::string_view user_limit = ExtractUserKey(limit);
  user_->FindShortestSeparator(&user, user_limit);
  ReplaceUserKeyIfShorter(start, user, &user_limit);
}

void KeyComparator::ShortenSuccessor(std::string* key) const {
  if (!internal() || key->size() < kInternalKeyTrailerSize) return;
  std::string user(ExtractUserKey(*key));
  user_->FindShortSuccessor(&user);
  ReplaceUserKeyIfShorter(key, user, nullptr);
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
