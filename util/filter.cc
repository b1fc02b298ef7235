// FilterBuilder and FilterReader (util/filter.h); the bytes are specified
// in table/FORMAT.md, "Filter bytes".

#include "util/filter.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/coding.h"

namespace sift {
namespace {

// Trailer offsets, from the start of the trailer (table/FORMAT.md, "Filter
// bytes").
constexpr size_t kNumBitsOffset = 0;
constexpr size_t kNumKeysOffset = 8;
constexpr size_t kNumProbesOffset = 16;
constexpr size_t kLayoutOffset = 17;
constexpr size_t kMagicOffset = 18;

// Sorts *v and removes duplicates. Above a few thousand hashes an LSD radix
// sort (six passes of 11 bits, ping-ponging with a scratch copy) beats
// std::sort: `filter_bench --benchmark_filter=BM_Build` went from 103 to 56
// ns per key (kBlocked, 40K keys) and from 140 to 96 (1M keys).
void SortUnique(std::vector<uint64_t>* v) {
  constexpr size_t kRadixMinSize = 4096;
  if (v->size() < kRadixMinSize) {
    std::sort(v->begin(), v->end());
  } else {
    constexpr int kDigitBits = 11;
    constexpr int kPasses = (64 + kDigitBits - 1) / kDigitBits;  // even
    constexpr size_t kBuckets = size_t{1} << kDigitBits;
    static_assert(kPasses % 2 == 0, "the result must end in *v");
    std::vector<size_t> counts(kPasses * kBuckets, 0);
    for (uint64_t h : *v) {
      for (int pass = 0; pass < kPasses; ++pass) {
        ++counts[pass * kBuckets +
                 ((h >> (pass * kDigitBits)) & (kBuckets - 1))];
      }
    }
    std::vector<uint64_t> scratch(v->size());
    std::vector<uint64_t>* from = v;
    std::vector<uint64_t>* to = &scratch;
    for (int pass = 0; pass < kPasses; ++pass) {
      size_t* next = &counts[pass * kBuckets];  // counts -> first positions
      size_t sum = 0;
      for (size_t b = 0; b < kBuckets; ++b) {
        const size_t c = next[b];
        next[b] = sum;
        sum += c;
      }
      const int shift = pass * kDigitBits;
      for (uint64_t h : *from) {
        (*to)[next[(h >> shift) & (kBuckets - 1)]++] = h;
      }
      std::swap(from, to);
    }
  }
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

uint64_t MinBits(FilterLayout layout) {
  return layout == FilterLayout::kBlocked ? kBloomBlockBits
                                          : kBloomMinStandardBits;
}

// Writes the 20-byte trailer of a kStandard or kBlocked filter at trailer.
void WriteTrailer(FilterLayout layout, const FilterShape& shape,
                  char* trailer) {
  EncodeFixed64(trailer + kNumBitsOffset, shape.num_bits);
  EncodeFixed64(trailer + kNumKeysOffset, shape.num_keys);
  trailer[kNumProbesOffset] = static_cast<char>(shape.num_probes);
  trailer[kLayoutOffset] = static_cast<char>(layout);
  trailer[kMagicOffset] = static_cast<char>(kBloomMagic & 0xff);
  trailer[kMagicOffset + 1] = static_cast<char>(kBloomMagic >> 8);
}

}  // namespace

const char* FilterLayoutName(FilterLayout layout) {
  switch (layout) {
    case FilterLayout::kStandard:
      return "standard";
    case FilterLayout::kBlocked:
      return "blocked";
    case FilterLayout::kRibbon:
      return "ribbon";
  }
  return "unknown";
}

bool ParseFilterLayout(std::string_view name, FilterLayout* layout) {
  for (FilterLayout l : {FilterLayout::kStandard, FilterLayout::kBlocked,
                         FilterLayout::kRibbon}) {
    if (name == FilterLayoutName(l)) {
      *layout = l;
      return true;
    }
  }
  return false;
}

FilterBuilder::FilterBuilder(FilterLayout layout, double fp_chance)
    : FilterBuilder(layout, fp_chance, ChooseBloomParams(layout, fp_chance)) {}

FilterBuilder::FilterBuilder(FilterLayout layout, double fp_chance,
                             const BloomParams& params)
    : layout_(layout), fp_chance_(fp_chance), params_(params) {}

FilterShape FilterBuilder::ShapeFor(uint64_t num_keys) const {
  return BloomShapeFor(layout_, fp_chance_, params_, num_keys);
}

void FilterBuilder::Finish(std::string* dst) {
  // Sorting also makes kBlocked writes walk the blocks in order: FastRange
  // is monotone in the hash. Ribbon needs its input sorted (util/ribbon.h).
  SortUnique(&hashes_);
  if (layout_ != FilterLayout::kRibbon) {
    FinishBloom(layout_, dst);
    return;
  }
  if (RibbonPays(fp_chance_, params_, hashes_.size()) &&
      BuildRibbonFilter(hashes_, fp_chance_, dst)) {
    last_shape_ = RibbonShapeFor(fp_chance_, hashes_.size());
    hashes_.clear();
    return;
  }
  FinishBloom(FilterLayout::kBlocked, dst);
}

void FilterBuilder::FinishBloom(FilterLayout layout, std::string* dst) {
  // kRibbon's params_ are kBlocked's (ChooseBloomParams).
  const FilterShape shape =
      BloomShapeFor(layout, fp_chance_, params_, hashes_.size());

  const size_t start = dst->size();
  const size_t body_bytes = shape.num_bits / 8;
  dst->resize(start + body_bytes + kBloomTrailerSize, '\0');
  auto* bits = reinterpret_cast<uint8_t*>(dst->data() + start);
  if (layout == FilterLayout::kBlocked) {
    SetBlockedBits(bits, shape);
  } else {
    SetStandardBits(bits, shape);
  }

  WriteTrailer(layout, shape, dst->data() + start + body_bytes);

  last_shape_ = shape;
  hashes_.clear();
}

void FilterBuilder::SetStandardBits(uint8_t* bits,
                                    const FilterShape& shape) const {
  for (uint64_t h : hashes_) {
    bloom_internal::SetBits(FilterLayout::kStandard, bits, shape.num_bits,
                            shape.num_probes, h);
  }
}

void FilterBuilder::SetBlockedBits(uint8_t* bits,
                                   const FilterShape& shape) const {
  for (uint64_t h : hashes_) {
    bloom_internal::SetBits(FilterLayout::kBlocked, bits, shape.num_bits,
                            shape.num_probes, h);
  }
}

FilterReader::FilterReader(std::string_view filter) {
  if (filter.size() < kBloomTrailerSize) return;
  const size_t body_bytes = filter.size() - kBloomTrailerSize;
  const char* trailer = filter.data() + body_bytes;
  const auto byte = [trailer](size_t offset) {
    return static_cast<uint8_t>(trailer[offset]);
  };
  const uint16_t magic =
      static_cast<uint16_t>(byte(kMagicOffset) | (byte(kMagicOffset + 1) << 8));
  if (magic != kBloomMagic) return;

  const uint8_t tag = byte(kLayoutOffset);
  if (tag == static_cast<uint8_t>(FilterLayout::kRibbon)) {
    // Its own trailer ends in the same layout and magic bytes.
    if (ribbon_.Parse(filter)) {
      num_bits_ = ribbon_.num_bits();
      num_keys_ = ribbon_.num_keys();
      num_probes_ = ribbon_.num_probes();
      kind_ = Kind::kRibbon;
    }
    return;
  }
  if (tag != static_cast<uint8_t>(FilterLayout::kStandard) &&
      tag != static_cast<uint8_t>(FilterLayout::kBlocked)) {
    return;  // a layout from a newer format, or garbage
  }
  const auto layout = static_cast<FilterLayout>(tag);
  const int probes = byte(kNumProbesOffset);
  if (probes < 1 || probes > kBloomMaxProbes) return;

  const uint64_t num_bits = DecodeFixed64(trailer + kNumBitsOffset);
  const uint64_t num_keys = DecodeFixed64(trailer + kNumKeysOffset);
  // The body must be exactly the bits the trailer claims: this is what
  // rejects a truncated filter, whose "trailer" is then body bytes.
  if (num_bits % 8 != 0 || num_bits / 8 != body_bytes) return;
  if (num_bits < MinBits(layout)) return;
  if (layout == FilterLayout::kBlocked && num_bits % kBloomBlockBits != 0) {
    return;
  }
  // The builder writes a key-less filter at the minimum size only.
  if (num_keys == 0 && num_bits != MinBits(layout)) return;

  bits_ = reinterpret_cast<const uint8_t*>(filter.data());
  num_bits_ = num_bits;
  num_blocks_ = num_bits / kBloomBlockBits;
  num_keys_ = num_keys;
  num_probes_ = probes;
  kind_ = layout == FilterLayout::kBlocked ? Kind::kBlocked : Kind::kStandard;
}

double FilterReader::bits_per_key() const {
  return num_keys_ == 0
             ? 0.0
             : static_cast<double>(num_bits_) / static_cast<double>(num_keys_);
}

double FilterReader::ExpectedFpRate() const {
  if (!valid()) return 1.0;
  if (num_keys_ == 0) return 0.0;
  if (kind_ == Kind::kStandard) {
    return StandardFpRateFinite(num_bits_, num_keys_, num_probes_);
  }
  if (kind_ == Kind::kRibbon) return ribbon_.ExpectedFpRate();
  return BlockedFpRate(bits_per_key(), num_probes_);
}

std::string NewEmptyBloomFilter(FilterLayout layout, const FilterShape& shape) {
  std::string filter(shape.num_bits / 8 + kBloomTrailerSize, '\0');
  WriteTrailer(layout, shape, filter.data() + shape.num_bits / 8);
  return filter;
}

absl::Status BloomOrMerge(std::string_view other, std::string* filter) {
  const FilterReader dst(*filter);
  const FilterReader src(other);
  for (const auto* f : {&dst, &src}) {
    if (!f->valid() || f->layout() == FilterLayout::kRibbon) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot merge filters: the ", f == &dst ? "target" : "source",
          " is not a valid standard or blocked Bloom filter",
          f->valid() ? " (it is a Ribbon filter)" : ""));
    }
  }
  std::vector<std::string> differ;
  if (dst.layout() != src.layout()) {
    differ.push_back(absl::StrCat("layout ", FilterLayoutName(dst.layout()),
                                  " vs ", FilterLayoutName(src.layout())));
  }
  if (dst.num_bits() != src.num_bits()) {
    differ.push_back(
        absl::StrCat("num_bits ", dst.num_bits(), " vs ", src.num_bits()));
  }
  if (dst.num_probes() != src.num_probes()) {
    differ.push_back(absl::StrCat("num_probes ", dst.num_probes(), " vs ",
                                  src.num_probes()));
  }
  if (!differ.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot merge filters built with different parameters: ",
                     absl::StrJoin(differ, ", ")));
  }
  const size_t body = dst.num_bits() / 8;
  char* out = filter->data();
  for (size_t i = 0; i < body; ++i) out[i] |= other[i];
  WriteTrailer(dst.layout(),
               FilterShape{dst.num_keys() + src.num_keys(), dst.num_bits(),
                           dst.num_probes()},
               out + body);
  return absl::OkStatus();
}

}  // namespace sift
