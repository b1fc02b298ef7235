// The Ribbon filter behind FilterLayout::kRibbon: a static filter that stores
// r-bit fingerprints as the solution of a banded linear system over GF(2),
// so it needs about (1 + eps) * log2(1/p) bits per key against a Bloom
// filter's 1.44 * log2(1/p). Built and read through util/filter.h's
// FilterBuilder and FilterReader, which dispatch on the layout
// (and fall back to blocked Bloom where Ribbon does not pay).
//
// Serialized format: table/FORMAT.md, "Ribbon filter bytes".
//
// ---- The structure (P. C. Dillinger and S. Walzer, "Ribbon filter:
// practically smaller than Bloom and Xor", arXiv:2103.02515, 2021) ---------
// A key with hash h gets a start slot s, a w = 128-bit coefficient row c
// (bit 0 forced to 1) and an r-bit fingerprint f(h). The filter is a matrix
// Z of m slots by r bits chosen so that for every key
//   XOR over i in [0, 128) with bit i of c set of Z[s + i]  =  f(h).
// A query recomputes the left side and compares it with f: a key that was
// added always matches; for any other key f is independent of the left side,
// so it matches with chance exactly 2^-r ("standard" Ribbon; the
// homogeneous variant, f = 0, would not reach 2^-r at this little space).
// Construction is Gaussian elimination that keeps every row's leading 1 on
// its own slot ("banding", the paper's section 2): insert (s, c, f); while
// slot s is taken, XOR the resident row into the new one and move to the new
// row's lowest set bit. The band keeps all work within 128 slots. Then back
// substitution from the last slot down fills Z (free slots get 0, which the
// 2^-r argument does not care about).
//
// Banding fails when a row reduces to c = 0 with f != 0 (the system has no
// solution). The chance falls fast with the slack m / n - 1; we pick m from
// our own measurements (below) for a failure chance of a few percent, and a
// failed section is rebuilt with the next seed (the seed is in the trailer,
// and it changes every key's s and c). After kRibbonMaxAttempts failures the
// builder gives up and writes a blocked Bloom filter instead.
//
// ---- Hashing ----------------------------------------------------------------
// Everything comes from the one key hash h = KeyHash(key) (XXH3-64), remixed
// with Remix (SplitMix64's finalizer) and FastRange from util/hash.h:
//   f      = Remix(h), low bits                    (no seed: it is the value)
//   x      = h * (kRibbonSeedStep + 2 seed G)     (odd: a bijection of h)
//   s      = FastRange(x, m - 127)
//   c      = (Remix(x + G) << 64) | Remix(x) | 1     (G: golden ratio)
//
// ---- Fractional bits per key: two sections -------------------------------
// One r gives only whole bits: at p = 0.01 it would be 7 bits (FP 0.78%) or
// 6 (1.56%). For 2^-(r+1) <= p < 2^-r we keep r result bits for a fraction
// q of the keys and r + 1 for the rest:
//   FP = q 2^-r + (1 - q) 2^-(r+1)  =  p   when  q = p 2^(r+1) - 1,
// at a cost of r + 1 - q bits per key before slack. The split is by hash:
// the builder has the n distinct hashes sorted, puts the floor(q n) smallest
// in section 0 (r bits) and the rest in section 1 (r + 1 bits), and records
// the threshold T = the smallest hash of section 1. A query goes to section
// 0 iff h < T, which a non-key does with chance T / 2^64 = q +- O(1/sqrt(n)),
// so the rate stays p (ExpectedFpRate uses the actual T). Each section is an
// independent Ribbon system with its own slots and seed. (RocksDB instead
// varies the column count by block inside one system; two systems keep back
// substitution and the query free of boundary cases.)
//
// Against the bound log2(1/p), r + 1 - q costs +1.2%, +1.1%, +0.1%, +0.5%
// at p = 0.1, 0.01, 0.001, 0.0001 (the price of a 2-point mix), then the
// slack multiplies it.
//
// ---- Slack: slots per key -------------------------------------------------
// A section of k keys gets m = k (0.98 + 0.0036 log2 k) + 16 slots, rounded
// up to whole blocks (RibbonBlocksFor). The paper shows the slack a 128-wide
// band needs grows slowly with k (an overloaded stretch anywhere sinks the
// build); we measured our own first-seed failure rates, 40 builds per point
// (RibbonTest.SlackKeepsFailuresRare and a sweep over the constants):
//   keys    slots/key  failed      slots/key  failed
//   10K     1.011      42%         1.024      9%       1.037   0%
//   100K    1.018      67%         1.028      18%      1.042   2%
//   1M      1.030      71%         1.040      17%      1.052   0% (10)
// and fitted a line in log2 k a little above the last column: 1.037 at
// 10K, 1.041 at 100K, 1.052 at 1M, 1.064 at 10M (0 of 10 failed). With
// failures this rare, kRibbonMaxAttempts = 8 seeds leave a blocked-Bloom
// fallback below 1e-8. Whole blocks cost more in small filters: at
// p = 0.01 Ribbon is smaller than blocked Bloom only from 259 keys.
//
// Bits per key, then, are (r + 1 - q) * m / n + 240 / n (the trailer). The
// slack's growth, 0.36% per doubling of n, keeps them within
// 1.08 log2(1/p) + 0.1 up to about 3e8 keys per filter.
//
// ---- Measured vs model ---------------------------------------------------
// n = 10,000,000 random keys, probed with keys never added (1000 / p probes:
// 1 sigma of the measurement is about 3%); "model" is ExpectedFpRate, q 2^-r
// + (1 - q) 2^-(r+1) with the filter's own threshold; bits/key counts the
// whole filter. Blocked Bloom (util/bloom.h's table) for comparison.
//   SIFT_LONG_TESTS=1 build/bin/ribbon_test --gtest_filter='*TenMillion*'
//
//   p       r  bits/key  x log2(1/p)  model      measured   blocked bits/key
//   0.1     3   3.604    1.085        0.099992   0.0968      4.836
//   0.01    6   7.129    1.073        0.010001   0.01021     9.918
//   0.001   9  10.606    1.064        0.001000   0.001062   15.546
//   0.0001 13  14.167    1.066        0.0000999  0.0000983  22.030
//
// Against blocked Bloom that is 25%, 28%, 32% and 36% less memory. The cost
// is time. filter_bench on our shared 2-core VM, p = 0.01, ns per key,
// Ribbon vs blocked Bloom from one run (other builds ran beside it: +-30%):
//   build/bin/filter_bench
//     --benchmark_filter='/layout:[12]/n:(40000|10000000)/inv_p:100$'
//                       40K keys (cache-resident)   10M keys (memory)
//   build               161 vs 57                   212 vs 119
//   hit, independent     45 vs 11                    93 vs 32
//   miss, independent    44 vs 11                    88 vs 38
//   hit, dependent       45 vs 13                    87 vs 63
//   miss, dependent      30 vs 15                    78 vs 66
// A dependent probe is the cost of one lookup in a Get. Before the query
// below (one 128-bit test and branch per column), a run of the same command
// measured a dependent miss at 51 vs 17 (40K) and 76 vs 92 (10M), a hit at
// 32 vs 14 and 82 vs 69. What bounds the rest, by perf: a Ribbon probe
// computes three remixes and reads two blocks (two to four cache lines)
// where blocked Bloom reads one line; in a Get beyond the caches, the
// prefetches of those lines are where the time goes (util/ribbon.cc,
// Prefetch).
//
// ---- Storage and the query -------------------------------------------------
// Slots come in blocks of 128. A section of b blocks stores, for block j and
// result bit (column) k, the 128 bits Z[128 j .. 128 j + 127] of column k as
// one 16-byte word at ((j * r_s + k) * 16) - "interleaved column-major", so
// the r_s words a query reads from one block are contiguous. A query with
// start s = 128 j + o needs, per column, the parity of block j masked by
// c << o XOR block j + 1 masked by c >> (128 - o). Those masks cover three
// of the four 64-bit halves (two when o = 0), so the query computes three
// 64-bit masks once and then per column loads three words, ANDs, XORs and
// takes one parity: no table, no 128-bit shift per column. It compares the
// first four columns as a group without branches, then the rest: a miss
// decides at the one branch with chance 15/16, which the CPU predicts,
// where a test per column stopped a column or so sooner but mispredicted
// about every other miss. Prefetch requests only the lines of those first
// four columns (two to four lines), which is all a miss usually reads.
//
// ---- Construction memory ----------------------------------------------------
// Beyond the 8 bytes per key of hashes the builder already holds: the slots
// of the larger section (24 bytes per slot: 16 of coefficients, 8 of result)
// and 8 bytes per key of that section to order its hashes by block (banding
// in slot order keeps the 24-byte slots in cache), plus the filter itself.
// With m / n <= 1.07 that is at most 34 bytes per key of the larger section,
// about 34 * n * (1 - q) bytes; sections are built one after the other.

