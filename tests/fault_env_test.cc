#include "tests/testutil/fault_env.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using ::testing::HasSubstr;

// Runs on the in-memory env and on POSIX (where the target's user-space
// write buffer makes "closed at crash" matter).
class FaultEnvTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    const bool posix = GetParam();
    if (posix) {
      std::string name =
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
      std::replace(name.begin(), name.end(), '/', '_');
      base_ = Env::Default();
      dir_ = test::TempDir("fault_env_test-" + name);
    } else {
      mem_ = NewMemEnv();
      base_ = mem_.get();
      dir_ = "/db";
    }
    env_ = std::make_unique<FaultInjectionEnv>(base_);
    ASSERT_TRUE(env_->CreateDir(dir_).ok());
  }
  void TearDown() override {
    if (mem_ == nullptr) std::filesystem::remove_all(dir_);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::unique_ptr<WritableFile> Open(const std::string& name) {
    auto f = env_->NewWritableFile(Path(name));
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }
  // What is on the target, bypassing the fault env.
  std::string Contents(const std::string& name) {
    std::string data;
    absl::Status s = ReadFileToString(base_, Path(name), &data);
    EXPECT_TRUE(s.ok()) << s;
    return data;
  }
  bool Exists(const std::string& name) { return base_->FileExists(Path(name)); }
  void SyncDir() { ASSERT_TRUE(env_->SyncDir(dir_).ok()); }
  void Crash() { ASSERT_TRUE(env_->SimulateCrash().ok()); }

  std::unique_ptr<Env> mem_;
  Env* base_ = nullptr;
  std::string dir_;
  std::unique_ptr<FaultInjectionEnv> env_;
};

TEST_P(FaultEnvTest, CrashKeepsSyncedDataAndDropsTheRest) {
  auto f = Open("000001.log");
  SyncDir();
  ASSERT_TRUE(f->Append("synced").ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(f->Append(" lost").ok());
  ASSERT_TRUE(f->Flush().ok());  // flushed is not synced
  EXPECT_EQ(Contents("000001.log"), "synced lost");
  Crash();
  EXPECT_EQ(Contents("000001.log"), "synced");
}

TEST_P(FaultEnvTest, NeverSyncedFileIsEmptyAfterCrash) {
  auto f = Open("f");
  SyncDir();
  ASSERT_TRUE(f->Append("data").ok());
  ASSERT_TRUE(f->Close().ok());
  Crash();
  EXPECT_TRUE(Exists("f"));
  EXPECT_EQ(Contents("f"), "");
}

TEST_P(FaultEnvTest, NewFileWithoutDirSyncIsRemoved) {
  auto f = Open("new.sst");
  ASSERT_TRUE(f->Append("data").ok());
  ASSERT_TRUE(f->Sync().ok());  // data durable, directory entry not
  ASSERT_TRUE(f->Close().ok());
  Crash();
  EXPECT_FALSE(Exists("new.sst"));
}

TEST_P(FaultEnvTest, DirSyncOfAnotherDirectoryDoesNotCount) {
  ASSERT_TRUE(env_->CreateDir(Path("sub")).ok());
  auto f = Open("f");
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(env_->SyncDir(Path("sub")).ok());
  Crash();
  EXPECT_FALSE(Exists("f"));
}

TEST_P(FaultEnvTest, WritersFromBeforeTheCrashAreDead) {
  auto f = Open("f");
  SyncDir();
  ASSERT_TRUE(f->Append("kept").ok());
  ASSERT_TRUE(f->Sync().ok());
  // Buffered in the POSIX writer, never flushed: must not reach the file
  // when the writer is used or destroyed after the crash.
  ASSERT_TRUE(f->Append(" buffered").ok());
  Crash();
  absl::Status s = f->Append("more");
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr(Path("f")));
  EXPECT_FALSE(f->Sync().ok());
  EXPECT_FALSE(f->Close().ok());
  f.reset();
  EXPECT_EQ(Contents("f"), "kept");

  // New files after the crash work normally.
  auto g = Open("g");
  EXPECT_TRUE(g->Append("x").ok());
  EXPECT_TRUE(g->Close().ok());
}

TEST_P(FaultEnvTest, TruncatingAnExistingFileSyncsNothing) {
  ASSERT_TRUE(WriteStringToFile(base_, "old data", Path("f"), true).ok());
  auto f = Open("f");
  ASSERT_TRUE(f->Append("new").ok());
  Crash();
  EXPECT_EQ(Contents("f"), "");
}

