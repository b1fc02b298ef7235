// One Env conformance suite, run against the POSIX env, the in-memory env,
// and the wrappers over each (which must be transparent when no fault is
// injected), followed by tests specific to one implementation.

#include "sift/env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/counting_env.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

enum class Kind { kPosix, kMem, kFaultOnMem, kFaultOnPosix, kCountingOnMem };

std::string KindName(Kind k) {
  switch (k) {
    case Kind::kPosix:
      return "Posix";
    case Kind::kMem:
      return "Mem";
    case Kind::kFaultOnMem:
      return "FaultOnMem";
    case Kind::kFaultOnPosix:
      return "FaultOnPosix";
    case Kind::kCountingOnMem:
      return "CountingOnMem";
  }
  return "?";
}

class EnvTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = SafeName(info->name());
    Env* base;
    Kind k = GetParam();
    if (k == Kind::kPosix || k == Kind::kFaultOnPosix) {
      base = Env::Default();
      dir_ = test::TempDir("env_test-" + name);
    } else {
      mem_ = NewMemEnv();
      base = mem_.get();
      dir_ = "/mem/" + name;
    }
    env_ = base;
    if (k == Kind::kFaultOnMem || k == Kind::kFaultOnPosix) {
      wrapper_ = std::make_unique<FaultInjectionEnv>(base);
      env_ = wrapper_.get();
    } else if (k == Kind::kCountingOnMem) {
      wrapper_ = std::make_unique<CountingEnv>(base);
      env_ = wrapper_.get();
    }
    ASSERT_TRUE(env_->CreateDir(dir_).ok());
  }

  void TearDown() override {
    if (mem_ == nullptr) std::filesystem::remove_all(dir_);
  }

  // Parameterized test names look like "Name/Posix".
  static std::string SafeName(std::string s) {
    std::replace(s.begin(), s.end(), '/', '_');
    return s;
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  void Write(const std::string& name, std::string_view data) {
    ASSERT_TRUE(WriteStringToFile(env_, data, Path(name), false).ok());
  }
  std::string Read(const std::string& name) {
    std::string data;
    absl::Status s = ReadFileToString(env_, Path(name), &data);
    EXPECT_TRUE(s.ok()) << s;
    return data;
  }
  std::vector<std::string> Children() {
    absl::StatusOr<std::vector<std::string>> c = env_->GetChildren(dir_);
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok()) return {};
    std::sort(c->begin(), c->end());  // readdir order is unspecified
    return *c;
  }

  std::unique_ptr<Env> mem_;
  std::unique_ptr<Env> wrapper_;
  Env* env_ = nullptr;
  std::string dir_;
};

TEST_P(EnvTest, WriteThenReadBack) {
  auto f = env_->NewWritableFile(Path("f"));
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE((*f)->Append("hello ").ok());
  ASSERT_TRUE((*f)->Append("").ok());
  ASSERT_TRUE((*f)->Append("world").ok());
  ASSERT_TRUE((*f)->Sync().ok());
  ASSERT_TRUE((*f)->Close().ok());
  EXPECT_EQ(Read("f"), "hello world");
  auto size = env_->GetFileSize(Path("f"));
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 11u);
  EXPECT_TRUE(env_->FileExists(Path("f")));
}

TEST_P(EnvTest, ManySmallAndLargeAppendsKeepOrder) {
  // Crosses the POSIX 64 KiB buffer in every way: small appends filling it,
  // appends straddling it, and appends bigger than it.
  uint64_t seed = test::TestSeed(601);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  std::string expect;
  auto f = env_->NewWritableFile(Path("big"));
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 300; ++i) {
    size_t len = rnd.OneIn(20) ? 70000 + rnd.Uniform(100000) : rnd.Skewed(12);
    std::string piece;
    rnd.RandomString(len, &piece);
    ASSERT_TRUE((*f)->Append(piece).ok());
    expect += piece;
    if (rnd.OneIn(30)) {
      ASSERT_TRUE((*f)->Flush().ok());
    }
  }
  ASSERT_TRUE((*f)->Close().ok());
  EXPECT_EQ(*env_->GetFileSize(Path("big")), expect.size());
  EXPECT_TRUE(Read("big") == expect);
}

