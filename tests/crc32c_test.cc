#include "util/crc32c.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift::crc32c {
namespace {

using ExtendFn = uint32_t (*)(uint32_t, const char*, size_t);

struct Impl {
  const char* name;
  ExtendFn extend;
  bool available;
};

// Every test runs against the dispatching entry point and each concrete
// implementation, so the path Extend() does not pick is still tested.
std::vector<Impl> Impls() {
  return {{"Extend", Extend, true},
          {"Portable", internal::ExtendPortable, true},
          {"Hardware", internal::ExtendHardware, internal::HaveHardwareCrc()}};
}

class Crc32cTest : public ::testing::TestWithParam<Impl> {
 protected:
  void SetUp() override {
    if (!GetParam().available) GTEST_SKIP() << "no SSE4.2 on this CPU";
  }
  uint32_t Crc(const char* data, size_t n) const {
    return GetParam().extend(0, data, n);
  }
  uint32_t Crc(const std::string& s) const { return Crc(s.data(), s.size()); }
};

// RFC 3720 (iSCSI), appendix B.4.
TEST_P(Crc32cTest, Rfc3720Vectors) {
  char buf[32];
  std::memset(buf, 0, sizeof(buf));
  EXPECT_EQ(Crc(buf, sizeof(buf)), 0x8a9136aau);

  std::memset(buf, 0xff, sizeof(buf));
  EXPECT_EQ(Crc(buf, sizeof(buf)), 0x62a8ab43u);

  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(Crc(buf, sizeof(buf)), 0x46dd794eu);

  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Crc(buf, sizeof(buf)), 0x113fdb5cu);

  const unsigned char kReadCommand[48] = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
      0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Crc(reinterpret_cast<const char*>(kReadCommand), 48), 0xd9963a56u);
}

TEST_P(Crc32cTest, CheckValue) {
  // The "check" value of the CRC-32C parameter set (Williams' catalogue).
  EXPECT_EQ(Crc("123456789"), 0xe3069283u);
  EXPECT_EQ(Crc(""), 0u);
  EXPECT_EQ(Crc("a"), 0xc1d04330u);
}

TEST_P(Crc32cTest, DifferentInputsDiffer) {
  EXPECT_NE(Crc("a"), Crc("foo"));
  EXPECT_NE(Crc("foo"), Crc("fop"));
  EXPECT_NE(Crc(std::string(100, 'x')), Crc(std::string(101, 'x')));
}

TEST_P(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  ExtendFn extend = GetParam().extend;
  EXPECT_EQ(Crc("hello world"), extend(Crc("hello "), "world", 5));
  // Every split point of a buffer long enough to exercise the wide loops.
  std::string s;
  Random rnd(test::TestSeed(301));
  rnd.RandomString(100, &s);
  uint32_t whole = Crc(s);
  for (size_t split = 0; split <= s.size(); ++split) {
    uint32_t head = Crc(s.data(), split);
    ASSERT_EQ(extend(head, s.data() + split, s.size() - split), whole)
        << "split " << split;
  }
}

TEST_P(Crc32cTest, MatchesBytewiseAtOddLengthsAndUnalignedStarts) {
  uint64_t seed = test::TestSeed(302);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  std::vector<char> buf(1024 + 16);
  for (char& c : buf) c = static_cast<char>(rnd.Next());
  for (size_t start = 0; start < 16; ++start) {
    for (size_t len : {0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 255, 1000, 1024}) {
      // Reference: one byte at a time, which no wide path is involved in.
      uint32_t expect = 0;
      for (size_t i = 0; i < len; ++i) {
        expect = internal::ExtendPortable(expect, &buf[start + i], 1);
      }
      ASSERT_EQ(Crc(&buf[start], len), expect)
          << "start " << start << " len " << len;
    }
  }
}

// Lengths around the three-stream stretches of the hardware path (3 x 128
// and 3 x 1024 bytes), checked against the portable code.
TEST_P(Crc32cTest, LongBuffersMatchThePortablePath) {
  uint64_t seed = test::TestSeed(303);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  std::vector<char> buf(100000 + 16);
  for (char& c : buf) c = static_cast<char>(rnd.Next());
  for (size_t start : {0, 3, 8}) {
    for (size_t len : {383, 384, 385, 767, 768, 3071, 3072, 3073, 4096, 4101,
                       6144, 10000, 100000}) {
      const uint32_t expect = internal::ExtendPortable(0, &buf[start], len);
      ASSERT_EQ(Crc(&buf[start], len), expect)
          << "start " << start << " len " << len;
      // And continuing from a non-zero register.
      ASSERT_EQ(GetParam().extend(0x12345678u, &buf[start], len),
                internal::ExtendPortable(0x12345678u, &buf[start], len));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, Crc32cTest, ::testing::ValuesIn(Impls()),
                         [](const ::testing::TestParamInfo<Impl>& info) {
                           return std::string(info.param.name);
                         });

TEST(Crc32cMaskTest, MaskChangesValueAndRoundTrips) {
  uint32_t crc = Value("foo", 3);
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Unmask(Mask(Mask(crc)))));
  Random rnd(test::TestSeed(303));
  for (int i = 0; i < 10000; ++i) {
    uint32_t c = rnd.Next();
    ASSERT_EQ(Unmask(Mask(c)), c);
  }
  for (uint32_t c : {0u, 1u, 0xffffffffu, 0x80000000u}) {
    EXPECT_EQ(Unmask(Mask(c)), c);
  }
}

TEST(Crc32cMaskTest, MaskIsRotateRight15PlusDelta) {
  // Pinned so the masked CRCs in on-disk formats never change silently.
  EXPECT_EQ(Mask(0), 0xa282ead8u);
  EXPECT_EQ(Mask(1u << 15), 0xa282ead9u);
  EXPECT_EQ(Mask(1), (1u << 17) + 0xa282ead8u);
}

TEST(Crc32cDispatchTest, HardwarePathChosenWhenAvailable) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  EXPECT_EQ(internal::HaveHardwareCrc(), __builtin_cpu_supports("sse4.2") != 0);
#else
  EXPECT_FALSE(internal::HaveHardwareCrc());
#endif
}

}  // namespace
}  // namespace sift::crc32c
