// sift::ScalableBloomFilter (include/sift/scalable_filter.h) over the blocked
// layout of util/bloom.h.

#include "sift/scalable_filter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/bloom.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/filter.h"
#include "util/hash.h"
#include "util/mutex.h"

namespace sift {
namespace {

// Each sub-filter's rate is half the one before (RedisBloom's
// ERROR_TIGHTENING_RATIO), the first at half the requested rate.
constexpr double kTightening = 0.5;
constexpr FilterLayout kLayout = FilterLayout::kBlocked;

// ChooseBloomParams costs up to a fraction of a millisecond (it searches the
// blocked model), and every filter with the same error rate opens the same
// sequence of sub-filter rates: remember the answers.
BloomParams ParamsFor(double p) {
  static Mutex mu;
  static auto* cache = new absl::flat_hash_map<double, BloomParams>;
  {
    MutexLock lock(&mu);
    auto it = cache->find(p);
    if (it != cache->end()) return it->second;
  }
  const BloomParams params = ChooseBloomParams(kLayout, p);
  MutexLock lock(&mu);
  constexpr size_t kMaxCached = 4096;
  if (cache->size() >= kMaxCached) cache->clear();
  cache->emplace(p, params);
  return params;
}

// The rate sub-filter i is built for.
double SubFilterRate(const ScalableFilterOptions& o, size_t i) {
  if (o.nonscaling) return o.error_rate;
  return o.error_rate * std::pow(kTightening, static_cast<double>(i + 1));
}

// The capacity of sub-filter i, or 0 if it exceeds kMaxSubFilterCapacity
// (or if i > 0 for a nonscaling filter).
uint64_t SubFilterCapacity(const ScalableFilterOptions& o, size_t i) {
  if (o.nonscaling && i > 0) return 0;
  uint64_t c = o.capacity;
  for (size_t j = 0; j < i; ++j) {
    if (c > kMaxSubFilterCapacity / o.expansion) return 0;
    c *= o.expansion;
  }
  return c;
}

FilterShape SubFilterShape(double rate, uint64_t capacity) {
  const double p = std::max(rate, kBloomMinFpChance);
  return BloomShapeFor(kLayout, p, ParamsFor(p), capacity);
}

bool TestSub(const ScalableBloomFilter::SubFilter& s, uint64_t h) {
  return bloom_internal::TestBlockedBits(
      reinterpret_cast<const uint8_t*>(s.bits.data()),
      s.num_bits / kBloomBlockBits, s.num_probes, h);
}

void PrefetchSub(const ScalableBloomFilter::SubFilter& s, uint64_t h) {
  __builtin_prefetch(
      bloom_internal::BlockOf(reinterpret_cast<const uint8_t*>(s.bits.data()),
                              s.num_bits / kBloomBlockBits, h));
}

absl::Status CheckOptions(const ScalableFilterOptions& o) {
  if (!(o.error_rate > 0 && o.error_rate < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scalable filter error_rate must be in (0, 1), got ", o.error_rate));
  }
  if (o.capacity < 1 || o.capacity > kMaxScalableFilterCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("scalable filter capacity must be in [1, ",
                     kMaxScalableFilterCapacity, "], got ", o.capacity));
  }
  if (o.expansion < 1 || o.expansion > kMaxScalableFilterExpansion) {
    return absl::InvalidArgumentError(
        absl::StrCat("scalable filter expansion must be in [1, ",
                     kMaxScalableFilterExpansion, "], got ", o.expansion));
  }
  return absl::OkStatus();
}

// ---- The ScanDump header (all integers little-endian) ---------------------
//   fixed32 magic "SBF1", fixed64 error_rate (IEEE 754 bits), fixed64
//   capacity, fixed32 expansion, u8 nonscaling, fixed64 size, fixed32
//   filters, then per sub-filter: fixed64 capacity, fixed64 count, fixed64
//   num_bits, u8 num_probes; then fixed32 crc32c of everything before it.
constexpr uint32_t kHeaderMagic = 0x31464253;  // "SBF1"
constexpr size_t kHeaderFixed = 4 + 8 + 8 + 4 + 1 + 8 + 4;
constexpr size_t kHeaderPerFilter = 8 + 8 + 8 + 1;
constexpr size_t kHeaderCrc = 4;
// More sub-filters than any filter can open (capacity doubles at least
// until kMaxSubFilterCapacity, or the rate reaches kBloomMinFpChance).
constexpr uint32_t kMaxHeaderFilters = 1 << 16;

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
double BitsDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

absl::Status BadData(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("received bad data: ", std::string(what)));
}

}  // namespace

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::Create(
    const ScalableFilterOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  ScalableBloomFilter f(options);
  f.OpenSubFilter();  // the first one always fits: capacity <= 2^30
  return f;
}