TEST_P(EnvTest, FlushedDataIsVisibleToNewReaders) {
  auto f = env_->NewWritableFile(Path("f"));
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Append("abc").ok());
  ASSERT_TRUE((*f)->Flush().ok());
  EXPECT_EQ(Read("f"), "abc");
  ASSERT_TRUE((*f)->Append("def").ok());
  ASSERT_TRUE((*f)->Flush().ok());
  EXPECT_EQ(Read("f"), "abcdef");
}

TEST_P(EnvTest, ClosedFileRejectsWrites) {
  auto f = env_->NewWritableFile(Path("f"));
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Close().ok());
  EXPECT_FALSE((*f)->Append("x").ok());
  EXPECT_FALSE((*f)->Sync().ok());
  EXPECT_EQ(Read("f"), "");
}

TEST_P(EnvTest, SequentialRead) {
  Write("f", "0123456789");
  auto f = env_->NewSequentialFile(Path("f"));
  ASSERT_TRUE(f.ok()) << f.status();
  char scratch[16];
  std::string_view got;
  ASSERT_TRUE((*f)->Read(3, &got, scratch).ok());
  EXPECT_EQ(got, "012");
  ASSERT_TRUE((*f)->Read(4, &got, scratch).ok());
  EXPECT_EQ(got, "3456");
  ASSERT_TRUE((*f)->Read(1, &got, scratch).ok());
  EXPECT_EQ(got, "7");
  ASSERT_TRUE((*f)->Read(16, &got, scratch).ok());
  EXPECT_EQ(got, "89");  // short read: end of file
  ASSERT_TRUE((*f)->Read(16, &got, scratch).ok());
  EXPECT_EQ(got, "");
}

TEST_P(EnvTest, RandomAccessReads) {
  Write("f", "0123456789");
  auto f = env_->NewRandomAccessFile(Path("f"));
  ASSERT_TRUE(f.ok()) << f.status();
  char scratch[16];
  std::string_view got;
  ASSERT_TRUE((*f)->Read(2, 3, &got, scratch).ok());
  EXPECT_EQ(got, "234");
  ASSERT_TRUE((*f)->Read(0, 10, &got, scratch).ok());
  EXPECT_EQ(got, "0123456789");
  ASSERT_TRUE((*f)->Read(8, 5, &got, scratch).ok());
  EXPECT_EQ(got, "89");
  ASSERT_TRUE((*f)->Read(10, 5, &got, scratch).ok());
  EXPECT_EQ(got, "");
  ASSERT_TRUE((*f)->Read(1000, 5, &got, scratch).ok());
  EXPECT_EQ(got, "");
}

