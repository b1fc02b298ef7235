// The calibrated Bloom filter behind sift::FilterPolicy: the hash-based entry
// points used by the table builder (BloomFilterBuilder) and the read path
// (BloomFilterReader), and the false-positive model that sizes them. The
// same two classes build and read the Ribbon layout, whose structure and
// math are in util/ribbon.h.
//
// Serialized format: table/FORMAT.md, "Filter bytes" (body of bits, then a
// 20-byte trailer: num_bits, num_keys, num_probes, layout, magic).
//
// ---- Hashing ---------------------------------------------------------------
// A key is hashed once, h = KeyHash(key) (XXH3-64, util/hash.h); the hash is
// reused for every file's filter. All probe positions derive from h:
//   Remix(x)        SplitMix64's finalizer (G. Steele, D. Lea, C. Flood,
//                   "Fast splittable pseudorandom number generators",
//                   OOPSLA 2014; constants from S. Vigna's splitmix64.c), a
//                   bijection on 64 bits with full avalanche.
//   FastRange(x, n) = floor(x * n / 2^64), a multiply-shift map of a 64-bit
//                   value onto [0, n) (D. Lemire, "Fast random integer
//                   generation in an interval", 2019). Its bias is at most
//                   n / 2^64 relative: nil for any n that fits in memory.
//
// kStandard: one bit array of m bits, k probes at
//   pos_0 = FastRange(h, m),  pos_i = FastRange(Remix(h + i G), m), i < k
// (G = 0x9e3779b97f4a7c15, the golden-ratio step of SplitMix64: the probes
// are SplitMix64's output stream seeded with h). Plain double hashing,
// FastRange(h + i d, m) (A. Kirsch and M. Mitzenmacher, "Less hashing, same
// performance", ESA 2006), matched the model for large m but not for small
// arrays: when d m / 2^64 falls near an integer the k positions collapse
// onto a few bits: over 3000 filters of 8 keys in m = 80 bits (p = 0.01) we
// measured 1.37%, against 0.92% with remixed positions and 0.92% predicted.
// Remixing costs two multiplies per probe after the first, and a miss
// usually stops after one or two probes.
// Sizing is the textbook one (B. Bloom 1970; e.g. Broder and Mitzenmacher,
// "Network applications of Bloom filters", 2004):
//   m = ceil(n * -ln p / (ln 2)^2),  k = max(1, round((m / n) * ln 2)),
//   FP(b = m/n, k) = (1 - e^(-k/b))^k,
// with corrections that only add bits:
// - if rounding k leaves FP(b, k) > p (always for p > 0.5; by at most 0.7%
//   of p below that) m grows to the minimum for that k,
//   b = -k / ln(1 - p^(1/k)): +0.3% bits at p = 0.1, a fraction of a percent
//   for any p <= 0.5 (for p > 0.5, where k = 1, b = -1 / ln(1 - p));
// - m is rounded up to whole bytes and to at least 64 bits;
// - a small array does worse than the formula: its mean fill is
//   1 - (1 - 1/m)^(k n), a little above 1 - e^(-k n / m), and its fill
//   varies, which raises E[fill^k] by about C(k,2) Var(fill) / fill^2 (the
//   delta method). m grows by whole bytes until that estimate meets p
//   (StandardFpRateFinite): 0 to 3% more bits for n below a few hundred,
//   nothing measurable above. Without it, 30 keys at p = 0.01 measured
//   1.036% over 3000 filters.
//
// kBlocked: B = 512-bit blocks (one 64-byte cache line); a key's k bits all
// fall in block FastRange(h, num_blocks), at in-block positions taken as 9-bit
// fields of Remix(h + G), Remix(h + 2G), ... (seven fields per remix). The
// fields are independent and uniform, so the probes are k draws with
// replacement - exactly what the model below assumes - and unrelated to the
// block index. Model (F. Putze, P. Sanders, J. Singler, "Cache-, Hash- and
// Space-Efficient Bloom Filters", WEA 2007, section 3): keys per block are
// Poisson with mean lambda = B / b, and
//   FP(b, k) = sum_i Poisson(i; lambda) * f(k, i),
// where the paper's f(k, i) = (1 - (1 - 1/B)^(k i))^k is the classic
// approximation for one B-bit filter holding i keys. It is low by Jensen's
// inequality (the fill of one block varies), by about 1%, 2%, 4% of p at
// p = 0.01, 0.001, 0.0001 - enough to miss a +-15% bar combined with noise.
// So we use the exact value: with X_t the number of distinct bits set by
// t = k i uniform draws, a query's k draws all hit set bits with chance
//   f(k, i) = E[(X_t / B)^k],
// computed from the occupancy distribution of X_t by the recurrence
//   P_t(x) = P_{t-1}(x) x/B + P_{t-1}(x-1) (B-x+1)/B
// (tabled once per process for t <= 4096; past that a block is so full,
// mean fill 1 - e^-8, that the classic form is within a few parts per
// million, and only targets near 1 get there). For a target p we pick the least
// b for which some k reaches FP(b, k) <= p, and that k. Result: +0.9%, +3.5%,
// +8.1%, +14.9% bits over the textbook b at p = 0.1, 0.01, 0.001, 0.0001. Fewer
// keys than ceil(n b / B) blocks would hold only lower the rate (a binomial
// count of keys per block is less spread than the Poisson one), so small n is
// safe.
//
// ---- Measured vs theoretical -------------------------------------------
// n = 10,000,000 random-byte keys, probed with keys never added; "model" is
// the layout's own expected rate for the filter's actual bits per key and k,
// "bits/key" is 8 * filter bytes / n (trailer included). 1 sigma of the
// measurement is 1/sqrt(false positives): 0.3%, 1%, 1.6%, 1.6% by row.
//   SIFT_LONG_TESTS=1 build/bin/bloom_test --gtest_filter='*TenMillion*'
//
//   layout    p       bits/key (vs textbook)  k   model     measured   probes
//   standard  0.1      4.808  (+0.3%)          3  0.1       0.1009     1M
//   standard  0.01     9.593  (+0.1%)          7  0.01      0.01007    1M
//   standard  0.001   14.378  (+0.0%)         10  0.001     0.0009962  4M
//   standard  0.0001  19.173  (+0.0%)         13  0.0001    0.0001023  40M
//   blocked   0.1      4.836  (+0.9%)          3  0.1       0.09927    1M
//   blocked   0.01     9.918  (+3.5%)          6  0.01      0.009763   1M
//   blocked   0.001   15.546  (+8.1%)          9  0.001     0.001003   4M
//   blocked   0.0001  22.030 (+14.9%)         12  0.0001    0.00009955 40M
//
// The exact block model is needed. Sized by the paper's closed form instead
// (b = 21.914, k = 12 at p = 1e-4; b = 15.488, k = 9 at 1e-3), three filters
// of 1M random hashes, each probed 100M (30M) times, measured +4.0% (+2.6%)
// over p, as the exact model predicts for those sizes (+3.9%, +2.2%); sized
// as above, the same runs measured -0.4% (+0.5%), 1 sigma 0.6% (0.3%).
//
// ---- Alignment -------------------------------------------------------------
// A kBlocked query touches one cache line only if the filter's first byte is
// 64-byte aligned (blocks start at multiples of 64 from it). The table
// reader should keep pinned filters in 64-byte-aligned memory: a std::string
// buffer (16-byte aligned) is misaligned 3 times in 4, and then every block
// straddles two lines (filter_bench BM_ProbeMissLatencyMisaligned: about
// +10% per miss at 10M and 100M keys on our 2-core VM).

