// SstFileWriter / SstFileReader through the public API: properties, reads,
// filter behaviour, bad input and damage.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "table/format.h"
#include "table/table.h"
#include "tests/testutil/counting_env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

std::string Key(int i) { return absl::StrFormat("key%08d", i); }
std::string Value(int i) {
  return absl::StrFormat("value-%d-%s", i, "payload");
}

class SstFileTest : public ::testing::Test {
 protected:
  SstFileTest() : env_(NewMemEnv()) { options_.env = env_.get(); }

  // Writes keys 0, 2, 4, ... 2(n-1) (odd numbers are absent).
  void Write(const std::string& path, int n) {
    SstFileWriter w(options_);
    ASSERT_TRUE(w.Open(path).ok());
    for (int i = 0; i < n; ++i) ASSERT_TRUE(w.Put(Key(2 * i), Value(i)).ok());
    ASSERT_TRUE(w.Finish().ok());
    EXPECT_EQ(w.FileSize(), *env_->GetFileSize(path));
  }

  std::unique_ptr<Env> env_;
  Options options_;
};

TEST_F(SstFileTest, PropertiesReadsAndFilterRate) {
  const int n = 100000;
  Write("/a.sst", n);
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/a.sst").ok());
  const TableProperties& p = r.GetProperties();
  EXPECT_EQ(p.num_entries, static_cast<uint64_t>(n));
  EXPECT_EQ(p.num_deletions, 0u);
  EXPECT_DOUBLE_EQ(p.bloom_filter_fp_chance, 0.01);
  EXPECT_EQ(p.filter_num_keys, static_cast<uint64_t>(n));
  EXPECT_GT(p.filter_bits_per_key, 9.4);
  EXPECT_LT(p.filter_bits_per_key, 11.5);
  EXPECT_GT(p.filter_num_probes, 0u);
  EXPECT_GT(p.filter_size, 0u);
  EXPECT_EQ(p.smallest_key, Key(0));
  EXPECT_EQ(p.largest_key, Key(2 * (n - 1)));
  EXPECT_EQ(p.format_version, 1u);
  EXPECT_GT(p.num_data_blocks, 1u);
  EXPECT_TRUE(r.VerifyChecksum().ok());

  std::string v;
  for (int i = 0; i < n; i += 97) {
    ASSERT_TRUE(r.Get(ReadOptions(), Key(2 * i), &v).ok()) << i;
    EXPECT_EQ(v, Value(i));
  }
  int false_positives = 0;
  for (int i = 0; i < n; ++i) {
    const std::string absent = Key(2 * i + 1);
    EXPECT_TRUE(absl::IsNotFound(r.Get(ReadOptions(), absent, &v)));
    if (r.KeyMayMatch(absent)) ++false_positives;
  }
  const double rate = static_cast<double>(false_positives) / n;
  EXPECT_GT(rate, 0.005);
  EXPECT_LT(rate, 0.0115);
}

TEST_F(SstFileTest, IteratorIsExactInBothDirections) {
  const int n = 5000;
  Write("/a.sst", n);
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/a.sst").ok());
  auto it = r.NewIterator(ReadOptions());
  int i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_EQ(it->key(), Key(2 * i));
    ASSERT_EQ(it->value(), Value(i));
  }
  EXPECT_EQ(i, n);
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    --i;
    ASSERT_EQ(it->key(), Key(2 * i));
  }
  EXPECT_EQ(i, 0);
  it->Seek(Key(201));  // absent: lands on the next key
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(202));
  it->Seek(Key(2 * n));
  EXPECT_FALSE(it->Valid());
  it->Seek("");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(0));
  EXPECT_TRUE(it->status().ok());
}

TEST_F(SstFileTest, TombstonesAreHidden) {
  SstFileWriter w(options_);
  ASSERT_TRUE(w.Open("/t.sst").ok());
  ASSERT_TRUE(w.Put("a", "1").ok());
  ASSERT_TRUE(w.Delete("b").ok());
  ASSERT_TRUE(w.Put("c", "3").ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.GetProperties().num_deletions, 1u);
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/t.sst").ok());
  std::string v;
  EXPECT_TRUE(absl::IsNotFound(r.Get(ReadOptions(), "b", &v)));
  auto it = r.NewIterator(ReadOptions());
  std::vector<std::string> keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) keys.emplace_back(it->key());
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "c"}));
}