#ifndef SIFT_UTIL_RIBBON_H_
#define SIFT_UTIL_RIBBON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sift/filter_policy.h"
#include "util/coding.h"
#include "util/hash.h"

namespace sift {

// ---- On-disk constants (table/FORMAT.md, "Ribbon filter bytes"). DO NOT
// CHANGE. ---------------------------------------------------------------------
constexpr size_t kRibbonTrailerSize = 30;
constexpr uint64_t kRibbonBlockSlots = 128;  // = coefficient width w
constexpr int kRibbonMaxResultBits = 63;     // section 0; section 1 has +1
constexpr uint64_t kRibbonSeedStep = 0xd1b54a32d192ed03ULL;
// ---- End of on-disk constants. -------------------------------------------

// Seeds tried per section before the builder falls back to blocked Bloom.
constexpr int kRibbonMaxAttempts = 8;

// r (section 0's result bits) and q (section 0's share of keys) for target p.
struct RibbonParams {
  int result_bits = 0;
  double narrow_fraction = 0;
};

// REQUIRES: 0 < fp_chance < 1 (below kBloomMinFpChance, that).
RibbonParams ChooseRibbonParams(double fp_chance);

// Blocks of 128 slots for a section of num_keys keys (0 for none).
uint64_t RibbonBlocksFor(uint64_t num_keys);

// The shape a Ribbon filter for num_keys distinct keys has: num_bits of the
// body, num_probes = r + 1 (result bits of the wider section). Exact: the
// section sizes depend only on num_keys.
FilterShape RibbonShapeFor(double fp_chance, uint64_t num_keys);

// Builds a Ribbon filter of the distinct, ascending hashes and appends it to
// *dst (nothing appended on failure). False when some section failed to band
// under kRibbonMaxAttempts seeds.
bool BuildRibbonFilter(const std::vector<uint64_t>& sorted_hashes,
                       double fp_chance, std::string* dst);

// One section of BuildRibbonFilter: bands the distinct hashes [begin, end)
// into num_blocks * 128 slots with result_bits bits each, trying seeds 0, 1,
// ... and writes the solution (num_blocks * result_bits 16-byte words) at
// body. Returns the seed that worked, or -1 after kRibbonMaxAttempts
// failures (body then unspecified). Also how tests measure failure rates.
int BuildRibbonSection(const uint64_t* begin, const uint64_t* end,
                       int result_bits, uint64_t num_blocks, uint8_t* body);

namespace ribbon_internal {

__extension__ using U128 = unsigned __int128;

// A key's start slot and coefficient row in a section with m slots.
struct Row {
  uint64_t start;
  U128 coeff;
};

// Odd, so h -> h * SeedMultiplier(seed) is a bijection for every seed.
constexpr uint64_t SeedMultiplier(int seed) {
  return kRibbonSeedStep + 2 * static_cast<uint64_t>(seed) * kGoldenGamma;
}

// The start comes from one multiply of h, not a remix: it is on the path to
// the query's first load, while the coefficients are computed beside it.
inline Row RowFor(uint64_t h, int seed, uint64_t num_slots) {
  const uint64_t x = h * SeedMultiplier(seed);
  const uint64_t lo = Remix(x) | 1;
  const uint64_t hi = Remix(x + kGoldenGamma);
  return Row{FastRange(x, num_slots - kRibbonBlockSlots + 1),
             (static_cast<U128>(hi) << 64) | lo};
}

inline uint64_t Fingerprint(uint64_t h) { return Remix(h); }

inline int Parity128(U128 x) {
  return __builtin_parityll(static_cast<uint64_t>(x) ^
                            static_cast<uint64_t>(x >> 64));
}

}  // namespace ribbon_internal

// A parsed, non-owning view of a serialized Ribbon filter. Parse never reads
// outside `filter` and refuses anything not exactly as table/FORMAT.md says.
// Thread safety: const methods may be called concurrently.
class RibbonFilterReader {
 public:
  // True iff `filter` is a well-formed Ribbon filter; then this reader views
  // it. REQUIRES: the bytes outlive the reader.
  bool Parse(std::string_view filter);

