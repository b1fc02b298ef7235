#include "tests/testutil/test_comparators.h"

#include <algorithm>

namespace sift::test {
namespace {

class ReverseBytewise : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    return b.compare(a);
  }
  const char* Name() const override { return "sift.test.Reverse"; }

  // Wanted: limit < k <= start bytewise. start's prefix through the first
  // byte where it differs from limit is one (or limit is a prefix of it).
  void FindShortestSeparator(std::string* start,
                             std::string_view limit) const override {
    if (std::string_view(*start).compare(limit) <= 0) return;
    size_t diff = 0;
    const size_t n = std::min(start->size(), limit.size());
    while (diff < n && (*start)[diff] == limit[diff]) ++diff;
    if (diff + 1 < start->size()) start->resize(diff + 1);
  }

  // Any prefix is bytewise <= the key: at or after it in reverse order.
  void FindShortSuccessor(std::string* key) const override {
    if (key->size() > 1) key->resize(1);
  }
};

class ReverseWithoutShortening final : public ReverseBytewise {
 public:
  const char* Name() const override { return "sift.test.ReverseNoShortening"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

class NumericSuffix final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    const size_t sa = StemLength(a), sb = StemLength(b);
    if (int r = a.substr(0, sa).compare(b.substr(0, sb)); r != 0) return r;
    std::string_view na = StripZeros(a.substr(sa)),
                     nb = StripZeros(b.substr(sb));
    if (na.size() != nb.size()) return na.size() < nb.size() ? -1 : 1;
    if (int r = na.compare(nb); r != 0) return r;
    return a.compare(b);
  }
  const char* Name() const override { return "sift.test.NumericSuffix"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  static size_t StemLength(std::string_view k) {
    size_t n = k.size();
    while (n > 0 && k[n - 1] >= '0' && k[n - 1] <= '9') --n;
    return n;
  }
  static std::string_view StripZeros(std::string_view digits) {
    while (!digits.empty() && digits[0] == '0') digits.remove_prefix(1);
    return digits;
  }
};

}  // namespace

const Comparator* ReverseBytewiseComparator() {
  static const ReverseBytewise* const kCmp = new ReverseBytewise;
  return kCmp;
}

const Comparator* ReverseComparatorWithoutShortening() {
  static const ReverseWithoutShortening* const kCmp =
      new ReverseWithoutShortening;
  return kCmp;
}

const Comparator* NumericSuffixComparator() {
  static const NumericSuffix* const kCmp = new NumericSuffix;
  return kCmp;
}

}  // namespace sift::test