TEST_P(FaultEnvTest, RenameBecomesDurableOnlyWithDirSync) {
  // The CURRENT dance: write a temp file, sync, rename over, sync the dir.
  ASSERT_TRUE(WriteStringToFile(env_.get(), "old", Path("CURRENT"), true).ok());
  SyncDir();
  ASSERT_TRUE(
      WriteStringToFile(env_.get(), "new", Path("CURRENT.tmp"), true).ok());
  ASSERT_TRUE(env_->RenameFile(Path("CURRENT.tmp"), Path("CURRENT")).ok());
  EXPECT_EQ(Contents("CURRENT"), "new");
  Crash();
  EXPECT_EQ(Contents("CURRENT"), "old");  // the rename never became durable
  EXPECT_FALSE(Exists("CURRENT.tmp"));

  ASSERT_TRUE(
      WriteStringToFile(env_.get(), "new", Path("CURRENT.tmp"), true).ok());
  ASSERT_TRUE(env_->RenameFile(Path("CURRENT.tmp"), Path("CURRENT")).ok());
  SyncDir();
  Crash();
  EXPECT_EQ(Contents("CURRENT"), "new");
}

TEST_P(FaultEnvTest, RenameToAFreshNameWithoutDirSyncIsLost) {
  ASSERT_TRUE(WriteStringToFile(env_.get(), "x", Path("a"), true).ok());
  SyncDir();
  ASSERT_TRUE(env_->RenameFile(Path("a"), Path("b")).ok());
  Crash();
  EXPECT_FALSE(Exists("b"));
  EXPECT_FALSE(Exists("a"));  // documented: the source name goes at once
}

TEST_P(FaultEnvTest, RenamedFileKeepsItsSyncState) {
  auto f = Open("a");
  ASSERT_TRUE(f->Append("synced").ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(env_->RenameFile(Path("a"), Path("b")).ok());
  ASSERT_TRUE(f->Append(" unsynced").ok());  // still the same file
  ASSERT_TRUE(f->Flush().ok());
  SyncDir();
  Crash();
  EXPECT_EQ(Contents("b"), "synced");
}

TEST_P(FaultEnvTest, RemovalIsDurable) {
  ASSERT_TRUE(WriteStringToFile(env_.get(), "x", Path("a"), true).ok());
  SyncDir();
  ASSERT_TRUE(env_->RemoveFile(Path("a")).ok());
  Crash();
  EXPECT_FALSE(Exists("a"));
}

TEST_P(FaultEnvTest, RandomWorkloadKeepsExactlyTheSyncedPrefixes) {
  uint64_t seed = test::TestSeed(701);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  constexpr int kFiles = 5;
  std::vector<std::unique_ptr<WritableFile>> files;
  std::vector<std::string> written(kFiles), synced(kFiles);
  for (int i = 0; i < kFiles; ++i) files.push_back(Open(std::to_string(i)));
  SyncDir();
  for (int step = 0; step < 500; ++step) {
    int i = rnd.Uniform(kFiles);
    if (rnd.OneIn(5)) {
      ASSERT_TRUE(files[i]->Sync().ok());
      synced[i] = written[i];
    } else {
      std::string piece;
      rnd.RandomString(rnd.Skewed(14), &piece);
      ASSERT_TRUE(files[i]->Append(piece).ok());
      written[i] += piece;
    }
  }
  Crash();
  for (int i = 0; i < kFiles; ++i) {
    EXPECT_TRUE(Contents(std::to_string(i)) == synced[i]) << "file " << i;
  }
}

TEST_P(FaultEnvTest, CrashWhileWritersRunKeepsEveryAcknowledgedSync) {
  constexpr int kWriters = 2;
  std::vector<std::unique_ptr<WritableFile>> files;
  for (int i = 0; i < kWriters; ++i) files.push_back(Open(std::to_string(i)));
  SyncDir();
  std::vector<std::string> written(kWriters);
  std::vector<size_t> acked(kWriters, 0);
  std::atomic<int> syncs{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      // Each record names its writer and sequence, so the surviving bytes
      // can be checked to be an exact prefix of what was written.
      for (int seq = 0;; ++seq) {
        std::string rec = std::to_string(i) + ":" + std::to_string(seq) + ";";
        if (!files[i]->Append(rec).ok()) return;
        written[i] += rec;
        if (!files[i]->Sync().ok()) return;
        acked[i] = written[i].size();
        syncs++;
      }
    });
  }
  while (syncs.load() < 200) std::this_thread::yield();
  Crash();
  for (auto& t : threads) t.join();
  for (int i = 0; i < kWriters; ++i) {
    std::string got = Contents(std::to_string(i));
    EXPECT_GE(got.size(), acked[i]) << "lost an acknowledged sync, file " << i;
    EXPECT_TRUE(written[i].starts_with(got)) << "file " << i;
  }
}

