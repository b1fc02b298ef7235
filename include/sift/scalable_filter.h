// ScalableBloomFilter: a Bloom filter that grows as items are added, with
// RedisBloom's semantics (the BF.* commands of sift-server are this class).
//
// A filter is a stack of sub-filters. The first holds `capacity` items at
// false-positive rate error_rate / 2; when the newest is full, the next add
// of a new item opens one `expansion` times larger with half the rate of the
// one before. A query asks every sub-filter, so the compound rate is at most
// error_rate * (1/2 + 1/4 + ...) < error_rate however far the filter grows
// (Almeida, Baquero, Preguica, Hutchison, "Scalable Bloom Filters", 2007;
// RedisBloom's tightening ratio of 0.5). A NONSCALING filter has one
// sub-filter at the full error_rate and refuses new items once it holds
// `capacity`. Each sub-filter is one of siftdb's blocked Bloom filters
// (util/bloom.h: all probes of an item in one 64-byte cache line, sized by
// the layout's exact model so the measured rate meets its target), in the
// serialized form table/FORMAT.md specifies ("Filter bytes").
//
//   absl::StatusOr<sift::ScalableBloomFilter> seen =
//       sift::ScalableBloomFilter::Create({.error_rate = 0.001,
//                                          .capacity = 10000});
//   absl::StatusOr<bool> added = seen->Add(url);  // false: seen (probably)
//   if (seen->MayContain(other_url)) { /* probably seen */ }
//
// Items are byte strings; an item is hashed once (XXH3-64, util/hash.h).
// Counts follow RedisBloom: size() counts the adds that found the item
// absent (so a false positive is not counted), capacity() sums the
// sub-filters' capacities.
//
// Thread safety: const methods may run concurrently; Add, Merge and
// LoadChunk need exclusive access.

#ifndef SIFT_INCLUDE_SCALABLE_FILTER_H_
#define SIFT_INCLUDE_SCALABLE_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace sift {

struct ScalableFilterOptions {
  // The compound false-positive rate the filter stays under, in (0, 1).
  // Lower: more bits per item (about 1.44 log2(1/p) plus a few percent per
  // sub-filter). Default: 0.01, RedisBloom's.
  double error_rate = 0.01;
  // Items the first sub-filter holds, in [1, kMaxScalableFilterCapacity].
  // Reserve what you expect: a filter that grew through many sub-filters
  // costs a probe per sub-filter on a miss. Default: 100, RedisBloom's.
  uint64_t capacity = 100;
  // Each new sub-filter holds this many times the items of the one before,
  // in [1, kMaxScalableFilterExpansion]. 1 grows slowest in memory and
  // fastest in sub-filters. Ignored when nonscaling. Default: 2.
  uint32_t expansion = 2;
  // One sub-filter at error_rate; an add of a new item to a full filter is
  // refused (ResourceExhausted). Default: false.
  bool nonscaling = false;
};

inline constexpr uint64_t kMaxScalableFilterCapacity = uint64_t{1} << 30;
inline constexpr uint32_t kMaxScalableFilterExpansion = 32768;
// A sub-filter larger than this many items is not opened: the add that would
// need it fails with ResourceExhausted (about 4 GiB of bits at 1e-6).
inline constexpr uint64_t kMaxSubFilterCapacity = uint64_t{1} << 34;

// The outcome of adding one item.
enum class FilterAdd : uint8_t {
  kAdded,   // the item was absent; its bits are now set (size() grew)
  kExists,  // every sub-filter may hold it already: nothing changed
  kFull,    // absent, but the filter cannot take it (nonscaling and full,
            // or the next sub-filter would exceed kMaxSubFilterCapacity)
};

class ScalableBloomFilter {
 public:
  // One sub-filter: its sizing, its item count and its filter bytes.
  struct SubFilter {
    uint64_t capacity = 0;  // items it is sized for
    double error_rate = 0;  // its own target rate
    uint64_t count = 0;     // items added to it
    std::string bits;       // serialized blocked Bloom filter
    // Parsed from bits' trailer: bits of the body and probes per item.
    uint64_t num_bits = 0;
    int num_probes = 0;
  };

  // A filter holding nothing. InvalidArgument naming the option out of
  // range (error_rate, capacity, expansion) and its value.
  static absl::StatusOr<ScalableBloomFilter> Create(
      const ScalableFilterOptions& options);

  // Copyable and movable (a copy holds its own bits).

