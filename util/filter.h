// The filter of one SSTable, of any layout. FilterBuilder gathers the
// hashes of a table's keys and writes one self-describing filter for
// exactly those keys; FilterReader parses one and answers "may contain".
// Both dispatch on FilterLayout to the variants: Bloom (kStandard,
// kBlocked: util/bloom.h, probe positions, model and sizing) and Ribbon
// (kRibbon: util/ribbon.h, which falls back to blocked Bloom where it does
// not pay).
//
// Serialized format: table/FORMAT.md, "Filter bytes" (body, then a 20-byte
// trailer: num_bits, num_keys, num_probes, layout, magic) and "Ribbon
// filter bytes". The trailer names the layout, so a reader never needs
// the options a filter was built with.

#ifndef SIFT_UTIL_FILTER_H_
#define SIFT_UTIL_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "sift/filter_policy.h"
#include "sift/options.h"
#include "util/bloom.h"
#include "util/ribbon.h"

namespace sift {

// The layout's name in properties, tools and flags: "standard", "blocked",
// "ribbon" ("unknown" for other values).
const char* FilterLayoutName(FilterLayout layout);

// The layout called `name` (as FilterLayoutName gives it); false if none.
bool ParseFilterLayout(std::string_view name, FilterLayout* layout);

// ---- Building -------------------------------------------------------------

// Gathers 64-bit key hashes (KeyHash from util/hash.h), then builds one
// filter for exactly those keys. Not thread-safe; one builder per table.
class FilterBuilder {
 public:
  // REQUIRES: 0 < fp_chance < 1 and layout is a FilterLayout enumerator
  // (callers validate; FilterPolicy::Create does).
  FilterBuilder(FilterLayout layout, double fp_chance);
  // The same with params = ChooseBloomParams(layout, fp_chance) already
  // computed (it costs up to a fraction of a millisecond for kBlocked).
  FilterBuilder(FilterLayout layout, double fp_chance,
                const BloomParams& params);

  FilterBuilder(const FilterBuilder&) = delete;
  FilterBuilder& operator=(const FilterBuilder&) = delete;

  // Adds one key by its hash. Equal hashes count once: duplicates collapse
  // in Finish (sort + unique), so num_keys is exact.
  void AddHash(uint64_t hash) { hashes_.push_back(hash); }

  // Hashes added since the last Finish, duplicates included.
  size_t num_hashes() const { return hashes_.size(); }

  // Appends the serialized, self-describing filter of the hashes added since
  // the last Finish to *dst, then resets the builder for the next filter.
  // kRibbon writes a kBlocked filter where Ribbon does not pay or fails to
  // build (see BloomShapeFor); the filter's trailer says which it is.
  // Memory: 8 bytes per key for the hashes, 8 more while sorting them, and
  // for kRibbon the construction memory of util/ribbon.h.
  void Finish(std::string* dst);

  // The shape Finish would choose for num_keys distinct keys.
  FilterShape ShapeFor(uint64_t num_keys) const;

  // The shape of the filter the last Finish wrote (all zero before).
  const FilterShape& last_shape() const { return last_shape_; }

  FilterLayout layout() const { return layout_; }
  double fp_chance() const { return fp_chance_; }
  // The asymptotic bits per key and probes chosen for this target.
  const BloomParams& params() const { return params_; }

 private:
  void SetStandardBits(uint8_t* bits, const FilterShape& shape) const;
  void SetBlockedBits(uint8_t* bits, const FilterShape& shape) const;
  void FinishBloom(FilterLayout layout, std::string* dst);

  const FilterLayout layout_;
  const double fp_chance_;
  const BloomParams params_;
  std::vector<uint64_t> hashes_;
  FilterShape last_shape_;
};

// ---- Reading --------------------------------------------------------------

// A parsed, non-owning view of a serialized filter of any layout (kRibbon
// included: it shares the last three trailer bytes, layout and magic): a few
// words, no allocation. Construction never fails: an empty, truncated, corrupt
// or unknown-format filter yields valid() == false, and such a reader answers
// MayContainHash() == true for every hash (never a false negative). No byte
// outside `filter` is ever read.
// REQUIRES: the bytes of `filter` outlive the reader and do not change.
// Thread safety: const methods may be called concurrently.
class FilterReader {
 public:
  FilterReader() = default;  // invalid: always "may match"
  explicit FilterReader(std::string_view filter);

  bool valid() const { return kind_ != Kind::kInvalid; }

  // False means the key with this KeyHash is definitely not in the filter.
  bool MayContainHash(uint64_t hash) const {
    switch (kind_) {
      case Kind::kBlocked:
        return BlockedMayContain(hash);
      case Kind::kStandard:
        return StandardMayContain(hash);
      case Kind::kRibbon:
        return ribbon_.MayContainHash(hash);
      case Kind::kInvalid:
        break;
    }
    return true;
  }

