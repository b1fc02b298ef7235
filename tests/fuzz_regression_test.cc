// Engine bugs the fuzz targets (tests/fuzz) found, each rebuilt here from
// plain engine calls so the failure reads without a fuzzer (the last one
// fails only under UBSan, as in .ci/run's ASan+UBSan stage). The inputs the
// fuzzer found are also in tests/fuzz/corpus/, replayed by <name>_corpus.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "db/filename.h"
#include "db/log_writer.h"
#include "db/write_batch_internal.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "table/format.h"
#include "table/table.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/filter.h"

namespace sift {
namespace {

class WalSequenceTest : public ::testing::Test {
 protected:
  WalSequenceTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
  }

  // A DB whose live WAL holds one Put("a") with sequence 1.
  void MakeDb() {
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(WriteOptions(), "a", "1").ok());
  }

  // Appends a batch to the DB's newest WAL as a crash-free writer would.
  void AppendToWal(const WriteBatch& batch) {
    auto children = env_->GetChildren("/db");
    ASSERT_TRUE(children.ok());
    uint64_t newest = 0, number;
    FileType type;
    for (const std::string& name : *children) {
      if (ParseFileName(name, &number, &type) && type == FileType::kLog) {
        newest = std::max(newest, number);
      }
    }
    const std::string wal = LogFileName("/db", newest);
    std::string old;
    ASSERT_TRUE(ReadFileToString(env_.get(), wal, &old).ok());
    auto file = env_->NewWritableFile(wal);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append(old).ok());
    log::Writer writer(file->get(), old.size());
    ASSERT_TRUE(writer.AddRecord(WriteBatchInternal::Contents(&batch)).ok());
    ASSERT_TRUE((*file)->Close().ok());
  }

  std::unique_ptr<Env> env_;
  Options options_;
};

// Recovery took a batch with sequences past 2^56 - 1, then wrote them into
// a MANIFEST it refused at the next Open: the DB could no longer be opened.
TEST_F(WalSequenceTest, BatchBeyond56BitsIsDataLoss) {
  MakeDb();
  WriteBatch batch;
  batch.Put("b", "2");
  WriteBatchInternal::SetSequence(&batch, kMaxSequenceNumber + 2);
  AppendToWal(batch);
  auto db = DB::Open(options_, "/db");
  ASSERT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
  EXPECT_NE(db.status().message().find("exceed 2^56 - 1"), std::string::npos)
      << db.status();
}

// The last sequence is usable; a write after it fails instead of wrapping
// (which made the key invisible and the MANIFEST unreadable), and the DB
// still opens with what it holds.
TEST_F(WalSequenceTest, SequencesEndAtTwoTo56MinusOne) {
  MakeDb();
  WriteBatch batch;
  batch.Put("b", "2");
  batch.Put("c", "3");
  WriteBatchInternal::SetSequence(&batch, kMaxSequenceNumber - 1);
  AppendToWal(batch);
  std::string v;
  {
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Get(ReadOptions(), "c", &v).ok());
    EXPECT_EQ(v, "3");
    EXPECT_EQ((*db)->Put(WriteOptions(), "d", "4").code(),
              absl::StatusCode::kResourceExhausted);
  }
  auto db = DB::Open(options_, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Get(ReadOptions(), "c", &v).ok());
  EXPECT_EQ(v, "3");
  EXPECT_TRUE(absl::IsNotFound((*db)->Get(ReadOptions(), "d", &v)));
}

// Recovery replayed a batch reusing sequence 1 of "a": two entries with one
// internal key reached the memtable, and the flush at the end of recovery
// failed Open with InvalidArgument from the table builder.
TEST_F(WalSequenceTest, ReusedSequenceIsDataLoss) {
  MakeDb();
  WriteBatch batch;
  batch.Put("a", "again");
  WriteBatchInternal::SetSequence(&batch, 1);
  AppendToWal(batch);
  auto db = DB::Open(options_, "/db");
  ASSERT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
  EXPECT_NE(db.status().message().find("does not follow"), std::string::npos)
      << db.status();
}

