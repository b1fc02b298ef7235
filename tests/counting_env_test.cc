#include "tests/testutil/counting_env.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sift/env.h"

namespace sift {
namespace {

class CountingEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        WriteStringToFile(mem_.get(), "0123456789", "/db/000001.sst", false)
            .ok());
    ASSERT_TRUE(
        WriteStringToFile(mem_.get(), "abcdef", "/db/000002.sst", false).ok());
    ASSERT_TRUE(
        WriteStringToFile(mem_.get(), "log data", "/db/000003.log", false)
            .ok());
  }

  std::unique_ptr<RandomAccessFile> OpenRandom(const std::string& path) {
    auto f = env_.NewRandomAccessFile(path);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }

  std::unique_ptr<Env> mem_ = NewMemEnv();
  CountingEnv env_{mem_.get()};
  char scratch_[64];
  std::string_view got_;
};

TEST_F(CountingEnvTest, CountsReadsAndBytesPerPath) {
  auto a = OpenRandom("/db/000001.sst");
  auto b = OpenRandom("/db/000002.sst");
  EXPECT_EQ(env_.reads(), 0u);
  ASSERT_TRUE(a->Read(0, 4, &got_, scratch_).ok());
  ASSERT_TRUE(a->Read(8, 4, &got_, scratch_).ok());  // short: 2 bytes
  ASSERT_TRUE(b->Read(0, 3, &got_, scratch_).ok());
  EXPECT_EQ(got_, "abc");  // reads pass through unchanged

  EXPECT_EQ(env_.reads(), 3u);
  EXPECT_EQ(env_.bytes_read(), 4u + 2u + 3u);
  EXPECT_EQ(env_.ReadsOf("000001.sst"), 2u);
  EXPECT_EQ(env_.BytesReadOf("000001.sst"), 6u);
  EXPECT_EQ(env_.ReadsOf("000002"), 1u);
  EXPECT_EQ(env_.ReadsOf(".sst"), 3u);
  EXPECT_EQ(env_.ReadsOf(".log"), 0u);
  EXPECT_EQ(env_.OpensOf(".sst"), 2u);
}

TEST_F(CountingEnvTest, SequentialReadsAreNotCounted) {
  std::string data;
  ASSERT_TRUE(ReadFileToString(&env_, "/db/000003.log", &data).ok());
  EXPECT_EQ(data, "log data");
  EXPECT_EQ(env_.reads(), 0u);
  EXPECT_EQ(env_.ReadsOf(""), 0u);
}

TEST_F(CountingEnvTest, FailedOpenCountsNothing) {
  EXPECT_FALSE(env_.NewRandomAccessFile("/db/missing.sst").ok());
  EXPECT_EQ(env_.OpensOf(""), 0u);
}

TEST_F(CountingEnvTest, ResetZeroesEverythingAndCountingContinues) {
  auto a = OpenRandom("/db/000001.sst");
  ASSERT_TRUE(a->Read(0, 4, &got_, scratch_).ok());
  env_.Reset();
  EXPECT_EQ(env_.reads(), 0u);
  EXPECT_EQ(env_.bytes_read(), 0u);
  EXPECT_EQ(env_.ReadsOf(".sst"), 0u);
  EXPECT_EQ(env_.OpensOf(".sst"), 0u);
  // A file opened before Reset keeps counting into the same entry.
  ASSERT_TRUE(a->Read(0, 1, &got_, scratch_).ok());
  EXPECT_EQ(env_.ReadsOf("000001"), 1u);
  EXPECT_EQ(env_.reads(), 1u);
}

TEST_F(CountingEnvTest, ConcurrentReadsAreAllCounted) {
  auto a = OpenRandom("/db/000001.sst");
  constexpr int kThreads = 4;
  constexpr int kReads = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      char scratch[4];
      std::string_view got;
      for (int i = 0; i < kReads; ++i) {
        EXPECT_TRUE(a->Read(0, 4, &got, scratch).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(env_.ReadsOf("000001"), uint64_t{kThreads} * kReads);
  EXPECT_EQ(env_.bytes_read(), uint64_t{kThreads} * kReads * 4);
}

TEST(CountingEnvLifetimeTest, FileMayOutliveEnv) {
  std::unique_ptr<Env> mem = NewMemEnv();
  ASSERT_TRUE(WriteStringToFile(mem.get(), "x", "/f", false).ok());
  std::unique_ptr<RandomAccessFile> file;
  {
    CountingEnv env(mem.get());
    auto f = env.NewRandomAccessFile("/f");
    ASSERT_TRUE(f.ok());
    file = *std::move(f);
  }
  char scratch[1];
  std::string_view got;
  EXPECT_TRUE(file->Read(0, 1, &got, scratch).ok());
  EXPECT_EQ(got, "x");
}

}  // namespace
}  // namespace sift