bool ScalableBloomFilter::OpenSubFilter() {
  const size_t i = subs_.size();
  const uint64_t capacity = SubFilterCapacity(options_, i);
  if (capacity == 0) return false;
  SubFilter s;
  s.capacity = capacity;
  s.error_rate = SubFilterRate(options_, i);
  const FilterShape shape = SubFilterShape(s.error_rate, capacity);
  s.bits = NewEmptyBloomFilter(kLayout, shape);
  s.num_bits = shape.num_bits;
  s.num_probes = shape.num_probes;
  subs_.push_back(std::move(s));
  return true;
}

void ScalableBloomFilter::AddTo(size_t i, uint64_t hash) {
  SubFilter& s = subs_[i];
  bloom_internal::SetBits(kLayout, reinterpret_cast<uint8_t*>(s.bits.data()),
                          s.num_bits, s.num_probes, hash);
  ++s.count;
  ++size_;
}

uint64_t ScalableBloomFilter::Hash(std::string_view item) {
  return KeyHash(item);
}

FilterAdd ScalableBloomFilter::Add(std::string_view item, size_t* sub_filter) {
  return AddHash(KeyHash(item), sub_filter);
}

FilterAdd ScalableBloomFilter::AddHash(uint64_t hash, size_t* sub_filter) {
  if (MayContainHash(hash)) return FilterAdd::kExists;
  if (subs_.back().count >= subs_.back().capacity && !OpenSubFilter()) {
    return FilterAdd::kFull;
  }
  AddTo(subs_.size() - 1, hash);
  if (sub_filter != nullptr) *sub_filter = subs_.size() - 1;
  return FilterAdd::kAdded;
}

std::vector<FilterAdd> ScalableBloomFilter::AddMulti(
    absl::Span<const std::string_view> items) {
  std::vector<FilterAdd> out;
  out.reserve(items.size());
  for (std::string_view item : items) {
    out.push_back(Add(item));
    if (out.back() == FilterAdd::kFull) break;
  }
  return out;
}

absl::Status ScalableBloomFilter::ReplayAdd(size_t i, uint64_t hash) {
  while (subs_.size() <= i) {
    if (!OpenSubFilter()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sub-filter ", i,
                       " is beyond what the filter's "
                       "options allow (",
                       subs_.size(), " can be opened)"));
    }
  }
  AddTo(i, hash);
  return absl::OkStatus();
}

bool ScalableBloomFilter::MayContain(std::string_view item) const {
  return MayContainHash(KeyHash(item));
}

bool ScalableBloomFilter::MayContainHash(uint64_t hash) const {
  // Newest first: it is the largest and holds the most items. With several
  // sub-filters every line is requested before the first is tested.
  if (subs_.size() > 1) {
    for (const SubFilter& s : subs_) PrefetchSub(s, hash);
  }
  for (size_t i = subs_.size(); i-- > 0;) {
    if (TestSub(subs_[i], hash)) return true;
  }
  return false;
}

