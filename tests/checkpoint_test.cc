// DB::CreateCheckpoint: the directory it makes opens as a DB holding exactly
// the source's state at one sequence, taken while another thread writes;
// it is an independent read-write DB; tables are linked when the Env can
// link and copied when it cannot; an existing target is refused untouched.

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using test::NumberedKey;
using test::NumberedValue;

class CheckpointTest : public test::MemDBTest {
 protected:
  CheckpointTest() {
    // Small buffers: flushes and compactions run during the write load.
    options_.write_buffer_size = 16 << 10;
    options_.max_file_size = 16 << 10;
    options_.level0_compaction_trigger = 2;
  }

  std::unique_ptr<DB> OpenAt(const std::string& path) {
    Options o = options_;
    o.create_if_missing = false;
    auto db = DB::Open(o, path);
    EXPECT_TRUE(db.ok()) << path << ": " << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }
};

TEST_F(CheckpointTest, UnderWriteLoadMatchesSnapshotAtItsSequence) {
  Open();
  const uint64_t seed = test::TestSeed(301);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  constexpr int kWrites = 3000;
  // One writer, one Put per sequence: after write i the last sequence is
  // i + 1, and snaps[i] is a snapshot at exactly that sequence.
  std::vector<const Snapshot*> snaps(kWrites, nullptr);
  std::atomic<int> done{0};
  std::thread writer([&] {
    Random rnd(seed);
    for (int i = 0; i < kWrites; ++i) {
      const int k = static_cast<int>(rnd.Uniform(400));
      const std::string key = NumberedKey(k);
      absl::Status s = rnd.OneIn(8) ? db_->Delete(WriteOptions(), key)
                                    : db_->Put(WriteOptions(), key,
                                               absl::StrCat(NumberedValue(i)));
      ASSERT_TRUE(s.ok()) << s;
      snaps[i] = db_->GetSnapshot();
      done.store(i + 1, std::memory_order_release);
    }
  });
  std::vector<std::pair<std::string, uint64_t>> checkpoints;
  for (int c = 0; c < 3; ++c) {
    // Spread the checkpoints over the load: early, middle, late.
    while (done.load(std::memory_order_acquire) < 1 + c * kWrites / 3) {
      std::this_thread::yield();
    }
    const std::string dir = absl::StrCat("/ckpt", c);
    uint64_t seq = 0;
    const absl::Status s = db_->CreateCheckpoint(dir, &seq);
    ASSERT_TRUE(s.ok()) << s;
    checkpoints.emplace_back(dir, seq);
  }
  writer.join();
  for (const auto& [dir, seq] : checkpoints) {
    SCOPED_TRACE(dir);
    ASSERT_GE(seq, 1u);
    ASSERT_LE(seq, static_cast<uint64_t>(kWrites));
    std::unique_ptr<DB> ckpt = OpenAt(dir);
    ASSERT_NE(ckpt, nullptr);
    EXPECT_EQ(test::DbContents(ckpt.get()),
              test::DbContents(db_.get(), snaps[seq - 1]));
  }
  for (const Snapshot* s : snaps) db_->ReleaseSnapshot(s);
}

TEST_F(CheckpointTest, OpensReadWriteIndependently) {
  Open();
  PutScattered(0, 300);
  ASSERT_TRUE(db_->Flush().ok());
  PutScattered(300, 400);  // only in the memtable and the log
  ASSERT_TRUE(db_->CreateCheckpoint("/ckpt").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "after", "source").ok());

  std::unique_ptr<DB> ckpt = OpenAt("/ckpt");
  ASSERT_NE(ckpt, nullptr);
  EXPECT_EQ(test::DbContents(ckpt.get()).size(), 400u);
  std::string v;
  EXPECT_TRUE(absl::IsNotFound(ckpt->Get(ReadOptions(), "after", &v)));
  ASSERT_TRUE(ckpt->Put(WriteOptions(), "mine", "checkpoint").ok());
  ASSERT_TRUE(ckpt->Delete(WriteOptions(), NumberedKey(5)).ok());
  ASSERT_TRUE(ckpt->CompactRange(std::nullopt, std::nullopt).ok());
  ckpt.reset();
  ckpt = OpenAt("/ckpt");
  ASSERT_NE(ckpt, nullptr);
  ASSERT_TRUE(ckpt->Get(ReadOptions(), "mine", &v).ok());
  EXPECT_EQ(v, "checkpoint");
  EXPECT_TRUE(absl::IsNotFound(ckpt->Get(ReadOptions(), NumberedKey(5), &v)));

  // The source saw none of it, and its shared tables are intact.
  EXPECT_EQ(Get("mine"), "NOT_FOUND");
  EXPECT_EQ(Get(NumberedKey(5)), NumberedValue(5));
  EXPECT_EQ(Get("after"), "source");
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  EXPECT_EQ(test::DbContents(db_.get()).size(), 401u);
}

