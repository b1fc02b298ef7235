// Comparator: the order of user keys in a database.
//
// LevelDB's interface, with std::string_view for Slice. A database is
// created with one comparator and must always be opened with a comparator
// of the same Name(): the name is recorded in the MANIFEST, and DB::Open
// with another name fails with InvalidArgument naming both.
//
// Thread safety: the DB calls every method concurrently from many threads,
// so implementations must be thread-safe (the usual stateless comparator
// is).

#ifndef SIFT_INCLUDE_COMPARATOR_H_
#define SIFT_INCLUDE_COMPARATOR_H_

#include <string>
#include <string_view>

namespace sift {

class Comparator {
 public:
  virtual ~Comparator();

  // < 0 when a sorts before b, 0 when they are the same key, > 0 after.
  // Must be a total order, and must never change for a given Name(): files
  // written under one order are read assuming it. siftdb's built-in filters
  // (Options::bloom_filter_fp_chance) hash the key's bytes, so two keys
  // that compare equal must also be byte-for-byte equal while they are on;
  // an order with other equal keys needs bloom_filter_fp_chance = 1.0 or an
  // Options::filter_policy that agrees with it.
  virtual int Compare(std::string_view a, std::string_view b) const = 0;

  // Identifies the order, recorded in the MANIFEST. Change it whenever
  // Compare's order changes. Names starting with "sift." are reserved.
  virtual const char* Name() const = 0;

  // Index keys only need to separate blocks, so short ones keep the index
  // small. If *start < limit, may replace *start by a shorter key k with
  // *start <= k < limit; leaving *start alone is always correct.
  virtual void FindShortestSeparator(std::string* start,
                                     std::string_view limit) const = 0;

  // May replace *key by a shorter key k >= *key; leaving it alone is
  // always correct.
  virtual void FindShortSuccessor(std::string* key) const = 0;
};

// Lexicographic order of unsigned bytes (memcmp), named
// "sift.BytewiseComparator": the default. A static object; never delete it.
// siftdb compares with it inline (an 8-byte prefix compare first) without a
// virtual call; any other comparator is called through its methods.
const Comparator* BytewiseComparator();

}  // namespace sift

#endif  // SIFT_INCLUDE_COMPARATOR_H_