std::vector<bool> ScalableBloomFilter::MayContainMulti(
    absl::Span<const std::string_view> items) const {
  std::vector<uint64_t> hashes(items.size());
  for (size_t j = 0; j < items.size(); ++j) {
    hashes[j] = KeyHash(items[j]);
    for (const SubFilter& s : subs_) PrefetchSub(s, hashes[j]);
  }
  std::vector<bool> out(items.size());
  for (size_t j = 0; j < items.size(); ++j) {
    bool hit = false;
    for (size_t i = subs_.size(); i-- > 0 && !hit;) {
      hit = TestSub(subs_[i], hashes[j]);
    }
    out[j] = hit;
  }
  return out;
}

absl::Status ScalableBloomFilter::Merge(const ScalableBloomFilter& other) {
  const ScalableFilterOptions& a = options_;
  const ScalableFilterOptions& b = other.options_;
  std::vector<std::string> differ;
  if (a.error_rate != b.error_rate) {
    differ.push_back(
        absl::StrCat("error_rate ", a.error_rate, " vs ", b.error_rate));
  }
  if (a.capacity != b.capacity) {
    differ.push_back(absl::StrCat("capacity ", a.capacity, " vs ", b.capacity));
  }
  if (a.nonscaling != b.nonscaling) {
    differ.push_back(
        absl::StrCat("nonscaling ", a.nonscaling, " vs ", b.nonscaling));
  } else if (!a.nonscaling && a.expansion != b.expansion) {
    differ.push_back(
        absl::StrCat("expansion ", a.expansion, " vs ", b.expansion));
  }
  if (!differ.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot merge scalable filters built with different options: ",
        absl::StrJoin(differ, ", ")));
  }
  // Equal options give equal shapes, so the ORs below cannot fail; check
  // them all before changing anything all the same.
  const size_t common = std::min(subs_.size(), other.subs_.size());
  std::vector<std::string> merged(common);
  for (size_t i = 0; i < common; ++i) {
    merged[i] = subs_[i].bits;
    if (absl::Status s = BloomOrMerge(other.subs_[i].bits, &merged[i]);
        !s.ok()) {
      return absl::InternalError(
          absl::StrCat("sub-filter ", i, ": ", s.message()));
    }
  }
  for (size_t i = 0; i < common; ++i) {
    subs_[i].bits = std::move(merged[i]);
    subs_[i].count += other.subs_[i].count;
  }
  for (size_t i = common; i < other.subs_.size(); ++i) {
    subs_.push_back(other.subs_[i]);
  }
  size_ += other.size_;
  return absl::OkStatus();
}

uint64_t ScalableBloomFilter::capacity() const {
  uint64_t c = 0;
  for (const SubFilter& s : subs_) c += s.capacity;
  return c;
}

size_t ScalableBloomFilter::bytes() const {
  size_t b = sizeof(*this);
  for (const SubFilter& s : subs_) b += sizeof(s) + s.bits.size();
  return b;
}

