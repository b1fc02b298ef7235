// User comparators (Options::comparator): the name check at Open, the
// order of iteration across memtable and files, the key-shortening hooks
// in the index, and SstFileWriter/SstFileReader under a comparator. The
// model test runs the whole DB under these comparators too.

#include "sift/comparator.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

class ComparatorTest : public ::testing::Test {
 protected:
  ComparatorTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.comparator = test::ReverseBytewiseComparator();
  }

  std::unique_ptr<DB> Open(const Options& o) {
    auto db = DB::Open(o, "/db");
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }

  std::unique_ptr<Env> env_;
  Options options_;
};

TEST_F(ComparatorTest, OpenWithAnotherComparatorNamesBoth) {
  {
    std::unique_ptr<DB> db = Open(options_);
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Put(WriteOptions(), "k", "v").ok());
  }
  for (const Comparator* other :
       {BytewiseComparator(), test::NumericSuffixComparator()}) {
    Options o = options_;
    o.comparator = other;
    auto db = DB::Open(o, "/db");
    ASSERT_TRUE(absl::IsInvalidArgument(db.status())) << db.status();
    EXPECT_NE(db.status().message().find("'sift.test.Reverse'"),
              std::string::npos)
        << db.status();
    EXPECT_NE(db.status().message().find(std::string("'") + other->Name()),
              std::string::npos)
        << db.status();
    auto ro = DB::OpenForReadOnly(o, "/db");
    EXPECT_TRUE(absl::IsInvalidArgument(ro.status())) << ro.status();
  }
  // The right comparator still opens it, and a default DB refuses a user
  // comparator the same way.
  std::unique_ptr<DB> db = Open(options_);
  ASSERT_NE(db, nullptr);
  std::string v;
  EXPECT_TRUE(db->Get(ReadOptions(), "k", &v).ok());
  db.reset();
  Options bytewise;
  bytewise.env = env_.get();
  bytewise.create_if_missing = true;
  ASSERT_TRUE(DB::Open(bytewise, "/plain").ok());
  auto wrong = DB::Open(options_, "/plain");
  ASSERT_TRUE(absl::IsInvalidArgument(wrong.status())) << wrong.status();
  EXPECT_NE(wrong.status().message().find("sift.BytewiseComparator"),
            std::string::npos);
}

