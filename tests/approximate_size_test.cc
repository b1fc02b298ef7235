// DB::GetApproximateSizes: whole files count whole, cut files by their
// index offsets, adjacent ranges add up, memtables count only when asked,
// and a read-only DB answers the same.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sift/db.h"
#include "tests/testutil/mem_db_test.h"

namespace sift {
namespace {

using test::NumberedKey;
using test::NumberedValue;

constexpr int kKeys = 3000;
// Bytes of one numbered key and value, as stored (uncompressed).
const uint64_t kEntryBytes = NumberedKey(0).size() + NumberedValue(0).size();

class ApproximateSizeTest : public test::MemDBTest {
 protected:
  ApproximateSizeTest() {
    options_.compression = Compression::kNone;  // bytes track entries
    options_.write_buffer_size = 64 << 10;
    options_.max_file_size = 32 << 10;  // many files per level
    options_.max_open_files = 10;       // most tables not pinned
  }

  std::vector<uint64_t> Sizes(const std::vector<Range>& ranges,
                              SizeApproximationOptions o = {}) {
    auto sizes = db_->GetApproximateSizes(o, ranges);
    EXPECT_TRUE(sizes.ok()) << sizes.status();
    return sizes.ok() ? *sizes : std::vector<uint64_t>(ranges.size(), 0);
  }
  uint64_t Size(int from, int to, SizeApproximationOptions o = {}) {
    const std::string a = NumberedKey(from), b = NumberedKey(to);
    return Sizes({{a, b}}, o)[0];
  }

  // The keys [0, kKeys), flushed and compacted into level-1+ files.
  void FillAndCompact() {
    Open();
    PutScattered(0, kKeys);
    ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
    ASSERT_TRUE(db_->WaitForCompaction().ok());
  }

  // The bytes of every table file in the directory.
  uint64_t TotalTableBytes() {
    EXPECT_TRUE(db_->WaitForCompaction().ok());
    auto names = env_->GetChildren(path_);
    EXPECT_TRUE(names.ok()) << names.status();
    uint64_t sum = 0;
    for (const std::string& name :
         names.ok() ? *names : std::vector<std::string>()) {
      if (!name.ends_with(".sst")) continue;
      auto size = env_->GetFileSize(path_ + "/" + name);
      EXPECT_TRUE(size.ok()) << size.status();
      sum += size.value_or(0);
    }
    return sum;
  }
};

TEST_F(ApproximateSizeTest, EmptyDbAndEmptyRanges) {
  Open();
  EXPECT_EQ(Sizes({{"a", "z"}, {"", "\xff\xff"}}),
            (std::vector<uint64_t>{0, 0}));
  FillAndCompact();
  // limit <= start: nothing.
  EXPECT_EQ(Size(500, 500), 0u);
  EXPECT_EQ(Size(600, 100), 0u);
  // Before and after every key.
  EXPECT_EQ(Sizes({{"a", "b"}, {"zz", "zzz"}}), (std::vector<uint64_t>{0, 0}));
}

TEST_F(ApproximateSizeTest, SizesTrackTheDataInRange) {
  FillAndCompact();
  const uint64_t total = Size(0, kKeys);
  const uint64_t data = kKeys * kEntryBytes;
  // Every file lies wholly inside: data plus index, filter and footers.
  EXPECT_GE(total, data);
  EXPECT_LE(total, data + data / 5);
  EXPECT_EQ(total, TotalTableBytes());
  // A tenth of the keys, anywhere: a tenth of the bytes, within two blocks
  // at each cut file's ends and the files' metadata.
  for (int from : {0, 1234, kKeys - 300}) {
    const uint64_t part = Size(from, from + 300);
    const uint64_t expect = 300 * kEntryBytes;
    EXPECT_GE(part + 2 * options_.block_size, expect) << from;
    EXPECT_LE(part, expect + 4 * options_.block_size + total / 10) << from;
  }
}

TEST_F(ApproximateSizeTest, AdjacentRangesAddUp) {
  FillAndCompact();
  const std::string k0 = NumberedKey(0), k1 = NumberedKey(777),
                    k2 = NumberedKey(1500), k3 = NumberedKey(2999),
                    k4 = NumberedKey(kKeys);
  const std::vector<uint64_t> parts =
      Sizes({{k0, k1}, {k1, k2}, {k2, k3}, {k3, k4}, {k0, k4}});
  EXPECT_EQ(parts[0] + parts[1] + parts[2] + parts[3], parts[4]);
  for (int i = 0; i < 4; ++i) EXPECT_GT(parts[i], 0u) << i;
}

TEST_F(ApproximateSizeTest, MemtablesCountOnlyWhenAsked) {
  Open();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), NumberedKey(i), NumberedValue(i)).ok());
  }
  SizeApproximationOptions files_only;
  SizeApproximationOptions with_mem;
  with_mem.include_memtables = true;
  SizeApproximationOptions mem_only;
  mem_only.include_files = false;
  mem_only.include_memtables = true;
  EXPECT_EQ(Size(0, 100, files_only), 0u);
  // Keys and values, each internal key with its 8-byte trailer.
  auto stored = [](int from, int to) {
    uint64_t sum = 0;
    for (int i = from; i < to; ++i) {
      sum += NumberedKey(i).size() + 8 + NumberedValue(i).size();
    }
    return sum;
  };
  EXPECT_EQ(Size(0, 100, with_mem), stored(0, 100));
  EXPECT_EQ(Size(10, 20, mem_only), stored(10, 20));

  ASSERT_TRUE(db_->Flush().ok());
  EXPECT_GE(Size(0, 100, files_only), 100 * kEntryBytes);
  EXPECT_EQ(Size(0, 100, mem_only), 0u);

  SizeApproximationOptions neither;
  neither.include_files = false;
  const std::string a = "a", b = "b";
  const std::vector<Range> r = {{a, b}};
  auto s = db_->GetApproximateSizes(neither, r);
  EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
}

TEST_F(ApproximateSizeTest, ReadOnlyDbAnswersTheSame) {
  FillAndCompact();
  const std::string k0 = NumberedKey(100), k1 = NumberedKey(2100);
  const std::vector<Range> ranges = {{k0, k1}};
  const std::vector<uint64_t> before = Sizes(ranges);
  db_.reset();
  auto ro = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(ro.ok()) << ro.status();
  auto after = (*ro)->GetApproximateSizes({}, ranges);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, before);
  EXPECT_GT(before[0], 0u);
}

}  // namespace
}  // namespace sift