  // Asks the CPU to start loading the cache line(s) MayContainHash(hash)
  // will read: one for kBlocked, num_probes for kStandard, two to four for
  // kRibbon. Issue it for every file a Get will probe, then probe, to
  // overlap the misses.
  void Prefetch(uint64_t hash) const {
    if (kind_ == Kind::kRibbon) {
      ribbon_.Prefetch(hash);
    } else if (kind_ == Kind::kBlocked) {
      __builtin_prefetch(bloom_internal::BlockOf(bits_, num_blocks_, hash));
    } else if (kind_ == Kind::kStandard) {
      const uint8_t* bits = bits_;
      bloom_internal::ForEachStandardBit(hash, num_bits_, num_probes_,
                                         [bits](uint64_t i) {
                                           __builtin_prefetch(bits + (i >> 3));
                                           return true;
                                         });
    }
  }

  // The trailer's fields; kStandard / 0 for an invalid filter. For kRibbon,
  // num_probes is the result bits of its wider section and num_bits the
  // bits of its body.
  FilterLayout layout() const {
    switch (kind_) {
      case Kind::kBlocked:
        return FilterLayout::kBlocked;
      case Kind::kRibbon:
        return FilterLayout::kRibbon;
      default:
        return FilterLayout::kStandard;
    }
  }
  int num_probes() const { return num_probes_; }
  uint64_t num_keys() const { return num_keys_; }
  uint64_t num_bits() const { return num_bits_; }
  double bits_per_key() const;
  // The false-positive rate the layout's model predicts for this filter's
  // own bits per key and probes (for large filters; small ones do better).
  // 1 for an invalid filter, 0 for an empty one.
  double ExpectedFpRate() const;

 private:
  enum class Kind : uint8_t { kInvalid, kStandard, kBlocked, kRibbon };

  // Stops at the first clear bit: at the usual fill of one half, a miss
  // reads two cache lines on average, a hit k.
  bool StandardMayContain(uint64_t hash) const {
    const uint8_t* bits = bits_;
    return bloom_internal::ForEachStandardBit(
        hash, num_bits_, num_probes_,
        [bits](uint64_t i) { return bloom_internal::TestBit(bits, i); });
  }

  // Branch-free inside the block: all k bits are tested, then combined.
  bool BlockedMayContain(uint64_t hash) const {
    return bloom_internal::TestBlockedBits(bits_, num_blocks_, num_probes_,
                                           hash);
  }

  // Invariant: for kStandard and kBlocked, bits_ points at num_bits_ / 8
  // readable bytes, num_bits_ >= 64, 1 <= num_probes_ <= kBloomMaxProbes,
  // and for kBlocked num_blocks_ = num_bits_ / 512 >= 1. For kRibbon,
  // ribbon_ holds the parsed filter (bits_ and num_blocks_ are unused).
  const uint8_t* bits_ = nullptr;
  uint64_t num_bits_ = 0;
  uint64_t num_blocks_ = 0;
  uint64_t num_keys_ = 0;
  int num_probes_ = 0;
  Kind kind_ = Kind::kInvalid;
  RibbonFilterReader ribbon_;
};

// ---- Filters that change after they are built -----------------------------
// A static filter is built once from all its keys. Two uses change one
// afterwards, both on the kStandard and kBlocked layouts only (a Ribbon
// filter is a solved linear system: a key cannot be added, nor two ORed):
// - growing: an empty filter sized for a capacity, keys added one by one
//   (sift::ScalableBloomFilter's sub-filters, bloom_internal::SetBits);
// - merging: the bitwise OR of two filters of identical shape holds the
//   union of their keys, with the false-positive rate of a filter of the
//   same shape holding that many keys (FilterPolicy::MergeFilters).

// A serialized filter (table/FORMAT.md, "Filter bytes") of `shape` with no
// bit set, its trailer recording shape.num_keys (the keys it is sized for;
// at least 1 unless the body has the minimum size, as the format asks).
// REQUIRES: layout is kStandard or kBlocked, and shape is what BloomShapeFor
// gives for that layout.
std::string NewEmptyBloomFilter(FilterLayout layout, const FilterShape& shape);

// ORs the body of `other` into *filter. InvalidArgument, changing nothing,
// if either is not a valid kStandard or kBlocked filter, or if their
// layouts, num_bits or num_probes differ (naming each one that differs with
// both values). The result's num_keys is the sum of both (an upper bound:
// a key both held counts twice).
absl::Status BloomOrMerge(std::string_view other, std::string* filter);

}  // namespace sift

#endif  // SIFT_UTIL_FILTER_H_