TEST_F(ComparatorTest, NullComparatorIsInvalid) {
  options_.comparator = nullptr;
  EXPECT_TRUE(absl::IsInvalidArgument(DB::Open(options_, "/db").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(RepairDB("/db", options_)));
}

// Keys spread over the memtable, level 0 and a deeper level, with
// overwrites and deletions: one order everywhere, both directions, and
// across a reopen and a repair.
TEST_F(ComparatorTest, IteratesInComparatorOrderAcrossMemtableAndFiles) {
  options_.write_buffer_size = 16 << 10;
  options_.block_size = 256;
  std::vector<std::string> expected;
  {
    std::unique_ptr<DB> db = Open(options_);
    ASSERT_NE(db, nullptr);
    Random rnd(test::TestSeed(301));
    for (int i = 0; i < 3000; ++i) {
      const std::string k = absl::StrFormat("k%04u", rnd.Uniform(1500));
      ASSERT_TRUE(db->Put(WriteOptions(), k, "v" + k).ok());
      if (i == 2000) {
        ASSERT_TRUE(db->CompactRange(std::nullopt, std::nullopt).ok());
      }
    }
    ASSERT_TRUE(db->Flush().ok());
    for (int i = 0; i < 1500; i += 7) {
      ASSERT_TRUE(db->Delete(WriteOptions(), absl::StrFormat("k%04d", i)).ok());
    }
    ASSERT_TRUE(db->Put(WriteOptions(), "k9999", "last").ok());
    expected = test::DbKeys(db.get());
    ASSERT_GT(expected.size(), 500u);
    // Descending bytes: the reverse order.
    EXPECT_TRUE(std::is_sorted(expected.rbegin(), expected.rend()));
    EXPECT_EQ(expected.front(), "k9999");
    std::vector<std::string> backward = test::DbKeys(db.get(), false);
    std::reverse(backward.begin(), backward.end());
    EXPECT_EQ(backward, expected);
    // Seek finds the first key at or after the target in this order.
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    it->Seek("k0700x");
    ASSERT_TRUE(it->Valid());
    EXPECT_LE(it->key(), "k0700x");
    it->Prev();
    ASSERT_TRUE(it->Valid());
    EXPECT_GT(it->key(), "k0700x");
  }
  std::unique_ptr<DB> db = Open(options_);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(test::DbKeys(db.get()), expected);
  ASSERT_TRUE(db->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(test::DbKeys(db.get()), expected);
  db.reset();
  ASSERT_TRUE(RepairDB("/db", options_).ok());
  db = Open(options_);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(test::DbKeys(db.get()), expected);
}

// The same keys under the same order, written once with hooks that
// shorten and once with hooks that do not: the index shrinks, and both
// files read back whole.
TEST_F(ComparatorTest, ShorteningHooksShrinkTheIndex) {
  options_.block_size = 128;
  // Long random keys: neighbours differ within their first bytes.
  Random rnd(test::TestSeed(302));
  std::set<std::string> distinct;
  while (distinct.size() < 2000) {
    std::string k(64, 'a');
    for (char& c : k) c = static_cast<char>('a' + rnd.Uniform(26));
    distinct.insert(k);
  }
  const std::vector<std::string> keys(distinct.rbegin(), distinct.rend());
  uint64_t index_size[2];
  const Comparator* cmps[2] = {test::ReverseBytewiseComparator(),
                               test::ReverseComparatorWithoutShortening()};
  for (int c = 0; c < 2; ++c) {
    Options o = options_;
    o.comparator = cmps[c];
    const std::string path = absl::StrFormat("/t%d.sst", c);
    SstFileWriter w(o);
    ASSERT_TRUE(w.Open(path).ok());
    for (const std::string& k : keys) ASSERT_TRUE(w.Put(k, "v").ok());
    ASSERT_TRUE(w.Finish().ok());
    index_size[c] = w.GetProperties().index_size;

    SstFileReader r(o);
    ASSERT_TRUE(r.Open(path).ok());
    ASSERT_TRUE(r.VerifyChecksum().ok());
    std::unique_ptr<Iterator> it = r.NewIterator(ReadOptions());
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      ASSERT_EQ(it->key(), keys[n]);
    }
    ASSERT_TRUE(it->status().ok());
    EXPECT_EQ(n, keys.size());
    for (size_t i = 0; i < keys.size(); i += 97) {
      std::string v;
      EXPECT_TRUE(r.Get(ReadOptions(), keys[i], &v).ok()) << keys[i];
      it->Seek(keys[i]);
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(it->key(), keys[i]);
    }
  }
  // A separator is a few bytes, not a whole 64-byte key.
  EXPECT_LT(index_size[0] * 3, index_size[1])
      << index_size[0] << " vs " << index_size[1];
}

TEST_F(ComparatorTest, SstFileWriterFollowsTheComparator) {
  SstFileWriter w(options_);
  ASSERT_TRUE(w.Open("/w.sst").ok());
  ASSERT_TRUE(w.Put("b", "1").ok());
  ASSERT_TRUE(w.Put("a", "2").ok());  // after "b" in reverse order
  EXPECT_TRUE(absl::IsInvalidArgument(w.Put("c", "3")));
  ASSERT_TRUE(w.Finish().ok());
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/w.sst").ok());
  std::string v;
  ASSERT_TRUE(r.Get(ReadOptions(), "a", &v).ok());
  EXPECT_EQ(v, "2");
  EXPECT_TRUE(absl::IsNotFound(r.Get(ReadOptions(), "c", &v)));
}

TEST_F(ComparatorTest, TableNamesItsComparator) {
  SstFileWriter w(options_);
  ASSERT_TRUE(w.Open("/w.sst").ok());
  ASSERT_TRUE(w.Put("b", "1").ok());
  ASSERT_TRUE(w.Finish().ok());
  SstFileReader r(options_);
  ASSERT_TRUE(r.Open("/w.sst").ok());
  EXPECT_EQ(r.GetProperties().comparator_name, "sift.test.Reverse");
  EXPECT_NE(
      r.GetProperties().ToString().find("comparator name: sift.test.Reverse\n"),
      std::string::npos);
}

TEST_F(ComparatorTest, IngestOfAFileInAnotherOrderNamesBoth) {
  // One key: its order alone cannot tell; the file's property does.
  SstFileWriter w(options_);
  ASSERT_TRUE(w.Open("/w.sst").ok());
  ASSERT_TRUE(w.Put("k", "v").ok());
  ASSERT_TRUE(w.Finish().ok());
  Options bytewise = options_;
  bytewise.comparator = BytewiseComparator();
  std::unique_ptr<DB> db = Open(bytewise);
  ASSERT_NE(db, nullptr);
  const absl::Status s = db->IngestExternalFiles({"/w.sst"}, IngestOptions());
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("'sift.test.Reverse'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("'sift.BytewiseComparator'"), std::string::npos)
      << s;
  std::string v;
  EXPECT_TRUE(absl::IsNotFound(db->Get(ReadOptions(), "k", &v)));
}

}  // namespace
}  // namespace sift