TEST_F(CheckpointTest, ExistingTargetIsRefusedUntouched) {
  Open();
  PutScattered(0, 50);
  ASSERT_TRUE(env_->CreateDir("/taken").ok());
  ASSERT_TRUE(
      WriteStringToFile(env_.get(), "mine", "/taken/CURRENT", false).ok());
  const absl::Status s = db_->CreateCheckpoint("/taken");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("/taken"), std::string::npos) << s;
  auto children = env_->GetChildren("/taken");
  ASSERT_TRUE(children.ok());
  EXPECT_EQ(*children, std::vector<std::string>{"CURRENT"});
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/taken/CURRENT", &data).ok());
  EXPECT_EQ(data, "mine");
}

TEST_F(CheckpointTest, EmptyPathIsRefusedByName) {
  Open();
  PutScattered(0, 50);
  const absl::Status s = db_->CreateCheckpoint("");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("already exists"), std::string::npos) << s;
}

// Checkpoints racing for one new directory: exactly one makes it, the
// others are refused for its existing, and the winner's opens whole.
TEST_F(CheckpointTest, RacingCheckpointsIntoOneDirectoryOneWins) {
  Open();
  PutScattered(0, 400);
  for (int round = 0; round < 20; ++round) {
    const std::string dir = absl::StrCat("/race", round);
    std::vector<absl::Status> results(4);
    std::vector<std::thread> threads;
    for (absl::Status& r : results) {
      threads.emplace_back([&, dir] { r = db_->CreateCheckpoint(dir); });
    }
    for (std::thread& t : threads) t.join();
    int won = 0;
    for (const absl::Status& r : results) {
      if (r.ok()) {
        ++won;
      } else {
        EXPECT_TRUE(absl::IsInvalidArgument(r)) << r;
        EXPECT_NE(r.message().find("already exists"), std::string::npos) << r;
      }
    }
    ASSERT_EQ(won, 1) << dir;
    Options o = options_;
    o.create_if_missing = false;
    o.paranoid_checks = true;
    auto copy = DB::Open(o, dir);
    ASSERT_TRUE(copy.ok()) << copy.status();
    EXPECT_EQ(test::DbContents(copy->get()).size(), 400u);
  }
}

// An Env that cannot link: every table is copied instead.
class NoLinkEnv : public EnvWrapper {
 public:
  explicit NoLinkEnv(Env* target) : EnvWrapper(target) {}
  absl::Status LinkFile(const std::string& from,
                        const std::string& to) override {
    ++refused;
    return Env::LinkFile(from, to);
  }
  int refused = 0;
};

TEST_F(CheckpointTest, CopiesWhenTheEnvCannotLink) {
  NoLinkEnv no_link(env_.get());
  options_.env = &no_link;
  // The DB closes (and finishes its background work) before that Env goes.
  absl::Cleanup close_db_first = [this] { db_.reset(); };
  Open();
  PutScattered(0, 300);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->CreateCheckpoint("/ckpt").ok());
  EXPECT_GT(no_link.refused, 0);
  std::unique_ptr<DB> ckpt = OpenAt("/ckpt");
  ASSERT_NE(ckpt, nullptr);
  EXPECT_EQ(test::DbContents(ckpt.get()), test::DbContents(db_.get()));
  ckpt.reset();
  db_.reset();
}

TEST(CheckpointPosixTest, TablesAreHardLinks) {
  const std::string root = test::TempDir("checkpoint_posix");
  const std::string src = root + "/db", dst = root + "/ckpt";
  Options options;
  options.create_if_missing = true;
  ASSERT_TRUE(DestroyDB(src, options).ok());
  ASSERT_TRUE(DestroyDB(dst, options).ok());
  {
    auto db = DB::Open(options, src);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(
          (*db)->Put(WriteOptions(), NumberedKey(i), NumberedValue(i)).ok());
    }
    ASSERT_TRUE((*db)->Flush().ok());
    ASSERT_TRUE((*db)->Put(WriteOptions(), "in-log", "x").ok());
    ASSERT_TRUE((*db)->CreateCheckpoint(dst).ok());
  }
  auto children = Env::Default()->GetChildren(dst);
  ASSERT_TRUE(children.ok());
  int tables = 0;
  for (const std::string& name : *children) {
    if (name.size() > 4 && name.substr(name.size() - 4) == ".sst") {
      struct ::stat st;
      ASSERT_EQ(::stat((dst + "/" + name).c_str(), &st), 0);
      EXPECT_EQ(st.st_nlink, 2u) << name;
      ++tables;
    }
  }
  EXPECT_GT(tables, 0);
  auto db = DB::Open(options, dst);
  ASSERT_TRUE(db.ok()) << db.status();
  std::string v;
  ASSERT_TRUE((*db)->Get(ReadOptions(), "in-log", &v).ok());
  EXPECT_EQ(test::DbContents(db->get()).size(), 101u);
  db->reset();
  ASSERT_TRUE(DestroyDB(dst, options).ok());
  ASSERT_TRUE(DestroyDB(src, options).ok());
}

TEST_F(CheckpointTest, ReadOnlyDBRefuses) {
  Open();
  PutScattered(0, 10);
  db_.reset();
  auto ro = DB::OpenForReadOnly(options_, path_);
  ASSERT_TRUE(ro.ok()) << ro.status();
  const absl::Status s = (*ro)->CreateCheckpoint("/ckpt");
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_FALSE(env_->FileExists("/ckpt"));
}

}  // namespace
}  // namespace sift
