// The Ribbon filter of util/ribbon.h; bytes in table/FORMAT.md, "Ribbon
// filter bytes".

#include "util/ribbon.h"

#include <algorithm>
#include <cmath>

#include "util/bloom.h"
#include "util/coding.h"

namespace sift {
namespace {

using ribbon_internal::U128;

// Trailer offsets (table/FORMAT.md, "Ribbon filter bytes").
constexpr size_t kNumKeysOffset = 0;
constexpr size_t kThresholdOffset = 8;
constexpr size_t kBlocksOffset = 16;  // section 0; section 1 at +4
constexpr size_t kResultBitsOffset = 24;
constexpr size_t kSeedOffset = 25;  // section 0; section 1 at +1
constexpr size_t kLayoutOffset = 27;
constexpr size_t kMagicOffset = 28;

constexpr uint8_t kRibbonTag = static_cast<uint8_t>(FilterLayout::kRibbon);

// Slots per key: m / n = kSlackBase + kSlackPerDoubling * log2(n), plus
// kSlackSlots; fitted to our own failure rates (util/ribbon.h, "Slack"):
// a section fails to band in a few percent of attempts at most, from 100
// to 10M keys.
constexpr double kSlackBase = 0.98;
constexpr double kSlackPerDoubling = 0.0036;
constexpr double kSlackSlots = 16;

struct Slot {
  U128 coeff = 0;
  uint64_t result = 0;
};

U128 LowestBits(int n) { return n >= 128 ? ~U128{0} : (U128{1} << n) - 1; }

int CountTrailingZeros(U128 x) {
  const auto lo = static_cast<uint64_t>(x);
  return lo != 0 ? __builtin_ctzll(lo)
                 : 64 + __builtin_ctzll(static_cast<uint64_t>(x >> 64));
}

// Gaussian elimination of one row into the band. False iff the row is
// inconsistent with those already in (it reduced to 0 = nonzero).
bool Insert(Slot* slots, uint64_t start, U128 coeff, uint64_t result) {
  uint64_t i = start;
  for (;;) {
    Slot& s = slots[i];
    if (s.coeff == 0) {
      s.coeff = coeff;
      s.result = result;
      return true;
    }
    coeff ^= s.coeff;
    result ^= s.result;
    if (coeff == 0) return result == 0;
    const int shift = CountTrailingZeros(coeff);
    i += shift;
    coeff >>= shift;
  }
}

// Builds one section: hashes [begin, end) with result_bits bits, trying
// seeds 0.. until banding succeeds. Writes num_blocks * result_bits 16-byte
// words at body and returns the seed, or -1 after kRibbonMaxAttempts.
class SectionBuilder {
 public:
  int Build(const uint64_t* begin, const uint64_t* end, int result_bits,
            uint64_t num_blocks, uint8_t* body) {
    if (begin == end || result_bits == 0) return 0;
    if (num_blocks == 0) return -1;
    const uint64_t num_slots = num_blocks * kRibbonBlockSlots;
    const uint64_t fingerprint_mask =
        static_cast<uint64_t>(LowestBits(result_bits));
    for (int seed = 0; seed < kRibbonMaxAttempts; ++seed) {
      OrderByBlock(begin, end, seed, num_blocks);
      slots_.assign(num_slots, Slot());
      bool ok = true;
      for (uint64_t h : ordered_) {
        const ribbon_internal::Row row =
            ribbon_internal::RowFor(h, seed, num_slots);
        if (!Insert(slots_.data(), row.start, row.coeff,
                    ribbon_internal::Fingerprint(h) & fingerprint_mask)) {
          ok = false;
          break;
        }
      }
      if (ok) {
        BackSubstitute(result_bits, num_blocks, body);
        return seed;
      }
    }
    return -1;
  }

 private:
  // Counting sort of the hashes by their start block, so that banding walks
  // the slots in order.
  void OrderByBlock(const uint64_t* begin, const uint64_t* end, int seed,
                    uint64_t num_blocks) {
    const uint64_t num_slots = num_blocks * kRibbonBlockSlots;
    next_.assign(num_blocks + 1, 0);
    for (const uint64_t* h = begin; h != end; ++h) {
      ++next_[ribbon_internal::RowFor(*h, seed, num_slots).start /
                  kRibbonBlockSlots +
              1];
    }
    for (uint64_t b = 1; b <= num_blocks; ++b) next_[b] += next_[b - 1];
    ordered_.resize(static_cast<size_t>(end - begin));
    for (const uint64_t* h = begin; h != end; ++h) {
      ordered_[next_[ribbon_internal::RowFor(*h, seed, num_slots).start /
                     kRibbonBlockSlots]++] = *h;
    }
  }

