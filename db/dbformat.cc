#include "db/dbformat.h"

#include <cstring>

namespace sift {

LookupKey::LookupKey(std::string_view user_key, SequenceNumber sequence) {
  const size_t usize = user_key.size();
  const size_t needed = usize + kMaxVarint32Bytes + kInternalKeyTrailerSize;
  char* dst = needed <= sizeof(space_) ? space_ : new char[needed];
  start_ = dst;
  dst = EncodeVarint32(dst,
                       static_cast<uint32_t>(usize + kInternalKeyTrailerSize));
  kstart_ = dst;
  std::memcpy(dst, user_key.data(), usize);
  dst += usize;
  EncodeFixed64(dst, PackSequenceAndType(sequence, kValueTypeForSeek));
  dst += kInternalKeyTrailerSize;
  end_ = dst;
}

LookupKey::~LookupKey() {
  if (start_ != space_) delete[] start_;
}

}  // namespace sift