TEST_F(SstFileTest, OutOfOrderPutIsRejectedAndFileStaysGood) {
  SstFileWriter w(options_);
  ASSERT_TRUE(w.Open("/o.sst").ok());
  ASSERT_TRUE(w.Put("b", "1").ok());
  EXPECT_EQ(w.Put("a", "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(w.Put("b", "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(w.Delete("b").code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(w.Put("c", "3").ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.Put("d", "4").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(w.Finish().code(), absl::StatusCode::kFailedPrecondition);

  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/o.sst").ok());
  EXPECT_TRUE(r.VerifyChecksum().ok());
  EXPECT_EQ(r.GetProperties().num_entries, 2u);
  std::string v;
  ASSERT_TRUE(r.Get(ReadOptions(), "b", &v).ok());
  EXPECT_EQ(v, "1");
}

TEST_F(SstFileTest, PutBeforeOpenFails) {
  SstFileWriter w(options_);
  EXPECT_EQ(w.Put("a", "1").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(w.Finish().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(SstFileTest, BadOptionsAreRefusedByOpen) {
  Options o = options_;
  o.bloom_filter_fp_chance = 0;
  SstFileWriter w(o);
  const absl::Status s = w.Open("/x.sst");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("bloom_filter_fp_chance"),
            absl::string_view::npos);
}

TEST_F(SstFileTest, NoFilterWhenFpChanceIsOne) {
  options_.bloom_filter_fp_chance = 1.0;
  Write("/n.sst", 1000);
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/n.sst").ok());
  EXPECT_EQ(r.GetProperties().filter_size, 0u);
  EXPECT_DOUBLE_EQ(r.GetProperties().bloom_filter_fp_chance, 1.0);
  EXPECT_TRUE(r.KeyMayMatch("anything"));
  std::string v;
  ASSERT_TRUE(r.Get(ReadOptions(), Key(10), &v).ok());
  EXPECT_EQ(v, Value(5));
  EXPECT_TRUE(absl::IsNotFound(r.Get(ReadOptions(), Key(11), &v)));
  EXPECT_TRUE(r.VerifyChecksum().ok());
}

TEST_F(SstFileTest, EmptyTableWorks) {
  Write("/e.sst", 0);
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/e.sst").ok());
  EXPECT_EQ(r.GetProperties().num_entries, 0u);
  auto it = r.NewIterator(ReadOptions());
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  std::string v;
  EXPECT_TRUE(absl::IsNotFound(r.Get(ReadOptions(), "a", &v)));
  EXPECT_TRUE(r.VerifyChecksum().ok());
}

TEST_F(SstFileTest, FilterRejectedMissReadsNoDataBlock) {
  CountingEnv counting(env_.get());
  options_.env = &counting;
  Write("/c.sst", 20000);
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/c.sst").ok());
  std::string v;
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string absent = Key(2 * i + 1);
    if (r.KeyMayMatch(absent)) continue;
    ++rejected;
    counting.Reset();
    EXPECT_TRUE(absl::IsNotFound(r.Get(ReadOptions(), absent, &v)));
    ASSERT_EQ(counting.ReadsOf("/c.sst"), 0u) << absent;
  }
  EXPECT_GT(rejected, 19000);
  // A present key does read (at least on a cold cache).
  counting.Reset();
  ASSERT_TRUE(r.Get(ReadOptions(), Key(0), &v).ok());
  EXPECT_EQ(counting.ReadsOf("/c.sst"), 1u);
}

TEST_F(SstFileTest, MissingEmptyTruncatedAndJunkFilesAreRefused) {
  SstFileReader missing(options_);
  const absl::Status s = missing.Open("/nope.sst");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("/nope.sst"), absl::string_view::npos) << s;

  ASSERT_TRUE(WriteStringToFile(env_.get(), "", "/empty.sst", false).ok());
  SstFileReader empty(options_);
  EXPECT_EQ(empty.Open("/empty.sst").code(), absl::StatusCode::kDataLoss);

  ASSERT_TRUE(
      WriteStringToFile(env_.get(), std::string(10000, 'j'), "/junk.sst", false)
          .ok());
  SstFileReader junk(options_);
  const absl::Status js = junk.Open("/junk.sst");
  EXPECT_EQ(js.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(js.message().find("/junk.sst"), absl::string_view::npos) << js;

  Write("/good.sst", 300);
  std::string good;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/good.sst", &good).ok());
  for (size_t len : {size_t{1}, size_t{47}, good.size() / 2, good.size() - 1}) {
    ASSERT_TRUE(
        WriteStringToFile(env_.get(), good.substr(0, len), "/cut.sst", false)
            .ok());
    SstFileReader cut(options_);
    EXPECT_EQ(cut.Open("/cut.sst").code(), absl::StatusCode::kDataLoss) << len;
  }
}

TEST_F(SstFileTest, UnknownFormatVersionIsRefused) {
  Write("/v.sst", 10);
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/v.sst", &data).ok());
  // Rewrite the footer with version 2 and a valid checksum.
  Footer footer;
  ASSERT_TRUE(
      footer
          .DecodeFrom(std::string_view(data).substr(data.size() - kFooterSize),
                      "/v.sst")
          .ok());
  footer.format_version = 2;
  std::string bytes;
  footer.EncodeTo(&bytes);
  data.replace(data.size() - kFooterSize, kFooterSize, bytes);
  ASSERT_TRUE(WriteStringToFile(env_.get(), data, "/v.sst", false).ok());
  SstFileReader r(options_);
  const absl::Status s = r.Open("/v.sst");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("version 2"), absl::string_view::npos) << s;
}

// Every single-byte change anywhere in the file is caught by Open or
// VerifyChecksum; reads through a damaged filter never miss a key.
TEST_F(SstFileTest, EveryFlippedByteIsDetected) {
  options_.block_size = 256;
  options_.compression = Compression::kSnappy;
  Write("/f.sst", 200);
  std::string good;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/f.sst", &good).ok());
  Random rnd(test::TestSeed(99));
  for (size_t pos = 0; pos < good.size(); ++pos) {
    std::string bad = good;
    bad[pos] ^= static_cast<char>(1 + rnd.Uniform(255));
    ASSERT_TRUE(WriteStringToFile(env_.get(), bad, "/bad.sst", false).ok());
    SstFileReader r(options_);
    absl::Status s = r.Open("/bad.sst");
    if (s.ok()) s = r.VerifyChecksum();
    ASSERT_FALSE(s.ok()) << "flip at offset " << pos << " went unnoticed";
    EXPECT_TRUE(s.code() == absl::StatusCode::kDataLoss ||
                s.code() == absl::StatusCode::kUnimplemented)
        << s;
    EXPECT_NE(s.message().find("/bad.sst"), absl::string_view::npos) << s;
  }
}

TEST_F(SstFileTest, DamagedFilterNeverCausesAFalseNegative) {
  Write("/d.sst", 3000);
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/d.sst", &data).ok());
  // Find the filter block and zero it (its checksum now fails).
  auto raf = env_->NewRandomAccessFile("/d.sst");
  auto table = Table::Open("/d.sst", std::move(*raf), data.size(), nullptr,
                           BytewiseComparator());
  ASSERT_TRUE(table.ok());
  BlockHandle filter;
  for (const auto& b : (*table)->Blocks()) {
    if (b.kind == "filter") filter = b.handle;
  }
  ASSERT_GT(filter.size, 0u);
  for (uint64_t i = 0; i < filter.size; ++i) data[filter.offset + i] = 0;
  ASSERT_TRUE(WriteStringToFile(env_.get(), data, "/d.sst", false).ok());

  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/d.sst").ok());
  EXPECT_EQ(r.VerifyChecksum().code(), absl::StatusCode::kDataLoss);
  std::string v;
  for (int i = 0; i < 3000; ++i) {
    EXPECT_TRUE(r.KeyMayMatch(Key(2 * i)));
    ASSERT_TRUE(r.Get(ReadOptions(), Key(2 * i), &v).ok()) << i;
  }
}

// Regression: footer errors named offsets inside the footer (36, 40) as if
// they were file offsets.
TEST_F(SstFileTest, FooterErrorsNameFileOffsets) {
  Write("/f.sst", 100);
  std::string good;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/f.sst", &good).ok());
  const uint64_t footer = good.size() - kFooterSize;
  struct {
    uint64_t flip;      // byte to damage
    uint64_t reported;  // offset the error should name
    const char* what;
  } cases[] = {{footer + 40, footer + 40, "magic"},
               {footer + 36, footer + 36, "checksum"},
               {footer + 2, footer + 36, "checksum"}};
  for (const auto& c : cases) {
    std::string data = good;
    data[c.flip] ^= 0x01;
    ASSERT_TRUE(WriteStringToFile(env_.get(), data, "/f.sst", false).ok());
    SstFileReader r(options_);
    const absl::Status s = r.Open("/f.sst");
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << c.flip;
    EXPECT_NE(s.message().find(c.what), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find(absl::StrFormat("at offset %d", c.reported)),
              absl::string_view::npos)
        << s;
  }
}

}  // namespace
}  // namespace sift