// ---- error injection ----

TEST_P(FaultEnvTest, InjectedNoSpaceOnAppendNamesThePathAndWritesNothing) {
  auto log = Open("000003.log");
  auto sst = Open("000004.sst");
  ASSERT_TRUE(log->Append("ok ").ok());
  env_->InjectError(FaultOp::kAppend, ".log",
                    FaultInjectionEnv::NoSpaceError());
  absl::Status s = log->Append("fails");
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("No space left on device"));
  EXPECT_THAT(s.message(), HasSubstr(Path("000003.log")));
  EXPECT_FALSE(log->Flush().ok());  // Flush writes too
  EXPECT_TRUE(sst->Append("unaffected").ok());
  EXPECT_EQ(env_->injected_error_count(), 2u);

  env_->ClearErrors();
  ASSERT_TRUE(log->Append("again").ok());
  ASSERT_TRUE(log->Close().ok());
  EXPECT_EQ(Contents("000003.log"), "ok again");
}

TEST_P(FaultEnvTest, InjectedSyncFailureSyncsNothing) {
  auto f = Open("f");
  SyncDir();
  ASSERT_TRUE(f->Append("a").ok());
  ASSERT_TRUE(f->Sync().ok());
  env_->InjectError(FaultOp::kSync, "", FaultInjectionEnv::IOError());
  ASSERT_TRUE(f->Append("b").ok());
  absl::Status s = f->Sync();
  EXPECT_EQ(s.code(), FaultInjectionEnv::IOError().code()) << s;
  EXPECT_THAT(s.message(), HasSubstr(Path("f")));
  EXPECT_THAT(s.message(), HasSubstr("Input/output error"));
  Crash();
  EXPECT_EQ(Contents("f"), "a");
}

TEST_P(FaultEnvTest, SkipCountLetsTheFirstCallsThrough) {
  auto f = Open("f");
  env_->InjectError(FaultOp::kAppend, "f", FaultInjectionEnv::NoSpaceError(),
                    /*skip=*/2);
  EXPECT_TRUE(f->Append("1").ok());
  EXPECT_TRUE(f->Append("2").ok());
  EXPECT_FALSE(f->Append("3").ok());
  EXPECT_FALSE(f->Append("4").ok());  // keeps failing once it has started
  env_->ClearErrors();
  EXPECT_TRUE(f->Append("5").ok());
  ASSERT_TRUE(f->Close().ok());
  EXPECT_EQ(Contents("f"), "125");
}

TEST_P(FaultEnvTest, InjectedNewFileErrorCreatesNothing) {
  env_->InjectError(FaultOp::kNewFile, "MANIFEST",
                    FaultInjectionEnv::NoSpaceError());
  auto f = env_->NewWritableFile(Path("MANIFEST-000001"));
  EXPECT_TRUE(absl::IsResourceExhausted(f.status())) << f.status();
  EXPECT_FALSE(Exists("MANIFEST-000001"));
  EXPECT_TRUE(env_->NewWritableFile(Path("other")).ok());
}

TEST_P(FaultEnvTest, InjectedRenameAndRemoveErrorsChangeNothing) {
  ASSERT_TRUE(WriteStringToFile(env_.get(), "x", Path("a.tmp"), true).ok());
  env_->InjectError(FaultOp::kRename, "CURRENT", FaultInjectionEnv::IOError());
  absl::Status s = env_->RenameFile(Path("a.tmp"), Path("CURRENT"));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(Path("a.tmp") + " to " + Path("CURRENT")));
  EXPECT_TRUE(Exists("a.tmp"));
  EXPECT_FALSE(Exists("CURRENT"));

  env_->InjectError(FaultOp::kRemove, "", FaultInjectionEnv::IOError());
  EXPECT_FALSE(env_->RemoveFile(Path("a.tmp")).ok());
  EXPECT_TRUE(Exists("a.tmp"));
}