TEST_P(EnvTest, RandomAccessFileIsSafeAcrossThreads) {
  std::string data;
  Random rnd(test::TestSeed(602));
  rnd.RandomString(100000, &data);
  Write("f", data);
  auto f = env_->NewRandomAccessFile(Path("f"));
  ASSERT_TRUE(f.ok());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Random r(t);
      char scratch[512];
      for (int i = 0; i < 2000; ++i) {
        uint64_t off = r.Uniform(data.size());
        size_t n = r.Uniform(512) + 1;
        std::string_view got;
        if (!(*f)->Read(off, n, &got, scratch).ok() ||
            got != std::string_view(data).substr(off, n)) {
          bad++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_P(EnvTest, NewWritableFileTruncates) {
  Write("f", "old contents");
  Write("f", "new");
  EXPECT_EQ(Read("f"), "new");
}

TEST_P(EnvTest, RenameReplacesTarget) {
  Write("a", "from a");
  Write("b", "old b");
  ASSERT_TRUE(env_->RenameFile(Path("a"), Path("b")).ok());
  EXPECT_FALSE(env_->FileExists(Path("a")));
  EXPECT_EQ(Read("b"), "from a");
  EXPECT_THAT(Children(), ElementsAre("b"));

  absl::Status s = env_->RenameFile(Path("missing"), Path("c"));
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr(Path("missing")));
}

TEST_P(EnvTest, RemoveFile) {
  Write("a", "x");
  ASSERT_TRUE(env_->RemoveFile(Path("a")).ok());
  EXPECT_FALSE(env_->FileExists(Path("a")));
  absl::Status s = env_->RemoveFile(Path("a"));
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr(Path("a")));
}

TEST_P(EnvTest, OpenReaderSurvivesRemoveAndRename) {
  Write("a", "contents");
  auto r = env_->NewRandomAccessFile(Path("a"));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(env_->RenameFile(Path("a"), Path("b")).ok());
  ASSERT_TRUE(env_->RemoveFile(Path("b")).ok());
  char scratch[16];
  std::string_view got;
  ASSERT_TRUE((*r)->Read(0, 16, &got, scratch).ok());
  EXPECT_EQ(got, "contents");
}

TEST_P(EnvTest, MissingFileIsNotFoundNamingThePath) {
  const std::string p = Path("no-such-file");
  EXPECT_FALSE(env_->FileExists(p));
  std::vector<absl::Status> errors = {
      env_->NewSequentialFile(p).status(),
      env_->NewRandomAccessFile(p).status(),
      env_->GetFileSize(p).status(),
  };
  std::string data;
  errors.push_back(ReadFileToString(env_, p, &data));
  for (const absl::Status& s : errors) {
    EXPECT_TRUE(absl::IsNotFound(s)) << s;
    EXPECT_THAT(s.message(), HasSubstr(p));
  }
}

TEST_P(EnvTest, GetChildrenListsNamesOnly) {
  EXPECT_THAT(Children(), ElementsAre());
  Write("a", "1");
  Write("b", "2");
  ASSERT_TRUE(env_->CreateDir(Path("sub")).ok());
  ASSERT_TRUE(WriteStringToFile(env_, "3", Path("sub") + "/inner", false).ok());
  EXPECT_THAT(Children(), ElementsAre("a", "b", "sub"));

  absl::StatusOr<std::vector<std::string>> missing =
      env_->GetChildren(Path("no-such-dir"));
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(missing.status().message(), HasSubstr(Path("no-such-dir")));
}

TEST_P(EnvTest, CreateDirAndRemoveDir) {
  const std::string d = Path("d");
  ASSERT_TRUE(env_->CreateDir(d).ok());
  EXPECT_TRUE(env_->CreateDir(d).ok());  // already exists: fine
  EXPECT_TRUE(env_->FileExists(d));
  EXPECT_TRUE(env_->SyncDir(d).ok());
  ASSERT_TRUE(env_->RemoveDir(d).ok());
  EXPECT_FALSE(env_->FileExists(d));
  EXPECT_FALSE(env_->RemoveDir(d).ok());
  EXPECT_FALSE(env_->SyncDir(d).ok());
}

TEST_P(EnvTest, CreateDirOverRegularFileFails) {
  Write("file", "x");
  absl::Status s = env_->CreateDir(Path("file"));
  EXPECT_TRUE(absl::IsAlreadyExists(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr(Path("file")));
}

TEST_P(EnvTest, RemoveDirOfNonEmptyDirFails) {
  ASSERT_TRUE(env_->CreateDir(Path("d")).ok());
  ASSERT_TRUE(WriteStringToFile(env_, "x", Path("d") + "/f", false).ok());
  EXPECT_FALSE(env_->RemoveDir(Path("d")).ok());
  EXPECT_TRUE(env_->FileExists(Path("d") + "/f"));
}

TEST_P(EnvTest, SecondLockInProcessFails) {
  const std::string p = Path("LOCK");
  auto lock = env_->LockFile(p);
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_TRUE(env_->FileExists(p));  // locking creates the file

  auto again = env_->LockFile(p);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
  EXPECT_THAT(
      again.status().message(),
      HasSubstr("lock " + p + " is held by another process or DB instance"));

  auto other = env_->LockFile(Path("OTHER"));
  EXPECT_TRUE(other.ok()) << other.status();

  lock->reset();  // releases
  auto retaken = env_->LockFile(p);
  EXPECT_TRUE(retaken.ok()) << retaken.status();
}

TEST_P(EnvTest, WriteStringToFileAndReadBack) {
  std::string data(200000, 'z');
  ASSERT_TRUE(WriteStringToFile(env_, data, Path("f"), /*sync=*/true).ok());
  EXPECT_TRUE(Read("f") == data);
}

TEST_P(EnvTest, ClockMovesForward) {
  uint64_t start = env_->NowMicros();
  env_->SleepForMicroseconds(2000);
  uint64_t end = env_->NowMicros();
  EXPECT_GE(end - start, 2000u);
  EXPECT_LT(end - start, 10u * 1000 * 1000);
}

INSTANTIATE_TEST_SUITE_P(AllEnvs, EnvTest,
                         ::testing::Values(Kind::kPosix, Kind::kMem,
                                           Kind::kFaultOnMem,
                                           Kind::kFaultOnPosix,
                                           Kind::kCountingOnMem),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           return KindName(info.param);
                         });

// ---- POSIX only ----

TEST(PosixEnvTest, LockHeldAgainstOtherProcesses) {
  Env* env = Env::Default();
  const std::string dir = test::TempDir("env_test-fork");
  const std::string p = dir + "/LOCK";
  auto lock = env->LockFile(p);
  ASSERT_TRUE(lock.ok()) << lock.status();

  // The child goes straight to flock(), past this process's in-memory lock
  // table (which it inherited), so only the OS lock can stop it.
  auto child_tries_lock = [&p]() -> int {
    pid_t pid = fork();
    if (pid == 0) {
      int fd = ::open(p.c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0) _exit(3);
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) _exit(0);
      _exit(errno == EWOULDBLOCK ? 1 : 2);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(child_tries_lock(), 1) << "child got a lock the parent holds";
  lock->reset();
  EXPECT_EQ(child_tries_lock(), 0) << "lock not released on destruction";
  std::filesystem::remove_all(dir);
}

TEST(PosixEnvTest, ErrorsCarryStrerror) {
  Env* env = Env::Default();
  const std::string dir = test::TempDir("env_test-strerror");
  const std::string p = dir + "/missing";
  absl::Status s = env->NewSequentialFile(p).status();
  EXPECT_THAT(s.message(), HasSubstr(p));
  EXPECT_THAT(s.message(), HasSubstr("No such file or directory"));
  std::filesystem::remove_all(dir);
}

TEST(PosixEnvTest, FilesAreCloseOnExec) {
  const std::string dir = test::TempDir("env_test-cloexec");
  auto f = Env::Default()->NewWritableFile(dir + "/f");
  ASSERT_TRUE(f.ok());
  // The newest descriptor is the file's; check every open one to be safe.
  int checked = 0;
  for (int fd = 3; fd < 1024; ++fd) {
    int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0) continue;
    char link[64], target[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::string(target) == dir + "/f") {
      EXPECT_TRUE(flags & FD_CLOEXEC);
      checked++;
    }
  }
  EXPECT_EQ(checked, 1);
  f->reset();
  std::filesystem::remove_all(dir);
}

// ---- in-memory only ----

TEST(MemEnvTest, PathsAreNormalizedAndDirsAreImplicit) {
  std::unique_ptr<Env> env = NewMemEnv();
  ASSERT_TRUE(WriteStringToFile(env.get(), "x", "/a//b/c", false).ok());
  EXPECT_TRUE(env->FileExists("/a/b/c"));
  EXPECT_TRUE(env->FileExists("/a/b/"));  // parent of a file
  auto children = env->GetChildren("/a/");
  ASSERT_TRUE(children.ok());
  EXPECT_THAT(*children, ElementsAre("b"));
}

TEST(MemEnvTest, EnvsAreIndependent) {
  std::unique_ptr<Env> a = NewMemEnv();
  std::unique_ptr<Env> b = NewMemEnv();
  ASSERT_TRUE(WriteStringToFile(a.get(), "x", "/f", false).ok());
  EXPECT_TRUE(a->FileExists("/f"));
  EXPECT_FALSE(b->FileExists("/f"));
}

TEST(MemEnvTest, TruncationIsSeenByOpenReaders) {
  std::unique_ptr<Env> env = NewMemEnv();
  ASSERT_TRUE(WriteStringToFile(env.get(), "abcdef", "/f", false).ok());
  auto r = env->NewRandomAccessFile("/f");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(WriteStringToFile(env.get(), "xy", "/f", false).ok());
  char scratch[8];
  std::string_view got;
  ASSERT_TRUE((*r)->Read(0, 8, &got, scratch).ok());
  EXPECT_EQ(got, "xy");  // same "inode", as with O_TRUNC
}

TEST(MemEnvTest, LockMayOutliveEnv) {
  std::unique_ptr<Env> env = NewMemEnv();
  auto lock = env->LockFile("/LOCK");
  ASSERT_TRUE(lock.ok());
  env.reset();
  lock->reset();  // must not touch the destroyed env
}

}  // namespace
}  // namespace sift
