// FilterPolicy: builds and queries the filters (Bloom or Ribbon) siftdb keeps
// for every SSTable, so that a Get for a key a file does not hold usually skips
// the file without reading its index or data.
//
// Two kinds of policy share this interface:
// - siftdb's built-in, calibrated filters, from FilterPolicy::Create. The DB
//   builds these itself from Options::bloom_filter_fp_chance and
//   filter_layout (hashing each key once per Get for every file); Create
//   gives the same filters for use outside a DB.
// - A user policy, LevelDB's contract: a subclass implementing Name(),
//   CreateFilter and KeyMayMatch, set as Options::filter_policy. Its
//   filters are opaque bytes to siftdb, stored in each table with Name();
//   fp_chance(), layout() and ShapeFor() keep their defaults, which siftdb
//   never reads for a user policy. What siftdb relies on:
//   * CreateFilter(keys, dst) gets the distinct user keys of one table, in
//     the table's order, and a *dst that may hold anything; it must leave
//     in *dst a filter of those keys (replacing what was there).
//   * KeyMayMatch(key, filter) is only ever given a filter that a policy of
//     the same Name() built, and must return true for every key that
//     filter was built from: a false there hides the key from Get (siftdb
//     skips the file without reading it). Any other answer is allowed;
//     false for a key not in the table is what saves the read.
//   * Name() identifies the filter format: a table whose filter was built
//     under another name (or by the built-in filters) is read as if it had
//     no filter, never probed with the wrong policy. Names starting with
//     "sift." are reserved.
//   * All three are called from any thread at any time (flushes and
//     compactions build filters in the background, Gets probe them
//     concurrently), for as long as a DB holds the policy.
// The rest of this comment is about the built-in filters.
// A filter is a self-describing string: its own trailer records its layout,
// number of probes, size and number of keys (table/FORMAT.md, "Filter bytes"),
// so a filter built under one policy is read correctly by any other, and a
// reader never needs today's options to read yesterday's filter.
//
// The guarantee is one-sided. KeyMayMatch never returns false for a key that
// was added; for a key that was not, it returns true with probability about
// fp_chance(). A filter that is empty, truncated, corrupt or of an unknown
// format is never trusted: every key "may match", so a damaged filter costs
// reads, never correctness. (The filter carries no checksum of its own: the
// SSTable wraps it in a checksummed block, which is what catches flipped bits
// inside a well-formed filter.)
//
// Thread safety: a FilterPolicy is immutable; all methods are const and may
// be called concurrently from any number of threads.
//
//   ASSIGN_OR_RETURN(auto policy, sift::FilterPolicy::Create(0.01));
//   std::string filter;
//   policy->CreateFilter(keys, &filter);
//   if (!policy->KeyMayMatch(key, filter)) { /* key is definitely absent */ }

#ifndef SIFT_INCLUDE_FILTER_POLICY_H_
#define SIFT_INCLUDE_FILTER_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sift/options.h"

namespace sift {

// The size and probe count of one filter.
struct FilterShape {
  uint64_t num_keys = 0;  // distinct keys the filter holds
  uint64_t num_bits = 0;  // bits of the bit array (excludes the trailer)
  int num_probes = 0;     // bits tested per key

  // num_bits / num_keys; 0 when num_keys == 0.
  double bits_per_key() const {
    return num_keys == 0
               ? 0.0
               : static_cast<double>(num_bits) / static_cast<double>(num_keys);
  }
};

class FilterPolicy {
 public:
  // A policy building filters with false-positive chance fp_chance in the
  // given layout (see FilterLayout in sift/options.h for the trade-off).
  //
  // fp_chance must be in (0, 1): 0, negative values, values >= 1, NaN and
  // infinities are InvalidArgument, as is a layout value that is not a
  // FilterLayout enumerator. (Options::bloom_filter_fp_chance = 1.0 means
  // "write no filter"; that decision belongs to the table builder, which then
  // creates no policy.) Targets below 1e-12 are built as 1e-12: the 64-bit
  // key hash alone makes a key collide with one of n others with chance
  // n / 2^64 (5e-13 at 10 million keys), so a smaller target is not reachable.
  //
  // Cost: about 9.6 bits per key at 0.01 (kStandard); kBlocked needs +1% to
  // +15% more for p from 0.1 to 0.0001 in exchange for one cache miss per
  // query instead of up to k. kRibbon needs about 1.04 to 1.07 * log2(1/p)
  // (7.0 to 7.2 bits per key at 0.01) but builds about 2x slower; for fewer
  // than about 250 keys (at 0.01), where it would not be smaller, it builds
  // kBlocked.
  static absl::StatusOr<std::unique_ptr<const FilterPolicy>> Create(
      double fp_chance, FilterLayout layout = FilterLayout::kBlocked);

