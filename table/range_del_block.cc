#include "table/range_del_block.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "sift/comparator.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "table/format.h"

namespace sift {

std::string EncodeRangeDelBlock(std::vector<RangeTombstone> tombstones) {
  // Internal-key order: begin ascending, then sequence descending.
  std::sort(tombstones.begin(), tombstones.end(),
            [](const RangeTombstone& a, const RangeTombstone& b) {
              const int r = CompareUserKeys(a.begin, b.begin);
              if (r != 0) return r < 0;
              if (a.seq != b.seq) return a.seq > b.seq;
              return CompareUserKeys(a.end, b.end) > 0;  // widest first
            });
  BlockBuilder block(1);
  std::string key;
  const RangeTombstone* last = nullptr;
  for (const RangeTombstone& t : tombstones) {
    if (last != nullptr && last->begin == t.begin && last->seq == t.seq) {
      continue;
    }
    key.clear();
    AppendInternalKey(&key, t.begin, t.seq, kTypeRangeDeletion);
    block.Add(key, t.end);
    last = &t;
  }
  return std::string(block.Finish());
}

absl::Status DecodeRangeDelBlock(std::string_view contents,
                                 const std::string& file, uint64_t offset,
                                 std::vector<RangeTombstone>* out) {
  out->clear();
  // The block borrows contents, which the caller keeps alive.
  BlockContents borrowed;
  borrowed.data = contents;
  Block block(std::move(borrowed));
  std::unique_ptr<Iterator> it =
      block.NewIterator(KeyComparator::Internal(BytewiseComparator()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view k = it->key();
    if (k.size() < kInternalKeyTrailerSize ||
        (ExtractTrailer(k) & kValueTypeMask) != kTypeRangeDeletion) {
      return CorruptionError(file, offset,
                             "range-deletion block holds a key that is not "
                             "a range tombstone");
    }
    RangeTombstone t{std::string(ExtractUserKey(k)), std::string(it->value()),
                     ExtractTrailer(k) >> kValueTypeBits};
    if (CompareUserKeys(t.begin, t.end) >= 0) {
      return CorruptionError(file, offset,
                             "range-deletion block holds an empty range");
    }
    out->push_back(std::move(t));
  }
  if (!it->status().ok()) {
    return CorruptionError(file, offset,
                           std::string("range-deletion block: ") +
                               std::string(it->status().message()));
  }
  return absl::OkStatus();
}

}  // namespace sift
