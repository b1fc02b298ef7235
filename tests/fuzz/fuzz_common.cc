#include "tests/fuzz/fuzz_common.h"

#include <algorithm>
#include <memory>

#include "db/log_format.h"
#include "table/block.h"
#include "table/format.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace sift::fuzz {
namespace {

// Every block handle the fixer follows must fit before the footer.
void FixTrailer(std::string* file, const BlockHandle& h, uint64_t limit) {
  if (!h.FitsBefore(limit)) return;
  char* p = file->data() + h.offset;
  const uint32_t crc = crc32c::Value(p, h.size + 1);  // contents + type
  EncodeFixed32(p + h.size + 1, crc32c::Mask(crc));
}

// Calls fn(handle) for the value of every entry of the raw block at h.
// Compressed or malformed blocks are skipped: this is only guidance.
template <typename Fn>
void ForEachHandleIn(const std::string& file, const BlockHandle& h,
                     uint64_t limit, Fn fn) {
  if (!h.FitsBefore(limit) || file[h.offset + h.size] != kRawBlock) return;
  BlockContents contents;
  contents.owned.reset(new char[h.size]);
  std::copy_n(file.data() + h.offset, h.size, contents.owned.get());
  contents.data = std::string_view(contents.owned.get(), h.size);
  contents.owned_size = h.size;
  Block block(std::move(contents));
  std::unique_ptr<Iterator> it = block.NewIterator(KeyComparator::Bytes());
  int budget = 100000;  // a handle per entry; entries are >= 3 bytes
  for (it->SeekToFirst(); it->Valid() && --budget > 0; it->Next()) {
    std::string_view v = it->value();
    BlockHandle child;
    if (child.DecodeFrom(&v)) fn(child);
  }
}

}  // namespace

void FixTableChecksums(std::string* file) {
  if (file->size() < kFooterSize) return;
  char* footer = file->data() + file->size() - kFooterSize;
  EncodeFixed32(footer + 36, crc32c::Mask(crc32c::Value(footer, 36)));
  const uint64_t limit = file->size() - kFooterSize;
  const BlockHandle metaindex{DecodeFixed64(footer), DecodeFixed64(footer + 8)};
  const BlockHandle index{DecodeFixed64(footer + 16),
                          DecodeFixed64(footer + 24)};
  // Blocks named inside a block first, then the naming block: its own
  // checksum must not be overwritten by a fix of an overlapping child.
  auto fix = [&](const BlockHandle& h) { FixTrailer(file, h, limit); };
  ForEachHandleIn(*file, metaindex, limit, fix);
  ForEachHandleIn(*file, index, limit, fix);
  fix(metaindex);
  fix(index);
}

void FixLogChecksums(std::string* log_bytes) {
  char* data = log_bytes->data();
  const uint64_t size = log_bytes->size();
  uint64_t pos = 0;
  while (pos < size) {
    const uint64_t left_in_block = log::kBlockSize - pos % log::kBlockSize;
    if (left_in_block < log::kHeaderSize) {
      pos += left_in_block;
      continue;
    }
    if (size - pos < log::kHeaderSize) return;
    char* h = data + pos;
    const uint64_t length = static_cast<uint8_t>(h[4]) |
                            (uint64_t{static_cast<uint8_t>(h[5])} << 8);
    if (h[6] == log::kZeroType && length == 0 && DecodeFixed32(h) == 0) {
      pos += left_in_block;
      continue;
    }
    if (log::kHeaderSize + length > left_in_block ||
        log::kHeaderSize + length > size - pos) {
      return;
    }
    EncodeFixed32(h, crc32c::Mask(crc32c::Value(h + 6, 1 + length)));
    pos += log::kHeaderSize + length;
  }
}

}  // namespace sift::fuzz