  bool MayContainHash(uint64_t h) const {
    const Section& sec = sections_[h < threshold_ ? 0 : 1];
    if (sec.num_blocks == 0) return false;  // the builder put no key here
    const Window w = WindowFor(sec, h);
    const uint64_t fingerprint = ribbon_internal::Fingerprint(h);
    // Columns in two groups, each computed without branches and compared
    // at once: a miss fails the first kFirstColumns with chance 15/16, so
    // the one branch that decides it is predictable (a test per column
    // stops a little sooner but mispredicts about every other miss).
    const int r = sec.result_bits;
    const int first = r < kFirstColumns ? r : kFirstColumns;
    if (((Columns(w, 0, first) ^ fingerprint) & LowBits(first)) != 0) {
      return false;
    }
    return ((Columns(w, first, r) ^ fingerprint) &
            (LowBits(r) ^ LowBits(first))) == 0;
  }

  // Starts loading the lines MayContainHash(h) will read.
  void Prefetch(uint64_t h) const;

  uint64_t num_keys() const { return num_keys_; }
  uint64_t num_bits() const { return num_bits_; }
  // Result bits of the wider section (r + 1).
  int num_probes() const { return sections_[1].result_bits; }
  // q 2^-r + (1 - q) 2^-(r+1) with q = T / 2^64; 0 for an empty filter.
  double ExpectedFpRate() const;

