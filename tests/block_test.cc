#include "table/block.h"

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

BlockContents Copy(std::string_view data) {
  BlockContents c;
  c.owned.reset(new char[data.size() + 1]);
  std::memcpy(c.owned.get(), data.data(), data.size());
  c.owned_size = data.size();
  c.data = std::string_view(c.owned.get(), data.size());
  return c;
}

std::string RandomKey(Random* rnd) {
  // Short keys from a small alphabet, so prefixes are shared often.
  std::string k;
  const size_t len = 1 + rnd->Uniform(12);
  for (size_t i = 0; i < len; ++i) k.push_back("abcd\xff"[rnd->Uniform(5)]);
  return k;
}

class BlockModelTest : public ::testing::TestWithParam<int> {};

TEST_P(BlockModelTest, MatchesStdMapInBothDirectionsAndOnSeek) {
  const uint64_t seed = test::TestSeed(301);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 500; ++i) {
    model[RandomKey(&rnd)] = std::string(rnd.Uniform(40), 'v');
  }
  BlockBuilder builder(GetParam());
  for (const auto& [k, v] : model) builder.Add(k, v);
  Block block(Copy(builder.Finish()));
  ASSERT_TRUE(block.status().ok()) << block.status();
  std::unique_ptr<Iterator> it = block.NewIterator(KeyComparator::Bytes());

  test::ExpectIteratesAs(it.get(), model);

  for (int i = 0; i < 1000; ++i) {
    const std::string target = RandomKey(&rnd);
    it->Seek(target);
    auto want = model.lower_bound(target);
    if (want == model.end()) {
      EXPECT_FALSE(it->Valid()) << target;
    } else {
      ASSERT_TRUE(it->Valid()) << target;
      EXPECT_EQ(it->key(), want->first);
      // Step both ways from a seek position.
      if (rnd.OneIn(2)) {
        it->Prev();
        if (want == model.begin()) {
          EXPECT_FALSE(it->Valid());
        } else {
          ASSERT_TRUE(it->Valid());
          EXPECT_EQ(it->key(), std::prev(want)->first);
        }
      } else {
        it->Next();
        auto next = std::next(want);
        EXPECT_EQ(it->Valid(), next != model.end());
        if (it->Valid()) {
          EXPECT_EQ(it->key(), next->first);
        }
      }
    }
  }
  EXPECT_TRUE(it->status().ok());
}

INSTANTIATE_TEST_SUITE_P(RestartIntervals, BlockModelTest,
                         ::testing::Values(1, 2, 16, 1000));

TEST(BlockTest, EmptyBlockIteratesAsEmpty) {
  BlockBuilder builder(16);
  Block block(Copy(builder.Finish()));
  ASSERT_TRUE(block.status().ok());
  auto it = block.NewIterator(KeyComparator::Bytes());
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek("a");
  EXPECT_FALSE(it->Valid());
}

TEST(BlockTest, PrefixCompressionSharesPrefixes) {
  BlockBuilder builder(16);
  builder.Add("tweedledee", "1");
  builder.Add("tweedledum", "2");
  // 3 header bytes + 10 + 1, then 3 + 2 ("um") + 1, restarts 4 + count 4.
  EXPECT_EQ(builder.Finish().size(), (3 + 10 + 1) + (3 + 2 + 1) + 4 + 4);
}

using test::Hex;

// The worked example of table/FORMAT.md ("Data, index, metaindex and
// properties blocks"), block and trailer. If this fails, the on-disk format
// changed: fix the code, not the expected bytes.
TEST(BlockFormatTest, WorkedExample) {
  std::string apple, apply;
  AppendInternalKey(&apple, "apple", 1, kTypeValue);
  AppendInternalKey(&apply, "apply", 2, kTypeValue);
  BlockBuilder builder(16);
  builder.Add(apple, "red");
  builder.Add(apply, "yes");
  const std::string block(builder.Finish());
  EXPECT_EQ(Hex(block),
            "00 0d 03 61 70 70 6c 65 01 01 00 00 00 00 00 00 72 65 64 "
            "04 09 03 79 01 02 00 00 00 00 00 00 79 65 73 "
            "00 00 00 00 01 00 00 00");
  std::string trailer;
  AppendBlockTrailer(block, kRawBlock, &trailer);
  EXPECT_EQ(Hex(trailer), "00 12 12 95 5d");

  // The reader accepts exactly those bytes and decodes both entries.
  std::unique_ptr<Env> env = NewMemEnv();
  ASSERT_TRUE(WriteStringToFile(env.get(), block + trailer, "/t", false).ok());
  auto file = env->NewRandomAccessFile("/t");
  ASSERT_TRUE(file.ok());
  BlockContents contents;
  ASSERT_TRUE(
      ReadBlock(**file, "/t", BlockHandle{0, block.size()}, &contents).ok());
  EXPECT_EQ(contents.data, block);
}

