// The Bloom variants of siftdb's filters (FilterLayout::kStandard and
// kBlocked): their probe positions, the false-positive model that sizes
// them, and the measurements that check it. Filters of every layout are
// built and read through util/filter.h (FilterBuilder, FilterReader), which
// dispatch on the layout; Ribbon's structure and math are in util/ribbon.h.
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
// (num_bits / 512 blocks) body: the one way bits are set, by the builder
// and by filters that grow in place (sift::ScalableBloomFilter).
inline void SetBits(FilterLayout layout, uint8_t* bits, uint64_t num_bits,
                    int k, uint64_t h) {
  if (layout == FilterLayout::kBlocked) {
    uint8_t* block =
        const_cast<uint8_t*>(BlockOf(bits, num_bits / kBloomBlockBits, h));
    ForEachBlockedBit(h, k, [block](uint32_t i) {
      block[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    });
  } else {
    ForEachStandardBit(h, num_bits, k, [bits](uint64_t i) {
      bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
      return true;
    });
  }
}

}  // namespace bloom_internal

}  // namespace sift

#endif  // SIFT_UTIL_BLOOM_H_