ScalableBloomFilter::Chunk ScalableBloomFilter::ScanDump(
    uint64_t cursor, size_t max_bytes) const {
  Chunk chunk;
  if (cursor == 0) {
    std::string& h = chunk.data;
    PutFixed32(&h, kHeaderMagic);
    PutFixed64(&h, DoubleBits(options_.error_rate));
    PutFixed64(&h, options_.capacity);
    PutFixed32(&h, options_.expansion);
    h.push_back(options_.nonscaling ? 1 : 0);
    PutFixed64(&h, size_);
    PutFixed32(&h, static_cast<uint32_t>(subs_.size()));
    for (const SubFilter& s : subs_) {
      PutFixed64(&h, s.capacity);
      PutFixed64(&h, s.count);
      PutFixed64(&h, s.num_bits);
      h.push_back(static_cast<char>(s.num_probes));
    }
    PutFixed32(&h, crc32c::Value(h.data(), h.size()));
    chunk.cursor = 1;
    return chunk;
  }
  uint64_t pos = cursor - 1;
  max_bytes = std::max<size_t>(max_bytes, 1);
  for (const SubFilter& s : subs_) {
    if (pos < s.bits.size()) {
      const size_t n = std::min<uint64_t>(max_bytes, s.bits.size() - pos);
      chunk.data.assign(s.bits, pos, n);
      chunk.cursor = cursor + n;
      return chunk;
    }
    pos -= s.bits.size();
  }
  return chunk;  // past the end: cursor 0, no data
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::FromHeader(
    std::string_view data) {
  if (data.size() < kHeaderFixed + kHeaderCrc) return BadData("short header");
  const char* p = data.data();
  if (DecodeFixed32(p) != kHeaderMagic) return BadData("not a filter header");
  const size_t body = data.size() - kHeaderCrc;
  if (DecodeFixed32(p + body) != crc32c::Value(p, body)) {
    return BadData("header checksum mismatch");
  }
  ScalableFilterOptions o;
  o.error_rate = BitsDouble(DecodeFixed64(p + 4));
  o.capacity = DecodeFixed64(p + 12);
  o.expansion = DecodeFixed32(p + 20);
  const uint8_t nonscaling = static_cast<uint8_t>(p[24]);
  if (nonscaling > 1) return BadData("bad nonscaling flag");
  o.nonscaling = nonscaling == 1;
  const uint64_t size = DecodeFixed64(p + 25);
  const uint32_t filters = DecodeFixed32(p + 33);
  if (absl::Status s = CheckOptions(o); !s.ok())
    return BadData(std::string(s.message()));
  if (filters < 1 || filters > kMaxHeaderFilters ||
      body != kHeaderFixed + filters * kHeaderPerFilter) {
    return BadData("bad number of sub-filters");
  }
  ScalableBloomFilter f(o);
  uint64_t total = 0;
  const char* e = p + kHeaderFixed;
  for (uint32_t i = 0; i < filters; ++i, e += kHeaderPerFilter) {
    // Sizes are never taken from the bytes: the options give every
    // sub-filter's shape, which the header must match.
    if (!f.OpenSubFilter()) return BadData("too many sub-filters");
    SubFilter& s = f.subs_.back();
    if (DecodeFixed64(e) != s.capacity || DecodeFixed64(e + 16) != s.num_bits ||
        static_cast<uint8_t>(e[24]) != s.num_probes) {
      return BadData(absl::StrCat("sub-filter ", i, " has another shape"));
    }
    s.count = DecodeFixed64(e + 8);
    total += s.count;
  }
  if (total != size) return BadData("item counts do not add up");
  f.size_ = size;
  return f;
}

absl::StatusOr<size_t> ScalableBloomFilter::LoadChunk(uint64_t cursor,
                                                      std::string_view data) {
  if (data.empty() || cursor < 1 + data.size()) {
    return BadData("chunk does not match its iterator");
  }
  uint64_t start = cursor - 1 - data.size();
  for (size_t i = 0; i < subs_.size(); ++i) {
    SubFilter& s = subs_[i];
    if (start >= s.bits.size()) {
      start -= s.bits.size();
      continue;
    }
    if (data.size() > s.bits.size() - start) {
      return BadData("chunk runs past its sub-filter");
    }
    const size_t body = s.num_bits / 8;
    std::string old;
    const bool touches_trailer = start + data.size() > body;
    if (touches_trailer) old = s.bits;
    s.bits.replace(start, data.size(), data.data(), data.size());
    if (touches_trailer) {
      const FilterReader r(s.bits);
      if (!r.valid() || r.layout() != kLayout || r.num_bits() != s.num_bits ||
          r.num_probes() != s.num_probes) {
        s.bits = std::move(old);
        return BadData(absl::StrCat("sub-filter ", i, " trailer mismatch"));
      }
    }
    return i;
  }
  return BadData("chunk past the end of the filter");
}

}  // namespace sift
