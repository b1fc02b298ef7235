#include "table/properties.h"

#include <bit>
#include <cstring>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "table/block_builder.h"
#include "util/coding.h"
#include "util/filter.h"

namespace sift {
namespace {

std::string VarintValue(uint64_t v) {
  std::string s;
  PutVarint64(&s, v);
  return s;
}

std::string DoubleValue(double d) {
  std::string s;
  PutFixed64(&s, std::bit_cast<uint64_t>(d));
  return s;
}

bool ParseVarint(std::string_view v, uint64_t* out) {
  return GetVarint64(&v, out) && v.empty();
}

bool ParseDouble(std::string_view v, double* out) {
  uint64_t bits;
  if (!GetFixed64(&v, &bits) || !v.empty()) return false;
  *out = std::bit_cast<double>(bits);
  return true;
}

}  // namespace

std::string EncodeProperties(const TableProperties& p) {
  // std::map keeps names sorted, as the block format requires.
  std::map<std::string, std::string> m;
  m[prop::kBitsPerKey] = DoubleValue(p.filter_bits_per_key);
  m[prop::kFpChance] = DoubleValue(p.bloom_filter_fp_chance);
  m[prop::kLayout] = VarintValue(static_cast<uint64_t>(p.filter_layout));
  m[prop::kFilterKeys] = VarintValue(p.filter_num_keys);
  m[prop::kProbes] = VarintValue(p.filter_num_probes);
  // Only when known: a file whose writer did not name its order says nothing.
  if (!p.comparator_name.empty()) m[prop::kComparator] = p.comparator_name;
  if (p.column_family_id != TableProperties::kUnknownColumnFamily) {
    m[prop::kColumnFamilyId] = VarintValue(p.column_family_id);
    m[prop::kColumnFamilyName] = p.column_family_name;
  }
  m[prop::kCompression] = VarintValue(static_cast<uint64_t>(p.compression));
  m[prop::kCreationTime] = VarintValue(p.creation_time);
  m[prop::kDataSize] = VarintValue(p.data_size);
  m[prop::kFilterSize] = VarintValue(p.filter_size);
  m[prop::kFormatVersion] = VarintValue(p.format_version);
  m[prop::kIndexSize] = VarintValue(p.index_size);
  m[prop::kLargestKey] = p.largest_key;
  m[prop::kNumDataBlocks] = VarintValue(p.num_data_blocks);
  m[prop::kNumDeletions] = VarintValue(p.num_deletions);
  m[prop::kNumEntries] = VarintValue(p.num_entries);
  // Only in files that hold range tombstones: other files keep their bytes.
  if (p.num_range_deletions > 0) {
    m[prop::kNumRangeDeletions] = VarintValue(p.num_range_deletions);
  }
  m[prop::kRawKeySize] = VarintValue(p.raw_key_size);
  m[prop::kRawValueSize] = VarintValue(p.raw_value_size);
  m[prop::kSmallestKey] = p.smallest_key;
  if (!p.filter_policy.empty()) m[prop::kFilterPolicy] = p.filter_policy;
  BlockBuilder builder(1);
  for (const auto& [name, value] : m) builder.Add(name, value);
  return std::string(builder.Finish());
}

absl::Status DecodeProperties(const Block& block, TableProperties* p) {
  const std::map<std::string_view, uint64_t*> ints = {
      {prop::kFilterKeys, &p->filter_num_keys},
      {prop::kCreationTime, &p->creation_time},
      {prop::kDataSize, &p->data_size},
      {prop::kFilterSize, &p->filter_size},
      {prop::kIndexSize, &p->index_size},
      {prop::kNumDataBlocks, &p->num_data_blocks},
      {prop::kNumDeletions, &p->num_deletions},
      {prop::kNumEntries, &p->num_entries},
      {prop::kNumRangeDeletions, &p->num_range_deletions},
      {prop::kRawKeySize, &p->raw_key_size},
      {prop::kRawValueSize, &p->raw_value_size},
  };
  std::unique_ptr<Iterator> it = block.NewIterator(KeyComparator::Bytes());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view name = it->key();
    const std::string_view value = it->value();
    bool ok = true;
    uint64_t u = 0;
    if (auto i = ints.find(name); i != ints.end()) {
      ok = ParseVarint(value, i->second);
    } else if (name == prop::kBitsPerKey) {
      ok = ParseDouble(value, &p->filter_bits_per_key);
    } else if (name == prop::kFpChance) {
      ok = ParseDouble(value, &p->bloom_filter_fp_chance);
    } else if (name == prop::kLayout) {
      ok = ParseVarint(value, &u) &&
           u <= static_cast<uint64_t>(FilterLayout::kRibbon);
      p->filter_layout = static_cast<FilterLayout>(u);
    } else if (name == prop::kProbes) {
      // Probes beyond what a filter may hold mean a damaged property.
      ok =
          ParseVarint(value, &u) && u <= static_cast<uint64_t>(kBloomMaxProbes);
      p->filter_num_probes = static_cast<uint32_t>(u);
    } else if (name == prop::kCompression) {
      ok = ParseVarint(value, &u) && u <= 1;
      p->compression = static_cast<Compression>(u);
    } else if (name == prop::kFormatVersion) {
      ok = ParseVarint(value, &u) && u <= UINT32_MAX;
      p->format_version = static_cast<uint32_t>(u);
    } else if (name == prop::kLargestKey) {
      p->largest_key.assign(value);
    } else if (name == prop::kSmallestKey) {
      p->smallest_key.assign(value);
    } else if (name == prop::kFilterPolicy) {
      p->filter_policy.assign(value);
    } else if (name == prop::kComparator) {
      p->comparator_name.assign(value);
    } else if (name == prop::kColumnFamilyId) {
      ok = ParseVarint(value, &u) && u < TableProperties::kUnknownColumnFamily;
      p->column_family_id = static_cast<uint32_t>(u);
    } else if (name == prop::kColumnFamilyName) {
      p->column_family_name.assign(value);
    }
    if (!ok) {
      return absl::DataLossError(
          absl::StrCat("bad value for table property ",
                       absl::string_view(name.data(), name.size())));
    }
  }
  return it->status();
}

