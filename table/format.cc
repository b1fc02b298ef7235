#include "table/format.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "snappy.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace sift {

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  return GetVarint64(input, &offset) && GetVarint64(input, &size);
}

bool BlockHandle::FitsBefore(uint64_t limit) const {
  return offset <= limit && size <= limit &&
         kBlockTrailerSize <= limit - offset &&
         size <= limit - offset - kBlockTrailerSize;
}

void Footer::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  PutFixed64(dst, metaindex.offset);
  PutFixed64(dst, metaindex.size);
  PutFixed64(dst, index.offset);
  PutFixed64(dst, index.size);
  PutFixed32(dst, format_version);
  PutFixed32(dst, crc32c::Mask(crc32c::Value(dst->data() + start,
                                             kFooterChecksumOffset)));
  PutFixed64(dst, kTableMagicNumber);
}

absl::Status Footer::DecodeFrom(std::string_view input, const std::string& file,
                                uint64_t footer_offset) {
  if (input.size() != kFooterSize) {
    return CorruptionError(file, footer_offset,
                           "file too short to be an SSTable");
  }
  const char* p = input.data();
  if (DecodeFixed64(p + kFooterMagicOffset) != kTableMagicNumber) {
    return CorruptionError(file, footer_offset + kFooterMagicOffset,
                           "bad magic number in footer (not an SSTable)");
  }
  const uint32_t stored =
      crc32c::Unmask(DecodeFixed32(p + kFooterChecksumOffset));
  if (stored != crc32c::Value(p, kFooterChecksumOffset)) {
    return CorruptionError(file, footer_offset + kFooterChecksumOffset,
                           "footer checksum mismatch");
  }
  // The two handles: four fixed64s, in the order EncodeTo wrote them.
  metaindex.offset = DecodeFixed64(p);
  metaindex.size = DecodeFixed64(p + sizeof(uint64_t));
  index.offset = DecodeFixed64(p + 2 * sizeof(uint64_t));
  index.size = DecodeFixed64(p + 3 * sizeof(uint64_t));
  format_version = DecodeFixed32(p + kFooterVersionOffset);
  if (format_version != kTableFormatVersion) {
    return absl::UnimplementedError(absl::StrCat(
        file, ": unsupported table format version ", format_version,
        " (this build reads version ", kTableFormatVersion, ")"));
  }
  return absl::OkStatus();
}

void AppendBlockTrailer(std::string_view contents, BlockType type,
                        std::string* dst) {
  char trailer[kBlockTrailerSize];
  trailer[0] = static_cast<char>(type);
  uint32_t crc = crc32c::Value(contents.data(), contents.size());
  crc = crc32c::Extend(crc, trailer, 1);
  EncodeFixed32(trailer + 1, crc32c::Mask(crc));
  dst->append(trailer, kBlockTrailerSize);
}

absl::Status CorruptionError(const std::string& file, uint64_t offset,
                             std::string_view what) {
  return absl::DataLossError(
      absl::StrCat(file, ": ", absl::string_view(what.data(), what.size()),
                   " at offset ", offset));
}

absl::Status CheckEntrySize(const char* what, std::string_view key,
                            std::string_view value) {
  if (key.size() > kMaxKeySize) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": key of ", key.size(),
                     " bytes is larger than kMaxKeySize (", kMaxKeySize, ")"));
  }
  if (value.size() > kMaxValueSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": value of ", value.size(),
        " bytes is larger than kMaxValueSize (", kMaxValueSize, ")"));
  }
  return absl::OkStatus();
}

absl::Status ReadBlock(const RandomAccessFile& file,
                       const std::string& file_name, const BlockHandle& handle,
                       BlockContents* out) {
  if (handle.size > std::numeric_limits<uint32_t>::max()) {
    return CorruptionError(file_name, handle.offset, "block size too large");
  }
  const size_t n = static_cast<size_t>(handle.size);
  // Read into a per-thread scratch buffer: a mapped file hands back its own
  // memory and never touches it, and a compressed block is decompressed
  // into its own buffer anyway, so only a raw block read with pread pays
  // a copy. Large blocks get a buffer of their own rather than grow it.
  constexpr size_t kMaxScratch = 256 << 10;
  // First size of the buffer: a few default-sized (4 KiB) blocks' worth, so
  // a thread's first reads do not regrow it.
  constexpr size_t kMinScratch = 16 << 10;
  thread_local std::vector<char> scratch;
  std::unique_ptr<char[]> large;
  char* buf;
  if (n + kBlockTrailerSize <= kMaxScratch) {
    if (scratch.size() < n + kBlockTrailerSize) {
      scratch.resize(std::max(n + kBlockTrailerSize, kMinScratch));
    }
    buf = scratch.data();
  } else {
    large.reset(new char[n + kBlockTrailerSize]);
    buf = large.get();
  }
  std::string_view raw;
  absl::Status s = file.Read(handle.offset, n + kBlockTrailerSize, &raw, buf);
  if (!s.ok()) return s;
  if (raw.size() != n + kBlockTrailerSize) {
    return CorruptionError(file_name, handle.offset,
                           "truncated block read (file too short)");
  }
  const char* data = raw.data();
  const uint32_t stored = crc32c::Unmask(DecodeFixed32(data + n + 1));
  if (stored != crc32c::Value(data, n + 1)) {
    return CorruptionError(file_name, handle.offset, "block checksum mismatch");
  }
  switch (static_cast<uint8_t>(data[n])) {
    case kRawBlock: {
      std::unique_ptr<char[]> owned(new char[std::max<size_t>(n, 1)]);
      std::memcpy(owned.get(), data, n);
      out->data = std::string_view(owned.get(), n);
      out->owned = std::move(owned);
      out->owned_size = n;
      return absl::OkStatus();
    }
    case kSnappyBlock: {
      size_t ulength = 0;
      // No Snappy element expands by more than 64/3 (a 3-byte copy element
      // of 64 bytes; snappy's format_description.txt), so a larger stated
      // length is damage: refuse it before allocating it. Past kMaxBlockSize
      // it is refused too: no block that large was ever written.
      constexpr size_t kSnappyMaxCopyLength = 64;
      constexpr size_t kSnappyCopyElementSize = 3;
      if (!snappy::GetUncompressedLength(data, n, &ulength) ||
          ulength > kMaxBlockSize ||
          ulength > kSnappyMaxCopyLength * (n / kSnappyCopyElementSize + 1)) {
        return CorruptionError(file_name, handle.offset,
                               "bad snappy block length");
      }
      std::unique_ptr<char[]> ubuf(new char[ulength]);
      if (!snappy::RawUncompress(data, n, ubuf.get())) {
        return CorruptionError(file_name, handle.offset,
                               "bad snappy block contents");
      }
      out->data = std::string_view(ubuf.get(), ulength);
      out->owned = std::move(ubuf);
      out->owned_size = ulength;
      return absl::OkStatus();
    }
    default:
      return CorruptionError(file_name, handle.offset,
                             "unknown block compression type");
  }
}

}  // namespace sift
