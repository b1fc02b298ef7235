// The size limits of sift/options.h: a key over kMaxKeySize or a value over
// kMaxValueSize is refused with InvalidArgument before a byte of it is
// written, by every way in (Put, Delete, WriteBatch, SstFileWriter); an
// entry at the limits is written and read back after a reopen, so nothing
// the API accepts is lost to a block the reader cannot take back.

#include <sys/mman.h>

#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/options.h"
#include "sift/sst_file_writer.h"
#include "sift/write_batch.h"
#include "tests/testutil/fault_env.h"

namespace sift {
namespace {

// n readable zero bytes that take no memory until read (the kernel maps
// the zero page on a read): the API must refuse such a buffer by its size,
// without copying it.
class ZeroBuffer {
 public:
  explicit ZeroBuffer(size_t n) : n_(n) {
    addr_ = mmap(nullptr, n, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  ~ZeroBuffer() {
    if (addr_ != MAP_FAILED) munmap(addr_, n_);
  }
  bool ok() const { return addr_ != MAP_FAILED; }
  std::string_view view() const {
    return std::string_view(static_cast<const char*>(addr_), n_);
  }

 private:
  const size_t n_;
  void* addr_;
};

class EntryLimitsTest : public ::testing::Test {
 protected:
  EntryLimitsTest()
      : base_(NewMemEnv()),
        env_(std::make_unique<FaultInjectionEnv>(base_.get())) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    auto db = DB::Open(options_, "/db");
    EXPECT_TRUE(db.ok()) << db.status();
    if (db.ok()) db_ = *std::move(db);
  }

  // Checks that s refuses an oversize entry and the WAL got no byte.
  void ExpectRefused(const absl::Status& s, uint64_t wal_bytes_before) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_EQ(env_->BytesAppendedTo(".log"), wal_bytes_before);
  }

  std::unique_ptr<Env> base_;
  std::unique_ptr<FaultInjectionEnv> env_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(EntryLimitsTest, OversizeKeysAndValuesAreRefusedBeforeAnyWrite) {
  ASSERT_NE(db_, nullptr);
  ZeroBuffer big_key(kMaxKeySize + 1);
  ZeroBuffer big_value(kMaxValueSize + 1);
  ASSERT_TRUE(big_key.ok() && big_value.ok());
  const std::string_view max_key = big_key.view().substr(0, kMaxKeySize);
  const uint64_t before = env_->BytesAppendedTo(".log");

  ExpectRefused(db_->Put(WriteOptions(), big_key.view(), "v"), before);
  ExpectRefused(db_->Put(WriteOptions(), "k", big_value.view()), before);
  ExpectRefused(db_->Delete(WriteOptions(), big_key.view()), before);

  // A batch keeps its good entries out of the DB too: refused whole.
  WriteBatch batch;
  batch.Put("good", "v");
  batch.Put("k", big_value.view());
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.Count(), 1u);
  batch.Delete("later");  // ignored once the batch has refused one
  EXPECT_EQ(batch.Count(), 1u);
  ExpectRefused(db_->Write(WriteOptions(), &batch), before);
  std::string v;
  EXPECT_TRUE(absl::IsNotFound(db_->Get(ReadOptions(), "good", &v)));
  batch.Clear();
  EXPECT_TRUE(batch.status().ok());
  batch.Delete(big_key.view());
  ExpectRefused(db_->Write(WriteOptions(), &batch), before);

  // Exactly at the key limit is fine (the value limit is read back below).
  batch.Clear();
  batch.Put(max_key, "v");
  EXPECT_TRUE(db_->Write(WriteOptions(), &batch).ok());
  ASSERT_TRUE(db_->Get(ReadOptions(), max_key, &v).ok());
  EXPECT_EQ(v, "v");
}

// Lengths at 4 GiB and beyond once wrapped to 32 bits and were stored
// truncated; values over 1 GiB made blocks no reader took back.
TEST_F(EntryLimitsTest, ValuesOfGigabytesAreRefused) {
  ASSERT_NE(db_, nullptr);
  for (size_t n : {(size_t{1} << 30) + 1, (size_t{4} << 30) + 16}) {
    SCOPED_TRACE(n);
    ZeroBuffer value(n);
    ASSERT_TRUE(value.ok());
    const uint64_t before = env_->BytesAppendedTo(".log");
    ExpectRefused(db_->Put(WriteOptions(), "k", value.view()), before);
    ExpectRefused(db_->Put(WriteOptions(), value.view(), "v"), before);
  }
}

TEST_F(EntryLimitsTest, SstFileWriterRefusesOversizeEntries) {
  ZeroBuffer big_key(kMaxKeySize + 1);
  ZeroBuffer big_value(kMaxValueSize + 1);
  ASSERT_TRUE(big_key.ok() && big_value.ok());
  SstFileWriter writer(options_);
  ASSERT_TRUE(writer.Open("/file.sst").ok());
  EXPECT_EQ(writer.Put(big_key.view(), "v").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.Put("k", big_value.view()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.Delete(big_key.view()).code(),
            absl::StatusCode::kInvalidArgument);
  const uint64_t size = writer.FileSize();
  EXPECT_TRUE(writer.Put("k", "v").ok());
  EXPECT_TRUE(writer.Finish().ok());
  EXPECT_GT(writer.FileSize(), size);
}

// The block-size option is bounded so that a block (block_size plus one
// entry at the limits) always fits what the reader accepts.
TEST_F(EntryLimitsTest, BlockSizeIsBounded) {
  Options o = options_;
  for (size_t bad : {size_t{256} << 20 | 1, size_t{1} << 30}) {
    o.block_size = bad;
    auto db = DB::Open(o, "/other");
    EXPECT_EQ(db.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    SstFileWriter writer(o);
    EXPECT_EQ(writer.Open("/bad.sst").code(),
              absl::StatusCode::kInvalidArgument);
  }
  o.block_size = size_t{256} << 20;
  EXPECT_TRUE(DB::Open(o, "/other").ok());
}

// The largest key and value together, in one block of its own, written to
// a table and read back after a reopen (the WAL is gone by then).
TEST_F(EntryLimitsTest, EntryAtTheLimitsIsReadBack) {
  ASSERT_NE(db_, nullptr);
  std::string key(kMaxKeySize, 'k');
  std::string value(kMaxValueSize, 'v');
  value[12345] = 'x';  // not all one byte: a damaged copy would differ
  ASSERT_TRUE(db_->Put(WriteOptions(), key, value).ok());
  ASSERT_TRUE(db_->Flush().ok());
  db_.reset();
  auto db = DB::Open(options_, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  std::string got;
  ASSERT_TRUE((*db)->Get(ReadOptions(), key, &got).ok());
  EXPECT_TRUE(got == value);
}

}  // namespace
}  // namespace sift
