// Engine bugs the fuzz targets (tests/fuzz) found, each rebuilt here from
// plain engine calls so the failure reads without a fuzzer. The inputs the
// fuzzer found are also in tests/fuzz/corpus/, replayed by <name>_corpus.

#include <memory>
#include <string>

#include "db/filename.h"
#include "db/log_writer.h"
#include "db/write_batch_internal.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"

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
    auto size = env_->GetFileSize(wal);
    auto file = env_->NewAppendableFile(wal);
    ASSERT_TRUE(size.ok() && file.ok());
    log::Writer writer(file->get(), *size);
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

}  // namespace
}  // namespace sift
