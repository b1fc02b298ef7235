// Tests of the serialized filters (table/FORMAT.md, "Filter bytes" and
// "Ribbon filter bytes"):
// damaged, truncated and foreign filters are never trusted to say "absent", and
// the bytes of the worked examples never change.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/filter_policy.h"
#include "tests/bloom_test_keys.h"
#include "tests/testutil/testutil.h"
#include "util/coding.h"
#include "util/filter.h"
#include "util/hash.h"
#include "util/ribbon.h"

namespace sift {
namespace {

using bloom_test::ForEachKey;
using bloom_test::kLayouts;
using bloom_test::LayoutName;
using bloom_test::Shape;

// ---- Damaged and foreign filters ----------------------------------------

// A reader over `filter` that must be invalid, and so match everything.
void ExpectDistrusted(std::string_view filter, const std::string& what) {
  const FilterReader reader(filter);
  EXPECT_FALSE(reader.valid()) << what;
  EXPECT_EQ(reader.ExpectedFpRate(), 1.0) << what;
  for (uint64_t h = 0; h < 64; ++h) {
    EXPECT_TRUE(reader.MayContainHash(h * 0x9e3779b97f4a7c15ULL)) << what;
    reader.Prefetch(h);
  }
}

// A real filter of 1000 URL keys, and the keys' hashes.
struct Sample {
  std::string filter;
  std::vector<uint64_t> hashes;
};

Sample MakeSample(FilterLayout layout, uint64_t n = 1000) {
  Sample s;
  FilterBuilder builder(layout, 0.01);
  ForEachKey(Shape::kUrl, 11, false, n, [&](std::string_view k) {
    s.hashes.push_back(KeyHash(k));
    builder.AddHash(s.hashes.back());
  });
  builder.Finish(&s.filter);
  return s;
}

TEST(BloomCorruptionTest, DefaultReaderMatchesEverything) {
  ExpectDistrusted(std::string_view(), "empty");
  const FilterReader reader;
  EXPECT_FALSE(reader.valid());
  EXPECT_TRUE(reader.MayContainHash(0));
}

TEST(BloomCorruptionTest, EveryTruncationIsDistrusted) {
  for (FilterLayout layout : kLayouts) {
    for (uint64_t n : {0, 1, 2, 1000}) {
      const Sample s = MakeSample(layout, n);
      const std::string_view full(s.filter);
      ASSERT_TRUE(FilterReader(full).valid());
      for (size_t len = 0; len < full.size(); ++len) {
        const std::string what =
            absl::StrCat(LayoutName(layout), " n=", n, " length ", len);
        // Only a heap copy of exactly `len` bytes lets ASan catch any read
        // past the end.
        const std::string copy(full.substr(0, len));
        const FilterReader prefix(copy);
        ASSERT_FALSE(prefix.valid()) << what;
        for (uint64_t h : s.hashes) ASSERT_TRUE(prefix.MayContainHash(h));
        // Dropping leading bytes instead leaves a well-formed trailer over
        // too short a body.
        const std::string suffix(full.substr(full.size() - len));
        ASSERT_FALSE(FilterReader(suffix).valid()) << what;
      }
    }
  }
}

TEST(BloomCorruptionTest, TrailingBytesAreDistrusted) {
  for (FilterLayout layout : kLayouts) {
    const Sample s = MakeSample(layout);
    for (std::string_view extra :
         {std::string_view("\0", 1), std::string_view("x"),
          std::string_view("12345678")}) {
      ExpectDistrusted(s.filter + std::string(extra), "extra bytes");
    }
  }
}

// Rewrites one trailer field of a copy of `filter`.
std::string WithTrailerByte(std::string filter, size_t offset, uint8_t v) {
  filter[filter.size() - kBloomTrailerSize + offset] = static_cast<char>(v);
  return filter;
}
std::string WithTrailerFixed64(std::string filter, size_t offset, uint64_t v) {
  EncodeFixed64(&filter[filter.size() - kBloomTrailerSize + offset], v);
  return filter;
}

TEST(BloomCorruptionTest, InconsistentTrailersAreDistrusted) {
  for (FilterLayout layout : kLayouts) {
    const Sample s = MakeSample(layout);
    const FilterReader good(s.filter);
    ASSERT_TRUE(good.valid());
    const uint64_t bits = good.num_bits();
    // Unknown layout tags, e.g. a future format.
    for (int tag = 2; tag < 256; ++tag) {
      ExpectDistrusted(WithTrailerByte(s.filter, 17, tag), "tag");
    }
    // Probes out of range.
    for (int probes : {0, kBloomMaxProbes + 1, 200, 255}) {
      ExpectDistrusted(WithTrailerByte(s.filter, 16, probes), "probes");
    }
    // Sizes that disagree with the byte length.
    for (uint64_t b :
         {uint64_t{0}, bits - 8, bits - 1, bits + 1, bits + 8, bits + 512,
          bits * 2, bits << 3, bits >> 3, std::numeric_limits<uint64_t>::max(),
          std::numeric_limits<uint64_t>::max() - 7}) {
      ExpectDistrusted(WithTrailerFixed64(s.filter, 0, b),
                       absl::StrCat("num_bits ", b));
    }
    // A key-less filter is always the minimum size.
    ExpectDistrusted(WithTrailerFixed64(s.filter, 8, 0), "no keys");
    // Wrong magic.
    ExpectDistrusted(WithTrailerByte(s.filter, 18, 0x7F), "magic");
    ExpectDistrusted(WithTrailerByte(s.filter, 19, 0x00), "magic");
  }
  // A kStandard body whose size is not a whole number of blocks cannot be
  // read as kBlocked.
  const Sample s = MakeSample(FilterLayout::kStandard);
  ASSERT_NE(FilterReader(s.filter).num_bits() % 512, 0u);
  ExpectDistrusted(WithTrailerByte(s.filter, 17, 1), "relabelled");
}

// Flipping any single trailer bit must never crash or read out of bounds;
// the flips that touch structure must be caught. (Flips inside a well-formed
// filter are the SSTable block checksum's business.)
TEST(BloomCorruptionTest, TrailerBitFlips) {
  for (FilterLayout layout : kLayouts) {
    const Sample s = MakeSample(layout);
    const FilterReader good(s.filter);
    for (size_t byte = 0; byte < kBloomTrailerSize; ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string bad = s.filter;
        bad[bad.size() - kBloomTrailerSize + byte] ^=
            static_cast<char>(1 << bit);
        const FilterReader reader(bad);
        const std::string what = absl::StrCat("byte ", byte, " bit ", bit);
        uint64_t matched = 0;
        for (uint64_t h : s.hashes) matched += reader.MayContainHash(h);
        if (byte < 8 || byte >= 18) {
          EXPECT_FALSE(reader.valid()) << what;  // num_bits, magic
        } else if (byte < 16) {
          // num_keys is descriptive only: same answers.
          EXPECT_TRUE(reader.valid()) << what;
          EXPECT_EQ(matched, s.hashes.size()) << what;
        } else if (byte == 16 && reader.valid() &&
                   reader.num_probes() < good.num_probes()) {
          EXPECT_EQ(matched, s.hashes.size()) << what;  // fewer probes
        }
      }
    }
  }
}

TEST(BloomCorruptionTest, GarbageIsDistrusted) {
  const uint64_t seed = test::TestSeed(307);
  std::printf("  seed=%llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (size_t len = 0; len <= 600; ++len) {
    ExpectDistrusted(std::string(len, '\0'), absl::StrCat("zeros ", len));
    ExpectDistrusted(std::string(len, '\xff'), absl::StrCat("ones ", len));
    for (int round = 0; round < 20; ++round) {
      std::string junk(len, '\0');
      for (char& c : junk) c = static_cast<char>(rng());
      ExpectDistrusted(junk, absl::StrCat("random ", len));
    }
  }
}

// ---- The format
// ---------------------------------------------------------------

using test::Hex;

// The worked examples of table/FORMAT.md, "Filter bytes". If this test fails,
// the on-disk format changed: old files would answer wrongly. Do not "fix" the
// expected bytes; fix the code.
TEST(BloomFormatTest, WorkedExamples) {
  auto policy_filter = [](FilterLayout layout,
                          std::vector<std::string_view> keys) {
    auto policy = FilterPolicy::Create(0.01, layout);
    EXPECT_TRUE(policy.ok());
    std::string filter;
    (*policy)->CreateFilter(keys, &filter);
    return filter;
  };
  EXPECT_EQ(Hex(policy_filter(FilterLayout::kStandard, {})),
            "00 00 00 00 00 00 00 00 "
            "40 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 07 00 7e f1");
  const std::string blocked_empty = policy_filter(FilterLayout::kBlocked, {});
  EXPECT_EQ(blocked_empty.size(), 64 + kBloomTrailerSize);
  EXPECT_EQ(Hex(std::string_view(blocked_empty).substr(64)),
            "00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 06 01 7e f1");
  EXPECT_EQ(Hex(policy_filter(FilterLayout::kStandard, {"siftdb", "bloom"})),
            "40 04 02 40 10 54 a8 00 "
            "40 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 07 00 7e f1");
  const std::string blocked =
      policy_filter(FilterLayout::kBlocked, {"siftdb", "bloom"});
  ASSERT_EQ(blocked.size(), 64 + kBloomTrailerSize);
  EXPECT_EQ(Hex(std::string_view(blocked).substr(0, 32)),
            "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 "
            "00 00 00 00 00 00 00 00 00 88 00 00 00 00 00 00");
  EXPECT_EQ(Hex(std::string_view(blocked).substr(32)),
            "00 01 00 00 00 10 00 00 00 00 00 00 00 03 00 00 "
            "05 00 00 00 00 00 08 02 00 00 00 00 00 00 01 00 "
            "00 02 00 00 00 00 00 00 02 00 00 00 00 00 00 00 06 01 7e f1");
  // The hashes the examples start from.
  EXPECT_EQ(KeyHash("siftdb"), 0xb982bc7be93ae287ULL);
  EXPECT_EQ(KeyHash("bloom"), 0x7a5daa5b0153bb29ULL);
}

// The worked examples of table/FORMAT.md, "Ribbon filter bytes". As above:
// a failure means the format changed.
TEST(BloomFormatTest, RibbonWorkedExamples) {
  auto ribbon_filter = [](std::vector<uint64_t> hashes) {
    std::sort(hashes.begin(), hashes.end());
    std::string filter;
    EXPECT_TRUE(BuildRibbonFilter(hashes, 0.01, &filter));
    return filter;
  };
  EXPECT_EQ(Hex(ribbon_filter({})),
            "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
            "00 00 00 00 00 00 00 00 06 00 00 02 7e f1");
  const uint64_t siftdb = KeyHash("siftdb");
  const uint64_t bloom = KeyHash("bloom");
  const std::string two = ribbon_filter({siftdb, bloom});
  ASSERT_EQ(two.size(), 7 * 16 + kRibbonTrailerSize);
  EXPECT_EQ(Hex(std::string_view(two).substr(7 * 16)),
            "02 00 00 00 00 00 00 00 29 bb 53 01 5b aa 5d 7a "
            "00 00 00 00 01 00 00 00 06 00 00 02 7e f1");
  // Seven words (bits 0..6), each with slot 0 in bit 0 and slot 3 in bit 3.
  std::string body;
  for (const char* first : {"01", "01", "00", "08", "08", "08", "08"}) {
    absl::StrAppend(&body, body.empty() ? "" : " ", first,
                    " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00");
  }
  EXPECT_EQ(Hex(std::string_view(two).substr(0, 7 * 16)), body);
  // The values the text derives the body from.
  const ribbon_internal::Row a = ribbon_internal::RowFor(bloom, 0, 128);
  const ribbon_internal::Row b = ribbon_internal::RowFor(siftdb, 0, 128);
  EXPECT_EQ(a.start, 0u);
  EXPECT_EQ(b.start, 0u);
  EXPECT_EQ(static_cast<uint64_t>(a.coeff), 0x7c25d49f0b1b13adULL);
  EXPECT_EQ(static_cast<uint64_t>(a.coeff >> 64), 0x9a21f40adb5795c7ULL);
  EXPECT_EQ(static_cast<uint64_t>(b.coeff), 0x9de64df34fae3375ULL);
  EXPECT_EQ(static_cast<uint64_t>(b.coeff >> 64), 0x71740d64761cc3ccULL);
  EXPECT_EQ(Remix(bloom) & 127, 0x7bu);
  EXPECT_EQ(Remix(siftdb) & 127, 0x03u);
  const FilterReader reader(two);
  ASSERT_EQ(reader.layout(), FilterLayout::kRibbon);
  EXPECT_TRUE(reader.MayContainHash(siftdb));
  EXPECT_TRUE(reader.MayContainHash(bloom));
}

}  // namespace
}  // namespace sift