  // Z from the last slot down: Z[i] = result[i] ^ <coeff[i] >> 1, Z[i+1..]>
  // per column. state[k] holds column k's next 128 values, bit 0 = slot i.
  void BackSubstitute(int result_bits, uint64_t num_blocks, uint8_t* body) {
    std::vector<U128> state(result_bits, 0);
    for (uint64_t b = num_blocks; b-- > 0;) {
      for (uint64_t i = kRibbonBlockSlots; i-- > 0;) {
        const Slot& s = slots_[b * kRibbonBlockSlots + i];
        const U128 rest = s.coeff >> 1;
        for (int k = 0; k < result_bits; ++k) {
          const uint64_t bit =
              s.coeff == 0 ? 0
                           : ((s.result >> k) ^
                              static_cast<uint64_t>(ribbon_internal::Parity128(
                                  rest & state[k]))) &
                                 1;
          state[k] = (state[k] << 1) | bit;
        }
      }
      uint8_t* block = body + b * 16 * static_cast<uint64_t>(result_bits);
      for (int k = 0; k < result_bits; ++k) {
        EncodeFixed64(reinterpret_cast<char*>(block + 16 * k),
                      static_cast<uint64_t>(state[k]));
        EncodeFixed64(reinterpret_cast<char*>(block + 16 * k + 8),
                      static_cast<uint64_t>(state[k] >> 64));
      }
    }
  }