  // RedisBloom's add: kExists if some sub-filter may hold the item; else
  // the item goes to the newest sub-filter, opening a new one first when it
  // is full (kFull if it cannot). *sub_filter, if given, receives the index
  // of the sub-filter that took it (for kAdded).
  FilterAdd Add(std::string_view item, size_t* sub_filter = nullptr);
  FilterAdd AddHash(uint64_t hash, size_t* sub_filter = nullptr);
  // The hash Add and MayContain take of an item (for the *Hash forms).
  static uint64_t Hash(std::string_view item);

  // Adds items in order, as a loop of Add would, stopping after the first
  // kFull (RedisBloom's BF.MADD). Returns one outcome per item tried.
  std::vector<FilterAdd> AddMulti(absl::Span<const std::string_view> items);

  // False: the item was definitely never added. True: it probably was
  // (wrongly, with chance below error_rate).
  bool MayContain(std::string_view item) const;
  bool MayContainHash(uint64_t hash) const;
  // MayContain for each item, in order; the cache lines of all items'
  // probes are prefetched before any is tested, so a batch costs about
  // one memory latency instead of one per item and sub-filter.
  std::vector<bool> MayContainMulti(
      absl::Span<const std::string_view> items) const;

  // Sets the bits of `hash` in sub-filter i and counts it there, opening
  // sub-filters up to i as Add would: replays an add whose outcome was
  // recorded elsewhere (sift-server's delta records). InvalidArgument if i
  // is beyond what the options allow (nonscaling: 0; or too large).
  absl::Status ReplayAdd(size_t i, uint64_t hash);

  // ORs other into this filter, sub-filter by sub-filter (their shapes are
  // a function of the options, so equal options give equal shapes), for
  // merging filters kept apart over parts of one stream of items; the
  // result may contain every item either may contain. Sub-filters only
  // `other` has are copied. Counts add up (an item both held counts twice).
  // A merged sub-filter whose combined count exceeds its capacity answers
  // at the rate of that load, above its target: give every node a capacity
  // for the whole stream (as BF.RESERVE would for one filter), so the
  // merged first sub-filter stays within it. InvalidArgument naming each
  // option that differs, with both values; nothing changes then.
  absl::Status Merge(const ScalableBloomFilter& other);

  const ScalableFilterOptions& options() const { return options_; }
  // Items added (RedisBloom's "Number of items inserted", BF.CARD).
  uint64_t size() const { return size_; }
  // Sum of the sub-filters' capacities ("Capacity").
  uint64_t capacity() const;
  size_t num_filters() const { return subs_.size(); }
  // Bytes of filter bits and bookkeeping ("Size").
  size_t bytes() const;
  const SubFilter& sub_filter(size_t i) const { return subs_[i]; }

  // ---- Chunked serialization (BF.SCANDUMP, BF.LOADCHUNK) ---------------
  // ScanDump(0) returns the header (cursor 1): the options and, per
  // sub-filter, its capacity, rate, count and size. Each later call with
  // the cursor it was given returns the next piece of at most max_bytes of
  // one sub-filter's bits and the cursor to pass next; a call past the
  // end returns cursor 0 with no data. The cursor returned with a piece is
  // also the one LoadChunk takes with it: 1 + the end of the piece in the
  // concatenation of all sub-filters' bytes. The bytes are siftdb's
  // (util/bloom.h's hashing and layout), not RedisBloom's.
  struct Chunk {
    uint64_t cursor = 0;
    std::string data;
  };
  Chunk ScanDump(uint64_t cursor, size_t max_bytes = kDefaultChunkBytes) const;
  static constexpr size_t kDefaultChunkBytes = 16 << 20;

  // A filter from a header (ScanDump(0)'s data), with every sub-filter's
  // bits clear until LoadChunk fills them. InvalidArgument ("received bad
  // data") for bytes that are not a header this version wrote.
  static absl::StatusOr<ScalableBloomFilter> FromHeader(std::string_view data);
  // Writes one piece ScanDump returned, with its cursor. InvalidArgument if
  // the piece does not fall inside one sub-filter's bytes; the piece that
  // holds a sub-filter's trailer must hold the trailer that sub-filter's
  // header entry implies. Returns the index of the sub-filter written.
  absl::StatusOr<size_t> LoadChunk(uint64_t cursor, std::string_view data);

 private:
  explicit ScalableBloomFilter(const ScalableFilterOptions& options)
      : options_(options) {}
  // Appends the next sub-filter (capacity and rate from the options).
  // False if it would be too large.
  bool OpenSubFilter();
  // Sets hash's bits in sub-filter i and counts the item there.
  void AddTo(size_t i, uint64_t hash);

  ScalableFilterOptions options_;
  uint64_t size_ = 0;
  // Invariant: at least one; each one's bits are a valid blocked filter of
  // num_bits and num_probes, of the shape the options give its index.
  std::vector<SubFilter> subs_;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_SCALABLE_FILTER_H_