#ifndef SIFT_UTIL_BLOOM_H_
#define SIFT_UTIL_BLOOM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "sift/filter_policy.h"
#include "sift/options.h"
#include "util/cache_line.h"
#include "util/hash.h"
#include "util/ribbon.h"

namespace sift {

// ---- On-disk constants (table/FORMAT.md, "Filter bytes"). DO NOT CHANGE.
// ----------
constexpr size_t kBloomTrailerSize = 20;
constexpr uint16_t kBloomMagic = 0xF17E;   // trailer bytes 18..19: 7E F1
constexpr int kBloomMaxProbes = 64;        // readers reject more
constexpr uint64_t kBloomBlockBits = 512;  // kBlocked block: one cache line
constexpr uint64_t kBloomMinStandardBits = 64;
// ---- End of on-disk constants. -----------------------------------------

// Bytes of one kBlocked block (derived from kBloomBlockBits, so also fixed by
// the format).
constexpr size_t kBloomBlockBytes = kBloomBlockBits / 8;
// A block fits one cache line, so a probe of a line-aligned filter reads one.
static_assert(kCacheLineSize % kBloomBlockBytes == 0,
              "a kBlocked block must not straddle two cache lines");

// The smallest target honoured; smaller ones are built as this (see
// FilterPolicy::Create for why).
constexpr double kBloomMinFpChance = 1e-12;

// The layout's name in properties, tools and flags: "standard", "blocked",
// "ribbon" ("unknown" for other values).
const char* FilterLayoutName(FilterLayout layout);

// The layout called `name` (as FilterLayoutName gives it); false if none.
bool ParseFilterLayout(std::string_view name, FilterLayout* layout);

// ---- The model ------------------------------------------------------------

// Expected false-positive rate of a kStandard filter with b bits per key and
// k probes, for large m: (1 - e^(-k/b))^k. 1 when b <= 0.
double StandardFpRate(double bits_per_key, int num_probes);

// The same for an array of num_bits bits holding num_keys keys: exact mean
// fill (1 - (1 - 1/m)^(k n)) and a second-order (delta method) term for the
// spread of the fill, which matter below a few thousand bits.
double StandardFpRateFinite(uint64_t num_bits, uint64_t num_keys,
                            int num_probes);

// Expected false-positive rate of a kBlocked filter (exact per-block model
// above, Poisson keys per block). 1 when b <= 0.
double BlockedFpRate(double bits_per_key, int num_probes);

// The same with the paper's closed-form per-block term; lower than
// BlockedFpRate. For comparison only.
double BlockedFpRatePutze(double bits_per_key, int num_probes);

// StandardFpRate or BlockedFpRate, by layout (kRibbon: BlockedFpRate, the
// model of its fallback; util/ribbon.h has Ribbon's own).
double ModelFpRate(FilterLayout layout, double bits_per_key, int num_probes);

// The sizing of a large filter: bits per key (not rounded) and probes.
struct BloomParams {
  double bits_per_key = 0;
  int num_probes = 0;
};

// The parameters for a large filter of the given layout and target (below
// kBloomMinFpChance, for that). kStandard: textbook, corrected as above;
// kBlocked: least bits per key meeting p under BlockedFpRate; kRibbon: those
// of kBlocked, which it falls back to (RibbonPays).
// REQUIRES: 0 < fp_chance < 1.
BloomParams ChooseBloomParams(FilterLayout layout, double fp_chance);

// The exact shape of the filter for num_keys keys, given ChooseBloomParams's
// result for the same layout and target. kRibbon: RibbonShapeFor where
// RibbonPays, else kBlocked's shape (and if banding fails under every seed,
// the filter written is the kBlocked one).
FilterShape BloomShapeFor(FilterLayout layout, double fp_chance,
                          const BloomParams& params, uint64_t num_keys);

// Whether a Ribbon filter for num_keys keys is smaller than the blocked Bloom
// filter (params = ChooseBloomParams(kBlocked, fp_chance)), trailers
// included. False below about 250 keys at p = 0.01: Ribbon's smallest
// section is one 128-slot block, and its speed is worth keeping when the
// bytes are a wash.
bool RibbonPays(double fp_chance, const BloomParams& params, uint64_t num_keys);

// ---- Probe positions, shared by the builder and the reader ---------------
namespace bloom_internal {

// Remix, FastRange and the golden-ratio step live in util/hash.h (the
// Ribbon layout, util/ribbon.h, derives its rows from them too).
constexpr uint64_t kGolden = kGoldenGamma;
using ::sift::FastRange;
using ::sift::Remix;

// Calls visit(bit) for the k bits of a kStandard filter with m bits, in
// probe order, until visit returns false. Returns false iff some visit did.
template <typename Visit>
inline bool ForEachStandardBit(uint64_t h, uint64_t m, int k, Visit&& visit) {
  if (!visit(FastRange(h, m))) return false;
  uint64_t seed = h;
  for (int i = 1; i < k; ++i) {
    seed += kGolden;
    if (!visit(FastRange(Remix(seed), m))) return false;
  }
  return true;
}

// Calls visit(bit) for the k in-block bits (0..511) of a kBlocked probe.
template <typename Visit>
inline void ForEachBlockedBit(uint64_t h, int k, Visit&& visit) {
  constexpr int kFieldsPerRemix = 7;  // 7 x 9 bits of a 64-bit word
  uint64_t seed = h;
  while (k > 0) {
    seed += kGolden;
    uint64_t fields = Remix(seed);
    const int n = k < kFieldsPerRemix ? k : kFieldsPerRemix;
    for (int j = 0; j < n; ++j) {
      visit(static_cast<uint32_t>(fields & (kBloomBlockBits - 1)));
      fields >>= 9;
    }
    k -= n;
  }
}

inline bool TestBit(const uint8_t* bits, uint64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

// The 64-byte block of a kBlocked body of num_blocks blocks that holds
// hash h's bits.
inline const uint8_t* BlockOf(const uint8_t* bits, uint64_t num_blocks,
                              uint64_t h) {
  return bits + kBloomBlockBytes * FastRange(h, num_blocks);
}

// Whether all k bits of hash h are set in a kBlocked body. Branch-free
// inside the block: all k bits are tested, then combined.
inline bool TestBlockedBits(const uint8_t* bits, uint64_t num_blocks, int k,
                            uint64_t h) {
  const uint8_t* block = BlockOf(bits, num_blocks, h);
  uint32_t all_set = 1;
  ForEachBlockedBit(h, k, [&](uint32_t i) {
    all_set &= static_cast<uint32_t>(block[i >> 3] >> (i & 7));
  });
  return all_set & 1;
}

// Sets the k bits of hash h in a kStandard (num_bits bits) or kBlocked
// (num_bits / 512 blocks) body. The one way bits are set, for the builder
// and for filters that grow in place (sift::ScalableBloomFilter). Returns
// whether some bit was clear before.
inline bool SetBits(FilterLayout layout, uint8_t* bits, uint64_t num_bits,
                    int k, uint64_t h) {
  uint8_t changed = 0;
  if (layout == FilterLayout::kBlocked) {
    uint8_t* block =
        const_cast<uint8_t*>(BlockOf(bits, num_bits / kBloomBlockBits, h));
    ForEachBlockedBit(h, k, [block, &changed](uint32_t i) {
      const auto mask = static_cast<uint8_t>(1u << (i & 7));
      changed |= static_cast<uint8_t>(~block[i >> 3] & mask);
      block[i >> 3] |= mask;
    });
  } else {
    ForEachStandardBit(h, num_bits, k, [bits, &changed](uint64_t i) {
      const auto mask = static_cast<uint8_t>(1u << (i & 7));
      changed |= static_cast<uint8_t>(~bits[i >> 3] & mask);
      bits[i >> 3] |= mask;
      return true;
    });
  }
  return changed != 0;
}

}  // namespace bloom_internal

// ---- Filters that change after they are built -----------------------------
// A static filter is built once from all its keys. Two uses change one
// afterwards, both on the kStandard and kBlocked layouts only (a Ribbon
// filter is a solved linear system: a key cannot be added, nor two ORed):
// - growing: an empty filter sized for a capacity, keys added one by one
//   (sift::ScalableBloomFilter's sub-filters);
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

// ---- Building -------------------------------------------------------------

// Gathers 64-bit key hashes (KeyHash from util/hash.h), then builds one
// filter for exactly those keys. Not thread-safe; one builder per table.
class BloomFilterBuilder {
 public:
  // REQUIRES: 0 < fp_chance < 1 and layout is a FilterLayout enumerator
  // (callers validate; FilterPolicy::Create does).
  BloomFilterBuilder(FilterLayout layout, double fp_chance);
  // The same with params = ChooseBloomParams(layout, fp_chance) already
  // computed (it costs up to a fraction of a millisecond for kBlocked).
  BloomFilterBuilder(FilterLayout layout, double fp_chance,
                     const BloomParams& params);

  BloomFilterBuilder(const BloomFilterBuilder&) = delete;
  BloomFilterBuilder& operator=(const BloomFilterBuilder&) = delete;

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
class BloomFilterReader {
 public:
  BloomFilterReader() = default;  // invalid: always "may match"
  explicit BloomFilterReader(std::string_view filter);

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

}  // namespace sift

#endif  // SIFT_UTIL_BLOOM_H_