TEST(BlockTest, MalformedBlocksNeverReadOutOfBounds) {
  BlockBuilder builder(4);
  for (int i = 0; i < 40; ++i) {
    builder.Add("key" + std::to_string(1000 + i), std::string(i, 'x'));
  }
  const std::string good(builder.Finish());
  Random rnd(test::TestSeed(7));
  // Every truncation and many random byte flips: each must either iterate
  // or report DataLoss, never crash (ASan checks the bounds).
  for (size_t len = 0; len < good.size(); ++len) {
    Block block(Copy(std::string_view(good).substr(0, len)));
    auto it = block.NewIterator(KeyComparator::Bytes());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
    it->Seek("key1020");
  }
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bad = good;
    bad[rnd.Uniform(bad.size())] ^= static_cast<char>(1 + rnd.Uniform(255));
    Block block(Copy(bad));
    auto it = block.NewIterator(KeyComparator::Bytes());
    int n = 0;
    for (it->SeekToFirst(); it->Valid() && n < 1000; it->Next()) ++n;
    for (it->SeekToLast(); it->Valid() && n < 2000; it->Prev()) ++n;
    it->Seek("key1010");
    if (!block.status().ok()) {
      EXPECT_EQ(block.status().code(), absl::StatusCode::kDataLoss);
    }
  }
}

TEST(BlockTest, BadRestartCountIsDataLoss) {
  std::string data(8, '\0');
  EncodeFixed32(&data[4], 1000);
  Block block(Copy(data));
  EXPECT_EQ(block.status().code(), absl::StatusCode::kDataLoss);
  auto it = block.NewIterator(KeyComparator::Bytes());
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
}

// The 8-byte integer shortcut must order exactly as memcmp: bytes >= 0x80,
// shared prefixes, lengths on both sides of 8, and equal keys.
TEST(InternalKeyTest, UserKeyCompareMatchesBytewiseOrder) {
  Random rnd(test::TestSeed(17));
  auto sign = [](int v) { return (v > 0) - (v < 0); };
  for (int i = 0; i < 200000; ++i) {
    std::string a(rnd.Uniform(14), '\0'), b;
    for (char& c : a) c = static_cast<char>(rnd.Uniform(4) * 0x55);
    b = a.substr(0, rnd.Uniform(static_cast<uint32_t>(a.size()) + 1));
    while (b.size() < a.size() + 2 && rnd.OneIn(2)) {
      b.push_back(static_cast<char>(rnd.Uniform(4) * 0x55));
    }
    if (rnd.OneIn(3)) b = a;
    ASSERT_EQ(sign(CompareUserKeys(a, b)), sign(a.compare(b)))
        << "'" << a << "' vs '" << b << "'";
    ASSERT_EQ(sign(CompareUserKeys(b, a)), sign(b.compare(a)));
  }
}

const KeyComparator kIcmp = KeyComparator::Internal(BytewiseComparator());

TEST(InternalKeyTest, OrdersByUserKeyThenNewestFirst) {
  auto ik = [](std::string_view u, SequenceNumber s, ValueType t) {
    std::string k;
    AppendInternalKey(&k, u, s, t);
    return k;
  };
  EXPECT_LT(kIcmp.Compare(ik("a", 1, kTypeValue), ik("b", 9, kTypeValue)), 0);
  EXPECT_LT(kIcmp.Compare(ik("a", 9, kTypeValue), ik("a", 1, kTypeValue)), 0);
  EXPECT_LT(kIcmp.Compare(ik("a", 5, kTypeValue), ik("a", 5, kTypeDeletion)),
            0);
  EXPECT_LT(kIcmp.Compare(ik("a", 1, kTypeValue), ik("ab", 9, kTypeValue)), 0);
  EXPECT_EQ(kIcmp.Compare(ik("x", 3, kTypeValue), ik("x", 3, kTypeValue)), 0);
  ParsedInternalKey p;
  const std::string key = ik("key", 77, kTypeDeletion);  // p points into it
  ASSERT_TRUE(ParseInternalKey(key, &p));
  EXPECT_EQ(p.user_key, "key");
  EXPECT_EQ(p.sequence, 77u);
  EXPECT_EQ(p.type, kTypeDeletion);
  EXPECT_FALSE(ParseInternalKey("short", &p));
}

TEST(InternalKeyTest, SeparatorsAreShortAndBetween) {
  auto ik = [](std::string_view u, SequenceNumber s) {
    std::string k;
    AppendInternalKey(&k, u, s, kTypeValue);
    return k;
  };
  std::string start = ik("the quick brown", 10);
  const std::string limit = ik("the wolf", 3);
  kIcmp.ShortenSeparator(&start, limit);
  EXPECT_EQ(ExtractUserKey(start), "the r");
  EXPECT_LE(kIcmp.Compare(ik("the quick brown", 10), start), 0);
  EXPECT_LT(kIcmp.Compare(start, limit), 0);

  // Same user key, or one a prefix of the other: unchanged.
  std::string same = ik("abc", 10);
  kIcmp.ShortenSeparator(&same, ik("abc", 2));
  EXPECT_EQ(same, ik("abc", 10));
  std::string prefix = ik("abc", 10);
  kIcmp.ShortenSeparator(&prefix, ik("abcd", 2));
  EXPECT_EQ(prefix, ik("abc", 10));

  std::string succ = ik("hello", 4);
  kIcmp.ShortenSuccessor(&succ);
  EXPECT_EQ(ExtractUserKey(succ), "i");
  std::string ff = ik("\xff\xff", 4);
  kIcmp.ShortenSuccessor(&ff);
  EXPECT_EQ(ff, ik("\xff\xff", 4));
}

}  // namespace
}  // namespace sift
