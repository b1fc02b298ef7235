// Fuzz target: the input is one block (table/FORMAT.md, "Data, index,
// metaindex and properties blocks") read through Block and Block::Iter with
// both comparators.
//
// Besides "no crash, no UB", an independent decoder of the entry format
// below is the oracle: forward iteration must yield exactly the entries it
// decodes, stopping with DataLoss exactly where it fails; for a well-formed
// block (every restart point an entry with shared == 0) backward iteration
// must yield them reversed; for a well-formed block whose keys are sorted,
// Seek must find the lower bound of every target.

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "table/block.h"
#include "table/internal_key.h"
#include "tests/fuzz/fuzz_common.h"
#include "util/coding.h"

namespace sift {
namespace {

struct Entry {
  std::string key;
  std::string value;
};

struct Decoded {
  std::vector<Entry> entries;
  std::vector<uint32_t> offsets;  // of each entry
  std::vector<uint32_t> shared;   // of each entry
  bool complete = false;          // every byte up to the restarts parsed
};

// The oracle: a plain reading of FORMAT.md, sharing no code with block.cc
// except the varint decoder.
Decoded DecodeEntries(std::string_view block, uint32_t restart_offset) {
  Decoded d;
  const char* const base = block.data();
  const char* p = base;
  const char* const limit = base + restart_offset;
  std::string key;
  while (p < limit) {
    uint32_t shared, non_shared, value_length;
    const char* q = GetVarint32Ptr(p, limit, &shared);
    if (q != nullptr) q = GetVarint32Ptr(q, limit, &non_shared);
    if (q != nullptr) q = GetVarint32Ptr(q, limit, &value_length);
    if (q == nullptr || shared > key.size() ||
        uint64_t{non_shared} + value_length >
            static_cast<uint64_t>(limit - q)) {
      return d;
    }
    key.resize(shared);
    key.append(q, non_shared);
    d.offsets.push_back(static_cast<uint32_t>(p - base));
    d.shared.push_back(shared);
    d.entries.push_back({key, std::string(q + non_shared, value_length)});
    p = q + non_shared + value_length;
  }
  d.complete = true;
  return d;
}

bool WellFormed(const Block& block, const Decoded& d) {
  if (!d.complete) return false;
  const char* restarts = block.data().data() + block.restart_offset();
  const uint32_t n =
      static_cast<uint32_t>((block.size() - block.restart_offset()) / 4 - 1);
  size_t j = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = DecodeFixed32(restarts + 4 * i);
    while (j < d.offsets.size() && d.offsets[j] < r) ++j;
    if (j == d.offsets.size() || d.offsets[j] != r || d.shared[j] != 0) {
      return false;
    }
  }
  return true;
}

void ExpectAt(const Iterator& it, const std::vector<Entry>& e, size_t i,
              const char* what) {
  if (i >= e.size()) {
    FUZZ_CHECK(!it.Valid(), what);
    return;
  }
  FUZZ_CHECK(it.Valid(), what);
  FUZZ_CHECK(it.key() == e[i].key && it.value() == e[i].value, what);
}

// Targets around each key, then the extremes; at most ~200 seeks.
std::vector<std::string> SeekTargets(const std::vector<Entry>& e) {
  std::vector<std::string> t = {"", std::string(16, '\xff')};
  const size_t step = std::max<size_t>(1, e.size() / 64);
  for (size_t i = 0; i < e.size(); i += step) {
    t.push_back(e[i].key);
    std::string k = e[i].key;
    k.push_back('\0');
    t.push_back(k);  // just after key i
    if (!e[i].key.empty()) {
      k = e[i].key;
      k.back() = static_cast<char>(k.back() - 1);
      t.push_back(k);  // usually just before key i
    }
  }
  return t;
}

void CheckSeeks(const Block& block, KeyComparator cmp,
                const std::vector<Entry>& e) {
  Block::Iter it(&block, cmp);
  for (const std::string& target : SeekTargets(e)) {
    // The internal-key order is total only over keys of >= 8 bytes.
    if (cmp.internal() && target.size() < kInternalKeyTrailerSize) {
      continue;
    }
    const size_t i = static_cast<size_t>(
        std::partition_point(
            e.begin(), e.end(),
            [&](const Entry& x) { return cmp(x.key, target) < 0; }) -
        e.begin());
    it.Seek(target);
    FUZZ_CHECK(it.status().ok(), "Seek in a well-formed block");
    ExpectAt(it, e, i, "Seek finds the lower bound");
    if (!it.Valid()) continue;
    it.Prev();
    ExpectAt(it, e, i == 0 ? e.size() : i - 1, "Prev after Seek");
    if (i == 0) continue;
    it.Next();
    ExpectAt(it, e, i, "Next after Prev");
  }
}

void CheckWith(const Block& block, KeyComparator cmp, const Decoded& d) {
  Block::Iter it(&block, cmp);
  std::vector<Entry> forward;
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    forward.push_back({std::string(it.key()), std::string(it.value())});
  }
  FUZZ_CHECK(it.status().ok() == d.complete,
             "forward iteration errs exactly where the format is broken");
  FUZZ_CHECK(forward.size() == d.entries.size(), "forward entry count");
  for (size_t i = 0; i < forward.size(); ++i) {
    FUZZ_CHECK(forward[i].key == d.entries[i].key &&
                   forward[i].value == d.entries[i].value,
               "forward entry contents");
  }

  std::vector<Entry> backward;
  for (it.SeekToLast(); it.Valid(); it.Prev()) {
    backward.push_back({std::string(it.key()), std::string(it.value())});
    FUZZ_CHECK(backward.size() <= block.size(), "backward iteration ends");
  }
  if (!WellFormed(block, d)) return;  // damage: only memory safety is owed
  FUZZ_CHECK(it.status().ok(), "backward over a well-formed block");
  std::reverse(backward.begin(), backward.end());
  FUZZ_CHECK(backward.size() == forward.size(), "backward entry count");
  for (size_t i = 0; i < forward.size(); ++i) {
    FUZZ_CHECK(backward[i].key == forward[i].key &&
                   backward[i].value == forward[i].value,
               "backward entry contents");
  }

  for (size_t i = 0; i < forward.size(); ++i) {
    if (cmp.internal() && forward[i].key.size() < kInternalKeyTrailerSize) {
      return;  // not a total order: Seek promises nothing
    }
    if (i > 0 && cmp(forward[i - 1].key, forward[i].key) >= 0) return;
  }
  CheckSeeks(block, cmp, forward);
}

}  // namespace
}  // namespace sift

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sift;
  // The block owns an exact-size copy, so a read past its end is caught.
  BlockContents contents;
  contents.owned.reset(new char[size]);
  if (size > 0) std::memcpy(contents.owned.get(), data, size);
  contents.data = std::string_view(contents.owned.get(), size);
  contents.owned_size = size;
  Block block(std::move(contents));
  if (!block.status().ok()) {
    std::unique_ptr<Iterator> it = block.NewIterator(KeyComparator::Bytes());
    it->SeekToFirst();
    FUZZ_CHECK(!it->Valid() && !it->status().ok(),
               "a rejected block iterates as empty with its error");
    return 0;
  }
  const Decoded d = DecodeEntries(block.data(), block.restart_offset());
  CheckWith(block, KeyComparator::Bytes(), d);
  CheckWith(block, KeyComparator::Internal(BytewiseComparator()), d);
  return 0;
}
