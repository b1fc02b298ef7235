// User comparators for tests: orders unlike bytewise, so that any place
// that still compares keys as bytes (or takes the bytewise prefix fast
// path) puts keys in the wrong order and a model check catches it.

#ifndef SIFT_TESTS_TESTUTIL_TEST_COMPARATORS_H_
#define SIFT_TESTS_TESTUTIL_TEST_COMPARATORS_H_

#include <string>
#include <string_view>

#include "sift/comparator.h"

namespace sift::test {

// Bytewise order reversed ("sift.test.Reverse"). Its hooks really shorten:
// a separator is the shortest prefix of start still after limit, a
// successor the first byte of the key.
const Comparator* ReverseBytewiseComparator();

// The same order with hooks that never shorten, under another name
// ("sift.test.ReverseNoShortening"): beside ReverseBytewiseComparator it
// shows what the hooks save.
const Comparator* ReverseComparatorWithoutShortening();

// "key" + decimal number compared by number ("sift.test.NumericSuffix"):
// a key splits into a stem and its trailing run of digits; stems compare
// bytewise, then the numbers by value ("key9" < "key10"), then whole keys
// bytewise, so only equal bytes compare equal. Its hooks are LevelDB's
// defaults (no shortening).
const Comparator* NumericSuffixComparator();

// A strict weak order for std::map and std::sort from a Comparator.
struct ComparatorLess {
  const Comparator* cmp = BytewiseComparator();
  bool operator()(std::string_view a, std::string_view b) const {
    return cmp->Compare(a, b) < 0;
  }
  using is_transparent = void;
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_TEST_COMPARATORS_H_
