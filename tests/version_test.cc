// Version's file search: FindFileFast (prefix array first) must pick the
// same file as the plain binary search FindFile, for keys that differ early,
// keys sharing their first 8 bytes, keys shorter than 8 bytes, and lookups
// at older sequences of a file's largest key.

#include "db/version.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/version_edit.h"
#include "gtest/gtest.h"
#include "table/internal_key.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

std::string RandomUserKey(Random* rnd, const std::string& shared_prefix) {
  std::string k = shared_prefix;
  const size_t extra = rnd->Uniform(12);
  for (size_t i = 0; i < extra; ++i) {
    k.push_back(static_cast<char>(rnd->Uniform(3) * 0x7f));
  }
  return k;
}

std::string Ikey(std::string_view user_key, SequenceNumber seq) {
  std::string k;
  AppendInternalKey(&k, user_key, seq, kTypeValue);
  return k;
}

void CheckLevel(Random* rnd, const std::string& shared_prefix) {
  // Disjoint files: sorted distinct user keys taken two at a time.
  std::set<std::string> keys;
  while (keys.size() < 2 * (1 + rnd->Uniform(60))) {
    keys.insert(RandomUserKey(rnd, shared_prefix));
  }
  const std::vector<std::string> sorted(keys.begin(), keys.end());
  Version v(KeyComparator::Internal(BytewiseComparator()));
  for (size_t i = 0; i + 1 < sorted.size(); i += 2) {
    auto f = std::make_shared<FileMetaData>();
    f->number = i + 1;
    f->smallest = Ikey(sorted[i], 100);
    f->largest = Ikey(sorted[i + 1], 50);
    v.files[1].push_back(std::move(f));
  }
  v.BuildSearchIndex();
  for (int probe = 0; probe < 200; ++probe) {
    const std::string user_key =
        rnd->OneIn(3)
            ? sorted[rnd->Uniform(static_cast<uint32_t>(sorted.size()))]
            : RandomUserKey(rnd, shared_prefix);
    // Sequences above, at and below the files' largest entries (50).
    for (SequenceNumber seq :
         {SequenceNumber{10}, SequenceNumber{50}, kMaxSequenceNumber}) {
      std::string ikey;
      AppendInternalKey(&ikey, user_key, seq, kValueTypeForSeek);
      ASSERT_EQ(v.FindFileFast(1, user_key, ikey),
                FindFile(v.icmp, v.files[1], ikey))
          << "key '" << user_key << "' seq " << seq;
    }
  }
}

TEST(VersionTest, FindFileFastMatchesFindFile) {
  Random rnd(test::TestSeed(33));
  for (int round = 0; round < 300; ++round) {
    CheckLevel(&rnd, "");                      // short keys, early differences
    CheckLevel(&rnd, "shared-prefix-");        // every prefix ties
    CheckLevel(&rnd, std::string("ab\0", 3));  // ties padded with zeros
  }
}

TEST(VersionTest, FindFileFastFallsBackWithoutAnIndex) {
  Version v(KeyComparator::Internal(BytewiseComparator()));
  auto f = std::make_shared<FileMetaData>();
  f->smallest = Ikey("a", 1);
  f->largest = Ikey("m", 1);
  v.files[2].push_back(f);  // no BuildSearchIndex
  std::string ikey;
  AppendInternalKey(&ikey, "c", kMaxSequenceNumber, kValueTypeForSeek);
  EXPECT_EQ(v.FindFileFast(2, "c", ikey), 0u);
  ikey.clear();
  AppendInternalKey(&ikey, "z", kMaxSequenceNumber, kValueTypeForSeek);
  EXPECT_EQ(v.FindFileFast(2, "z", ikey), 1u);
}

}  // namespace
}  // namespace sift