std::string TableProperties::ToString() const {
  std::string s;
  absl::StrAppendFormat(&s, "format version: %u\n", format_version);
  absl::StrAppendFormat(&s, "creation time: %u\n", creation_time);
  absl::StrAppendFormat(&s, "# entries: %u\n", num_entries);
  absl::StrAppendFormat(&s, "# deletions: %u\n", num_deletions);
  if (num_range_deletions > 0) {
    absl::StrAppendFormat(&s, "# range deletions: %u\n", num_range_deletions);
  }
  absl::StrAppendFormat(&s, "# data blocks: %u\n", num_data_blocks);
  absl::StrAppendFormat(&s, "raw key size: %u\n", raw_key_size);
  absl::StrAppendFormat(&s, "raw value size: %u\n", raw_value_size);
  if (!filter_policy.empty()) {
    absl::StrAppend(&s, "filter policy: ", filter_policy, "\n");
  }
  if (!comparator_name.empty()) {
    absl::StrAppend(&s, "comparator name: ", comparator_name, "\n");
  }
  if (column_family_id != kUnknownColumnFamily) {
    absl::StrAppend(&s, "column family ID: ", column_family_id, "\n");
    absl::StrAppend(&s, "column family name: ", column_family_name, "\n");
  }
  absl::StrAppendFormat(&s, "data blocks total size: %u\n", data_size);
  absl::StrAppendFormat(&s, "index block size: %u\n", index_size);
  absl::StrAppendFormat(&s, "filter block size: %u\n", filter_size);
  absl::StrAppendFormat(
      &s, "compression: %s\n",
      compression == Compression::kSnappy ? "snappy" : "none");
  if (filter_size == 0) {
    absl::StrAppendFormat(&s, "filter: none (fp chance %g)\n",
                          bloom_filter_fp_chance);
  } else {
    absl::StrAppendFormat(&s, "filter layout: %s\n",
                          FilterLayoutName(filter_layout));
    absl::StrAppendFormat(&s, "filter fp chance: %g\n", bloom_filter_fp_chance);
    absl::StrAppendFormat(&s, "filter keys: %u\n", filter_num_keys);
    absl::StrAppendFormat(&s, "filter bits per key: %.3f\n",
                          filter_bits_per_key);
    absl::StrAppendFormat(&s, "filter probes: %u\n", filter_num_probes);
  }
  absl::StrAppendFormat(&s, "smallest key: '%s'\n",
                        absl::CEscape(absl::string_view(smallest_key.data(),
                                                        smallest_key.size())));
  absl::StrAppendFormat(
      &s, "largest key: '%s'\n",
      absl::CEscape(absl::string_view(largest_key.data(), largest_key.size())));
  return s;
}

}  // namespace sift