TEST_P(FaultEnvTest, InjectedSyncDirErrorLeavesEntriesUndurable) {
  auto f = Open("f");
  ASSERT_TRUE(f->Sync().ok());
  env_->InjectError(FaultOp::kSyncDir, dir_, FaultInjectionEnv::IOError());
  EXPECT_FALSE(env_->SyncDir(dir_).ok());
  env_->ClearErrors();
  Crash();
  EXPECT_FALSE(Exists("f"));
}

TEST_P(FaultEnvTest, InjectedReadAndOpenErrors) {
  ASSERT_TRUE(WriteStringToFile(env_.get(), "abc", Path("t.sst"), true).ok());
  auto r = env_->NewRandomAccessFile(Path("t.sst"));
  auto q = env_->NewSequentialFile(Path("t.sst"));
  ASSERT_TRUE(r.ok() && q.ok());
  env_->InjectError(FaultOp::kRead, ".sst", FaultInjectionEnv::IOError(),
                    /*skip=*/1);
  char scratch[8];
  std::string_view got;
  EXPECT_TRUE((*r)->Read(0, 3, &got, scratch).ok());
  EXPECT_EQ(got, "abc");
  EXPECT_FALSE((*r)->Read(0, 3, &got, scratch).ok());
  EXPECT_TRUE(got.empty());
  EXPECT_FALSE((*q)->Read(3, &got, scratch).ok());

  env_->InjectError(FaultOp::kOpen, ".sst", FaultInjectionEnv::IOError());
  EXPECT_FALSE(env_->NewRandomAccessFile(Path("t.sst")).ok());
  EXPECT_FALSE(env_->NewSequentialFile(Path("t.sst")).ok());
  env_->ClearErrors();
  EXPECT_TRUE(env_->NewRandomAccessFile(Path("t.sst")).ok());
}

TEST_P(FaultEnvTest, InactiveFilesystemRejectsChangesButServesReads) {
  ASSERT_TRUE(WriteStringToFile(env_.get(), "x", Path("a"), true).ok());
  auto f = Open("f");
  env_->SetFilesystemActive(false);
  EXPECT_FALSE(env_->IsFilesystemActive());
  EXPECT_FALSE(f->Append("y").ok());
  EXPECT_FALSE(f->Sync().ok());
  EXPECT_FALSE(env_->NewWritableFile(Path("g")).ok());
  EXPECT_FALSE(env_->RenameFile(Path("a"), Path("b")).ok());
  EXPECT_FALSE(env_->RemoveFile(Path("a")).ok());
  EXPECT_FALSE(env_->SyncDir(dir_).ok());
  EXPECT_FALSE(Exists("g"));
  std::string data;
  EXPECT_TRUE(ReadFileToString(env_.get(), Path("a"), &data).ok());
  EXPECT_EQ(data, "x");
  env_->SetFilesystemActive(true);
  EXPECT_TRUE(f->Append("z").ok());
}

// ---- counters ----

TEST_P(FaultEnvTest, CountersByPathSubstring) {
  auto log = Open("000005.log");
  auto sst = Open("000006.sst");
  ASSERT_TRUE(log->Append("12345").ok());
  ASSERT_TRUE(log->Append("678").ok());
  ASSERT_TRUE(log->Sync().ok());
  ASSERT_TRUE(sst->Append("x").ok());
  ASSERT_TRUE(sst->Sync().ok());
  ASSERT_TRUE(sst->Sync().ok());
  SyncDir();
  EXPECT_EQ(env_->AppendsTo(".log"), 2u);
  EXPECT_EQ(env_->BytesAppendedTo(".log"), 8u);
  EXPECT_EQ(env_->AppendsTo(""), 3u);
  EXPECT_EQ(env_->SyncsOf(".log"), 1u);
  EXPECT_EQ(env_->SyncsOf(".sst"), 2u);
  EXPECT_EQ(env_->sync_count(), 3u);
  EXPECT_EQ(env_->sync_dir_count(), 1u);
  EXPECT_EQ(env_->WritableFilesOpened(".sst"), 1u);
  EXPECT_EQ(env_->AppendsTo("MANIFEST"), 0u);

  // Failed calls are not counted.
  env_->InjectError(FaultOp::kSync, "", FaultInjectionEnv::IOError());
  EXPECT_FALSE(log->Sync().ok());
  EXPECT_EQ(env_->sync_count(), 3u);

  env_->ResetCounters();
  EXPECT_EQ(env_->AppendsTo(""), 0u);
  EXPECT_EQ(env_->sync_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Targets, FaultEnvTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Posix" : "Mem";
                         });

}  // namespace
}  // namespace sift
