// Encoding of TableProperties as the properties block of table/FORMAT.md.

#ifndef SIFT_TABLE_PROPERTIES_H_
#define SIFT_TABLE_PROPERTIES_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "sift/table_properties.h"
#include "table/block.h"

namespace sift {

// Property names as stored. DO NOT CHANGE.
namespace prop {
inline constexpr char kBitsPerKey[] = "sift.bloom.bits.per.key";
inline constexpr char kFpChance[] = "sift.bloom.fp.chance";
inline constexpr char kLayout[] = "sift.bloom.layout";
inline constexpr char kFilterKeys[] = "sift.bloom.num.keys";
inline constexpr char kProbes[] = "sift.bloom.num.probes";
inline constexpr char kColumnFamilyId[] = "sift.column.family.id";
inline constexpr char kColumnFamilyName[] = "sift.column.family.name";
inline constexpr char kComparator[] = "sift.comparator";
inline constexpr char kCompression[] = "sift.compression";
inline constexpr char kCreationTime[] = "sift.creation.time";
inline constexpr char kDataSize[] = "sift.data.size";
inline constexpr char kFilterPolicy[] = "sift.filter.policy";
inline constexpr char kFilterSize[] = "sift.filter.size";
inline constexpr char kFormatVersion[] = "sift.format.version";
inline constexpr char kIndexSize[] = "sift.index.size";
inline constexpr char kLargestKey[] = "sift.largest.key";
inline constexpr char kNumDataBlocks[] = "sift.num.data.blocks";
inline constexpr char kNumDeletions[] = "sift.num.deletions";
inline constexpr char kNumEntries[] = "sift.num.entries";
inline constexpr char kNumRangeDeletions[] = "sift.num.range.deletions";
inline constexpr char kRawKeySize[] = "sift.raw.key.size";
inline constexpr char kRawValueSize[] = "sift.raw.value.size";
inline constexpr char kSmallestKey[] = "sift.smallest.key";
}  // namespace prop

// The contents of a properties block (restart interval 1, sorted names).
std::string EncodeProperties(const TableProperties& props);

// Parses a properties block; unknown names are skipped. DataLoss on a
// malformed block or value.
absl::Status DecodeProperties(const Block& block, TableProperties* props);

}  // namespace sift

#endif  // SIFT_TABLE_PROPERTIES_H_