// VerifyChecksum checked key order within each data block only, so a table
// whose second block starts below the first block's keys (behind a valid
// checksum) verified, then iterated out of order and lost keys to Get.
TEST(TableVerifyTest, KeysOutOfOrderAcrossBlocksAreDataLoss) {
  std::unique_ptr<Env> env = NewMemEnv();
  Options options;
  options.env = env.get();
  options.block_size = 256;
  options.compression = Compression::kNone;
  SstFileWriter writer(options);
  ASSERT_TRUE(writer.Open("/t.sst").ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(writer.Put(absl::StrFormat("key%03d", i), "value").ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  std::string bytes;
  ASSERT_TRUE(ReadFileToString(env.get(), "/t.sst", &bytes).ok());

  // The second data block's first entry is a restart point: shared 0,
  // key length, value length (one byte each), then "key0NN" + trailer.
  auto file = env->NewRandomAccessFile("/t.sst");
  ASSERT_TRUE(file.ok());
  auto table = Table::Open("/t.sst", *std::move(file), bytes.size(), nullptr,
                           BytewiseComparator());
  ASSERT_TRUE(table.ok()) << table.status();
  const std::vector<Table::BlockInfo> blocks = (*table)->Blocks();
  ASSERT_GE(blocks.size(), 3u);
  ASSERT_EQ(blocks[1].kind, "data");
  const BlockHandle h = blocks[1].handle;
  ASSERT_EQ(bytes.substr(h.offset, 1), std::string(1, '\0'));
  ASSERT_EQ(bytes.substr(h.offset + 3, 3), "key");
  bytes[h.offset + 3] = 'a';  // "aey0NN" sorts before block 0's "key000"
  char* block = bytes.data() + h.offset;
  EncodeFixed32(block + h.size + 1,
                crc32c::Mask(crc32c::Value(block, h.size + 1)));
  ASSERT_TRUE(WriteStringToFile(env.get(), bytes, "/t.sst", false).ok());

  SstFileReader reader(options);
  ASSERT_TRUE(reader.Open("/t.sst").ok());
  const absl::Status s = reader.VerifyChecksum();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("out of order"), std::string::npos) << s;
}

// A Snappy block whose preamble claimed up to 1 GiB was allocated at that
// size before decompression failed: a 1.5 KB table (block checksum intact)
// cost 1 GiB and 10 s per read. No Snappy element expands more than 64/3.
TEST(TableVerifyTest, SnappyLengthBeyondExpansionIsRefusedUpFront) {
  std::string block = "\x80\x80\x80\x80\x02";  // varint32 2^29 bytes
  block += std::string("\x00x", 2);            // a 1-byte literal
  const size_t n = block.size();
  AppendBlockTrailer(block.substr(0, n), kSnappyBlock, &block);
  std::unique_ptr<Env> env = NewMemEnv();
  ASSERT_TRUE(WriteStringToFile(env.get(), block, "/b", false).ok());
  auto file = env->NewRandomAccessFile("/b");
  ASSERT_TRUE(file.ok());
  BlockContents contents;
  const absl::Status s = ReadBlock(**file, "/b", BlockHandle{0, n}, &contents);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("bad snappy block length"), std::string::npos)
      << s;
}

// ExpectedFpRate of a filter whose trailer claims 2^64 - 1 keys converted
// 2^64 keys per block (as a double) to uint64_t: undefined behaviour
// (UBSan float-cast-overflow; table_fuzz, through Table::filter()).
TEST(BloomRegressionTest, ExpectedFpRateOfAbsurdKeyCount) {
  std::string filter(64, '\0');                  // one 512-bit block
  PutFixed64(&filter, 512);                      // num_bits
  PutFixed64(&filter, ~uint64_t{0});             // num_keys: 2^64 - 1
  filter += std::string("\x06\x01\x7e\xf1", 4);  // 6 probes, kBlocked, magic
  FilterReader reader(filter);
  ASSERT_TRUE(reader.valid());
  EXPECT_DOUBLE_EQ(reader.ExpectedFpRate(), 1.0);
}

}  // namespace
}  // namespace sift
