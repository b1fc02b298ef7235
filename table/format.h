// Byte-level pieces of the SSTable format: block handles, the block trailer,
// the footer, and reading one block from a file. The bytes are specified in
// table/FORMAT.md; the constants here must match it.

#ifndef SIFT_TABLE_FORMAT_H_
#define SIFT_TABLE_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/env.h"
#include "sift/options.h"

namespace sift {

// The table format version this code writes (FORMAT.md, "Format versions").
constexpr uint32_t kTableFormatVersion = 1;
// "siftSST1" read as a little-endian fixed64. DO NOT CHANGE.
constexpr uint64_t kTableMagicNumber = 0x3154535374666973ull;
constexpr size_t kFooterSize = 48;
// Where the footer's fields after the two block handles start (FORMAT.md,
// "Footer"); the checksum covers the bytes before it. DO NOT CHANGE.
constexpr size_t kFooterVersionOffset = 32;
constexpr size_t kFooterChecksumOffset = 36;
constexpr size_t kFooterMagicOffset = 40;
// 1-byte compression type + fixed32 masked crc32c. DO NOT CHANGE.
constexpr size_t kBlockTrailerSize = 5;

// The largest block contents (uncompressed) a table holds: the writer fails
// rather than write a larger one, and the reader refuses a compressed block
// that says it is larger. The API limits (kMaxKeySize, kMaxValueSize and
// block_size, sift/options.h) keep every block well under it.
constexpr size_t kMaxBlockSize = size_t{1} << 30;
// The largest Options::block_size: a block ends after the entry that takes
// it past block_size, so it holds at most block_size + one entry.
constexpr size_t kMaxBlockSizeOption = size_t{256} << 20;
// Bytes a block spends on one entry beyond its user key and value: three
// varint32 lengths (at most 15), the internal-key trailer (8) and a restart
// slot (4), rounded up with room to spare.
constexpr size_t kMaxEntryOverhead = 64;
static_assert(kMaxBlockSizeOption + kMaxKeySize + kMaxValueSize +
                      kMaxEntryOverhead <
                  kMaxBlockSize,
              "a full block plus the largest entry must fit in a block");

// InvalidArgument, naming the size and the limit, if key or value is
// larger than kMaxKeySize / kMaxValueSize. `what` names the caller.
absl::Status CheckEntrySize(const char* what, std::string_view key,
                            std::string_view value);

// Block compression types as stored in trailers. DO NOT CHANGE.
enum BlockType : uint8_t { kRawBlock = 0, kSnappyBlock = 1 };

// Where a block lives: offset and size of its contents (without trailer).
struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;

  void EncodeTo(std::string* dst) const;  // two varint64s
  // Consumes a handle from *input; false if malformed.
  bool DecodeFrom(std::string_view* input);
  // offset + size + trailer, with overflow checks, <= limit.
  bool FitsBefore(uint64_t limit) const;
};

struct Footer {
  BlockHandle metaindex;
  BlockHandle index;
  uint32_t format_version = kTableFormatVersion;

  void EncodeTo(std::string* dst) const;  // exactly kFooterSize bytes
  // Validates magic, checksum and version. `file` names the file in errors;
  // footer_offset is where the footer starts in it, so that errors give
  // offsets in the file rather than in the footer.
  absl::Status DecodeFrom(std::string_view input, const std::string& file,
                          uint64_t footer_offset = 0);
};

// A block's decoded contents. `data` points into `owned` (or into memory
// the caller keeps alive, when owned is empty).
struct BlockContents {
  std::string_view data;
  std::unique_ptr<char[]> owned;
  size_t owned_size = 0;  // bytes held by `owned`, for memory accounting
};

// Reads the block at handle from file, verifies its checksum, and
// decompresses it. Errors are DataLoss naming `file_name` and the offset.
absl::Status ReadBlock(const RandomAccessFile& file,
                       const std::string& file_name, const BlockHandle& handle,
                       BlockContents* out);

// Appends the trailer for contents stored with `type`.
void AppendBlockTrailer(std::string_view contents, BlockType type,
                        std::string* dst);

// "DataLoss: <file>: <what> at offset N".
absl::Status CorruptionError(const std::string& file, uint64_t offset,
                             std::string_view what);

}  // namespace sift

#endif  // SIFT_TABLE_FORMAT_H_
