// The range-deletion block of a table: its range tombstones, one entry per
// tombstone (table/FORMAT.md, "Range-deletion block"). A table without
// range tombstones has no such block and reads as before it existed.

#ifndef SIFT_TABLE_RANGE_DEL_BLOCK_H_
#define SIFT_TABLE_RANGE_DEL_BLOCK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "table/range_tombstone.h"

namespace sift {

// The block's name in the metaindex. DO NOT CHANGE.
inline constexpr char kRangeDelBlockName[] = "sift.range_del";

// The block contents for tombstones (any order; sorted here). Tombstones
// with the same begin and sequence are written once, with the larger end.
// REQUIRES: every tombstone has begin < end.
std::string EncodeRangeDelBlock(std::vector<RangeTombstone> tombstones);

// Decodes a range-deletion block read from `file` at `offset`. DataLoss,
// naming both, for a malformed block or entry: a key that is not
// (begin, sequence, kTypeRangeDeletion), or begin >= end.
absl::Status DecodeRangeDelBlock(std::string_view contents,
                                 const std::string& file, uint64_t offset,
                                 std::vector<RangeTombstone>* out);

}  // namespace sift

#endif  // SIFT_TABLE_RANGE_DEL_BLOCK_H_