  virtual ~FilterPolicy() = default;

  // Names the filter format, recorded in every table built with the policy
  // (Options::filter_policy): a filter is only ever probed by a policy of
  // the same name. Change the name whenever CreateFilter's output or
  // KeyMayMatch's reading of it changes. Names starting with "sift." are
  // reserved; the built-in policies answer "sift.BuiltinFilter" (the DB
  // never records it: its own filters carry their format in their bytes).
  virtual const char* Name() const = 0;

  // The target false-positive chance, as given to Create. Default (a user
  // policy): 1.0, no promised rate.
  virtual double fp_chance() const { return 1.0; }
  // Default (a user policy): kStandard; not used by siftdb for it.
  virtual FilterLayout layout() const { return FilterLayout::kStandard; }

  // The shape CreateFilter chooses for num_keys distinct keys. num_bits /
  // num_keys is the bits per key; it is higher than the asymptotic value for
  // small num_keys, because sizes round up to whole bytes or 64-byte blocks
  // and to a minimum of 64 (kStandard) or 512 (kBlocked) bits. For kRibbon
  // it is the Ribbon shape (num_probes = its wider section's result bits)
  // or, for few keys, kBlocked's; a Ribbon build that fails under every
  // seed (a chance below 1e-8) writes kBlocked's shape instead. Default (a
  // user policy): num_keys with no bits or probes, as the shape is unknown.
  virtual FilterShape ShapeFor(uint64_t num_keys) const {
    return FilterShape{num_keys, 0, 0};
  }

  // Built-in policies (a user policy: see the file comment):
  // Replaces the contents of *dst with a filter holding exactly `keys`.
  // Duplicate keys count once. An empty `keys` yields a valid filter that
  // matches nothing. (Replacing rather than appending keeps the filter's
  // first byte at dst->data(), whose alignment then decides whether a
  // kBlocked block shares one cache line; see util/bloom.h.)
  // The keys need not be sorted; the memory used is 16 bytes per key, and
  // for kRibbon up to about 34 more (util/ribbon.h).
  virtual void CreateFilter(absl::Span<const std::string_view> keys,
                            std::string* dst) const = 0;

  // False means `key` was definitely not among the keys `filter` was built
  // from. True means it may have been. Built-in policies accept any
  // `filter` string: one
  // that is not a well-formed filter (see the file comment) matches every
  // key. Does not depend on this policy's fp_chance or layout.
  virtual bool KeyMayMatch(std::string_view key,
                           std::string_view filter) const = 0;

  // ORs filter `other` into *filter, for merging filters built apart over
  // parts of one key set (each node of a cluster de-duplicating its share,
  // then one global filter). Afterwards *filter may match every key either
  // filter was built from, and it answers like a filter of its shape
  // holding both key sets: its false-positive rate is that of the combined
  // number of keys, so merge filters sized for the total (the sub-filters
  // of sift::ScalableBloomFilter are: see its Merge). The two must have
  // identical parameters -- layout, num_bits and num_probes, as CreateFilter
  // gives for the same fp_chance, layout and number of distinct keys --
  // otherwise InvalidArgument names each parameter that differs with both
  // values, and *filter is unchanged; so it is for bytes that are not a
  // filter, and for Ribbon filters, which cannot be merged. The result's
  // key count (in its trailer) is the sum of both.
  // Built-in policies merge any built-in filters; a user policy answers
  // Unimplemented unless it overrides this.
  virtual absl::Status MergeFilters(std::string_view other,
                                    std::string* filter) const;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_FILTER_POLICY_H_