 private:
  struct Section {
    const uint8_t* body = nullptr;
    uint64_t num_blocks = 0;
    int result_bits = 0;
    int seed = 0;
  };
  // The columns a probe computes before its first decision.
  static constexpr int kFirstColumns = 4;

  // Where a key's 128 slots lie in one column (block 0 of the section; the
  // column k words are 16 k bytes on) and which of their bits the key's
  // coefficients select: the 128-slot window starting at slot 128 j + o
  // covers parts of three of the 64-bit words, low half first, of blocks j
  // and j + 1 (two when o = 0; the third mask is then 0).
  struct Window {
    const uint8_t* word[3];
    uint64_t mask[3];
  };

  static Window WindowFor(const Section& sec, uint64_t h) {
    const ribbon_internal::Row row = ribbon_internal::RowFor(
        h, sec.seed, sec.num_blocks * kRibbonBlockSlots);
    const uint64_t o = row.start % kRibbonBlockSlots;
    const size_t block_bytes = 16 * static_cast<size_t>(sec.result_bits);
    const uint8_t* lo =
        sec.body + (row.start / kRibbonBlockSlots) * block_bytes;
    const uint8_t* hi = lo + block_bytes;  // past the end when o = 0
    const auto c_lo = static_cast<uint64_t>(row.coeff);
    const auto c_hi = static_cast<uint64_t>(row.coeff >> 64);
    const unsigned s = o % 64;
    Window w;
    const bool upper = o >= 64;
    w.word[0] = upper ? lo + 8 : lo;
    w.word[1] = upper ? hi : lo + 8;
    w.word[2] = o == 0 ? lo : (upper ? hi + 8 : hi);
    // (x >> 1) >> (63 - s) is x >> (64 - s), and 0 for s = 0.
    w.mask[0] = c_lo << s;
    w.mask[1] = (c_hi << s) | ((c_lo >> 1) >> (63 - s));
    w.mask[2] = (c_hi >> 1) >> (63 - s);
    return w;
  }

  // Bit k of the result, for k in [begin, end): the parity of column k
  // under the window's masks.
  static uint64_t Columns(const Window& w, int begin, int end) {
    uint64_t bits = 0;
    for (int k = begin; k < end; ++k) {
      const size_t at = 16 * static_cast<size_t>(k);
      const uint64_t x = (Load64(w.word[0] + at) & w.mask[0]) ^
                         (Load64(w.word[1] + at) & w.mask[1]) ^
                         (Load64(w.word[2] + at) & w.mask[2]);
      bits |= static_cast<uint64_t>(__builtin_parityll(x)) << k;
    }
    return bits;
  }

  static uint64_t Load64(const uint8_t* p) {
    return DecodeFixed64(reinterpret_cast<const char*>(p));
  }

  static uint64_t LowBits(int n) {
    return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  }

  Section sections_[2];
  uint64_t threshold_ = 0;
  uint64_t num_keys_ = 0;
  uint64_t num_bits_ = 0;
};

}  // namespace sift

#endif  // SIFT_UTIL_RIBBON_H_