  std::vector<Slot> slots_;
  std::vector<uint64_t> ordered_;
  std::vector<uint64_t> next_;
};

// Keys in section 0 (r result bits) for n keys: floor(q n) < n.
uint64_t NarrowKeys(const RibbonParams& params, uint64_t num_keys) {
  const auto narrow = static_cast<uint64_t>(
      std::floor(params.narrow_fraction * static_cast<double>(num_keys)));
  return std::min(narrow, num_keys == 0 ? 0 : num_keys - 1);
}

uint64_t BodyBytes(uint64_t blocks0, uint64_t blocks1, int result_bits) {
  return 16 * (blocks0 * static_cast<uint64_t>(result_bits) +
               blocks1 * static_cast<uint64_t>(result_bits + 1));
}

}  // namespace

RibbonParams ChooseRibbonParams(double fp_chance) {
  const double p = std::max(fp_chance, kBloomMinFpChance);
  // 2^-(r+1) <= p < 2^-r, then q from q 2^-r + (1 - q) 2^-(r+1) = p.
  int r = static_cast<int>(std::ceil(-std::log2(p))) - 1;
  r = std::clamp(r, 0, kRibbonMaxResultBits);
  const double q = std::clamp(std::ldexp(p, r + 1) - 1, 0.0, 1.0);
  return RibbonParams{r, q};
}

uint64_t RibbonBlocksFor(uint64_t num_keys) {
  if (num_keys == 0) return 0;
  const double n = static_cast<double>(num_keys);
  const double slots =
      n * (kSlackBase + kSlackPerDoubling * std::log2(n)) + kSlackSlots;
  const double needed = std::max(slots, n + 1);
  return static_cast<uint64_t>(std::ceil(needed / kRibbonBlockSlots));
}

FilterShape RibbonShapeFor(double fp_chance, uint64_t num_keys) {
  const RibbonParams params = ChooseRibbonParams(fp_chance);
  const uint64_t narrow = NarrowKeys(params, num_keys);
  FilterShape shape;
  shape.num_keys = num_keys;
  shape.num_probes = params.result_bits + 1;
  shape.num_bits =
      8 * BodyBytes(RibbonBlocksFor(narrow), RibbonBlocksFor(num_keys - narrow),
                    params.result_bits);
  return shape;
}

bool BuildRibbonFilter(const std::vector<uint64_t>& sorted_hashes,
                       double fp_chance, std::string* dst) {
  const RibbonParams params = ChooseRibbonParams(fp_chance);
  const uint64_t n = sorted_hashes.size();
  const uint64_t narrow = NarrowKeys(params, n);
  const int bits[2] = {params.result_bits, params.result_bits + 1};
  const uint64_t blocks[2] = {RibbonBlocksFor(narrow),
                              RibbonBlocksFor(n - narrow)};
  const uint64_t body_bytes = BodyBytes(blocks[0], blocks[1], bits[0]);
  const size_t start = dst->size();
  dst->resize(start + body_bytes + kRibbonTrailerSize, '\0');
  auto* body = reinterpret_cast<uint8_t*>(dst->data() + start);

  const uint64_t* keys = sorted_hashes.data();
  const uint64_t* bounds[3] = {keys, keys + narrow, keys + n};
  int seeds[2] = {0, 0};
  uint8_t* section_body = body;
  for (int s = 0; s < 2; ++s) {
    seeds[s] = BuildRibbonSection(bounds[s], bounds[s + 1], bits[s], blocks[s],
                                  section_body);
    if (seeds[s] < 0) {
      dst->resize(start);
      return false;
    }
    section_body += 16 * blocks[s] * static_cast<uint64_t>(bits[s]);
  }

  char* trailer = dst->data() + start + body_bytes;
  EncodeFixed64(trailer + kNumKeysOffset, n);
  // Section 0 holds exactly the hashes below the threshold.
  EncodeFixed64(trailer + kThresholdOffset, n == 0 ? 0 : keys[narrow]);
  EncodeFixed32(trailer + kBlocksOffset, static_cast<uint32_t>(blocks[0]));
  EncodeFixed32(trailer + kBlocksOffset + 4, static_cast<uint32_t>(blocks[1]));
  trailer[kResultBitsOffset] = static_cast<char>(bits[0]);
  trailer[kSeedOffset] = static_cast<char>(seeds[0]);
  trailer[kSeedOffset + 1] = static_cast<char>(seeds[1]);
  trailer[kLayoutOffset] = static_cast<char>(kRibbonTag);
  trailer[kMagicOffset] = static_cast<char>(kBloomMagic & 0xff);
  trailer[kMagicOffset + 1] = static_cast<char>(kBloomMagic >> 8);
  return true;
}

int BuildRibbonSection(const uint64_t* begin, const uint64_t* end,
                       int result_bits, uint64_t num_blocks, uint8_t* body) {
  SectionBuilder builder;
  return builder.Build(begin, end, result_bits, num_blocks, body);
}

bool RibbonFilterReader::Parse(std::string_view filter) {
  *this = RibbonFilterReader();
  if (filter.size() < kRibbonTrailerSize) return false;
  const uint64_t body_bytes = filter.size() - kRibbonTrailerSize;
  const char* trailer = filter.data() + body_bytes;
  const auto byte = [trailer](size_t offset) {
    return static_cast<uint8_t>(trailer[offset]);
  };
  if ((byte(kMagicOffset) | (byte(kMagicOffset + 1) << 8)) != kBloomMagic ||
      byte(kLayoutOffset) != kRibbonTag) {
    return false;
  }
  const int r = byte(kResultBitsOffset);
  if (r > kRibbonMaxResultBits) return false;
  const uint64_t blocks0 = DecodeFixed32(trailer + kBlocksOffset);
  const uint64_t blocks1 = DecodeFixed32(trailer + kBlocksOffset + 4);
  // Exactly the body the trailer describes: rejects truncation.
  if (BodyBytes(blocks0, blocks1, r) != body_bytes) return false;
  const uint64_t num_keys = DecodeFixed64(trailer + kNumKeysOffset);
  if (num_keys == 0 && (blocks0 != 0 || blocks1 != 0)) return false;

  const auto* body = reinterpret_cast<const uint8_t*>(filter.data());
  sections_[0] = Section{body, blocks0, r, byte(kSeedOffset)};
  sections_[1] = Section{body + 16 * blocks0 * static_cast<uint64_t>(r),
                         blocks1, r + 1, byte(kSeedOffset + 1)};
  threshold_ = DecodeFixed64(trailer + kThresholdOffset);
  num_keys_ = num_keys;
  num_bits_ = 8 * body_bytes;
  return true;
}

void RibbonFilterReader::Prefetch(uint64_t h) const {
  const Section& sec = sections_[h < threshold_ ? 0 : 1];
  const int first = std::min(sec.result_bits, kFirstColumns);
  if (sec.num_blocks == 0 || first == 0) return;
  // The lines of the first group of columns only: a miss rarely reads on.
  const Window w = WindowFor(sec, h);
  const size_t last = 16 * static_cast<size_t>(first - 1);
  for (const uint8_t* word : w.word) {
    __builtin_prefetch(word);
    __builtin_prefetch(word + last);
  }
}

double RibbonFilterReader::ExpectedFpRate() const {
  if (num_keys_ == 0) return 0.0;
  const double q = std::ldexp(static_cast<double>(threshold_), -64);
  return q * std::ldexp(1.0, -sections_[0].result_bits) +
         (1 - q) * std::ldexp(1.0, -sections_[1].result_bits);
}

}  // namespace sift
