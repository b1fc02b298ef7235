#include "util/coding.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace sift {
namespace {

TEST(CodingTest, Fixed32IsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s, std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(DecodeFixed32(s.data()), 0x04030201u);
}

TEST(CodingTest, Fixed64RoundTripsEveryPowerOfTwo) {
  std::string s;
  for (int power = 0; power <= 63; ++power) {
    uint64_t v = uint64_t{1} << power;
    PutFixed64(&s, v - 1);
    PutFixed64(&s, v);
    PutFixed64(&s, v + 1);
  }
  std::string_view in(s);
  for (int power = 0; power <= 63; ++power) {
    uint64_t v = uint64_t{1} << power;
    for (uint64_t want : {v - 1, v, v + 1}) {
      uint64_t got;
      ASSERT_TRUE(GetFixed64(&in, &got));
      EXPECT_EQ(got, want);
    }
  }
  EXPECT_TRUE(in.empty());
  uint64_t unused;
  EXPECT_FALSE(GetFixed64(&in, &unused));
}

TEST(CodingTest, Varint32RoundTrips) {
  std::string s;
  std::vector<uint32_t> values;
  for (uint32_t i = 0; i < 32 * 32; ++i) {
    values.push_back((i / 32) << (i % 32));
  }
  values.push_back(std::numeric_limits<uint32_t>::max());
  for (uint32_t v : values) PutVarint32(&s, v);
  std::string_view in(s);
  for (uint32_t want : values) {
    uint32_t got;
    const char* before = in.data();
    ASSERT_TRUE(GetVarint32(&in, &got));
    EXPECT_EQ(got, want);
    EXPECT_EQ(in.data() - before, VarintLength(want));
  }
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, Varint64RoundTripsEdgeValues) {
  std::vector<uint64_t> values = {0, 100, ~uint64_t{0}, ~uint64_t{0} - 1};
  for (int k = 0; k < 64; ++k) {
    const uint64_t power = uint64_t{1} << k;
    values.push_back(power);
    values.push_back(power - 1);
    values.push_back(power + 1);
  }
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  std::string_view in(s);
  for (uint64_t want : values) {
    uint64_t got;
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, want);
  }
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, Varint32RejectsOverflow) {
  std::string s("\x81\x82\x83\x84\x85\x11");
  uint32_t v;
  EXPECT_EQ(GetVarint32Ptr(s.data(), s.data() + s.size(), &v), nullptr);
  // Five bytes whose last carries more than the 4 remaining bits.
  std::string t("\xff\xff\xff\xff\x1f");
  EXPECT_EQ(GetVarint32Ptr(t.data(), t.data() + t.size(), &v), nullptr);
}

TEST(CodingTest, Varint64RejectsOverflow) {
  std::string s("\x81\x82\x83\x84\x85\x81\x82\x83\x84\x85\x11");
  uint64_t v;
  EXPECT_EQ(GetVarint64Ptr(s.data(), s.data() + s.size(), &v), nullptr);
}

TEST(CodingTest, TruncatedVarintsFailWithoutReadingPastTheEnd) {
  uint64_t big = (uint64_t{1} << 63) + 100;
  std::string s;
  PutVarint64(&s, big);
  for (size_t len = 0; len + 1 < s.size(); ++len) {
    uint64_t v;
    std::string_view in(s.data(), len);
    EXPECT_FALSE(GetVarint64(&in, &v)) << "len " << len;
  }
  std::string_view whole(s);
  uint64_t v;
  ASSERT_TRUE(GetVarint64(&whole, &v));
  EXPECT_EQ(v, big);
}

TEST(CodingTest, LengthPrefixedStrings) {
  std::string s;
  PutLengthPrefixed(&s, "");
  PutLengthPrefixed(&s, "foo");
  PutLengthPrefixed(&s, std::string("a\0b", 3));
  PutLengthPrefixed(&s, std::string(200, 'x'));
  std::string_view in(s), v;
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, "");
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, "foo");
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, std::string_view("a\0b", 3));
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, std::string(200, 'x'));
  EXPECT_TRUE(in.empty());
  // A length that runs past the end is refused.
  std::string bad;
  PutVarint32(&bad, 10);
  bad += "abc";
  std::string_view bin(bad);
  EXPECT_FALSE(GetLengthPrefixed(&bin, &v));
}

}  // namespace
}  // namespace sift
