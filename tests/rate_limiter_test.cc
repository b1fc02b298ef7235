// The rate limiter (include/sift/rate_limiter.h): the generic limiter's rate
// on a simulated clock (exact) and a real one (an upper bound), its
// priorities and fairness, and Options::rate_limiter in a DB: a compaction
// capped by it writes within 10% of the cap, flushes are charged at high
// priority, every table byte is charged, two DBs share one limiter, and a
// limiter without a rate is refused.

#include "sift/rate_limiter.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"
#include "util/rate_limiter.h"

namespace sift {
namespace {

// A clock that moves only when someone sleeps on it, by exactly the time
// asked: a limiter's waits then cost no real time, and the bytes it lets
// through per simulated second are exact. Files go to the wrapped Env.
class SimulatedClockEnv final : public EnvWrapper {
 public:
  explicit SimulatedClockEnv(Env* files) : EnvWrapper(files) {}
  uint64_t NowMicros() override { return now_.load(); }
  void SleepForMicroseconds(int micros) override {
    if (micros > 0) now_.fetch_add(static_cast<uint64_t>(micros));
  }

 private:
  std::atomic<uint64_t> now_{1000000};
};

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

TEST(RateLimiterTest, BytesOverSimulatedTimeAreTheRate) {
  SimulatedClockEnv clock(Env::Default());
  // 100 KiB/s in 100 ms refills: 10 KiB per refill.
  auto limiter = NewGenericRateLimiter(100 * kKiB, 100000, 10, &clock);
  EXPECT_EQ(limiter->GetBytesPerSecond(), 100 * kKiB);
  EXPECT_EQ(limiter->GetSingleBurstBytes(), 10 * kKiB);
  const uint64_t start = clock.NowMicros();
  for (int i = 0; i < 250; ++i) limiter->Request(4 * kKiB, IOPriority::kLow);
  const double seconds = static_cast<double>(clock.NowMicros() - start) / 1e6;
  // 1000 KiB: the first refill is at once, the other 99 come 100 ms apart.
  EXPECT_DOUBLE_EQ(seconds, 9.9);
  EXPECT_EQ(limiter->GetTotalBytesThrough(), 1000 * kKiB);
  EXPECT_EQ(limiter->GetTotalBytesThrough(IOPriority::kLow), 1000 * kKiB);
  EXPECT_EQ(limiter->GetTotalBytesThrough(IOPriority::kHigh), 0);
  EXPECT_EQ(limiter->GetTotalRequests(), 250);
}

TEST(RateLimiterTest, ARequestLargerThanARefillWaitsForSeveral) {
  SimulatedClockEnv clock(Env::Default());
  auto limiter = NewGenericRateLimiter(kMiB, 10000, 10, &clock);  // 10 KiB
  const uint64_t start = clock.NowMicros();
  limiter->Request(kMiB, IOPriority::kHigh);
  // 1 MiB in 10485-byte refills: 101 of them, 100 waits of 10 ms.
  EXPECT_EQ(clock.NowMicros() - start, 100u * 10000);
  EXPECT_EQ(limiter->GetTotalBytesThrough(IOPriority::kHigh), kMiB);
  limiter->Request(0, IOPriority::kHigh);
  limiter->Request(-5, IOPriority::kHigh);
  EXPECT_EQ(limiter->GetTotalRequests(), 1);
}

TEST(RateLimiterTest, AnIdleLimiterDoesNotSaveUpBursts) {
  SimulatedClockEnv clock(Env::Default());
  auto limiter = NewGenericRateLimiter(100 * kKiB, 100000, 10, &clock);
  limiter->Request(1, IOPriority::kLow);
  clock.SleepForMicroseconds(60 * 1000000);  // a minute with no writes
  const uint64_t start = clock.NowMicros();
  limiter->Request(50 * kKiB, IOPriority::kLow);
  // At most two refills' worth passes at once (what was left, and a new
  // one), not a minute's: the rest waits.
  EXPECT_GE(clock.NowMicros() - start, 300000u);
}

TEST(RateLimiterTest, NewRatesAndBadArguments) {
  SimulatedClockEnv clock(Env::Default());
  auto limiter = NewGenericRateLimiter(kMiB, 0, 0, &clock);
  // Period 0 takes RocksDB's default, 100 ms.
  EXPECT_EQ(limiter->GetSingleBurstBytes(), kMiB / 10);
  limiter->SetBytesPerSecond(2 * kMiB);
  EXPECT_EQ(limiter->GetBytesPerSecond(), 2 * kMiB);
  EXPECT_EQ(limiter->GetSingleBurstBytes(), 2 * kMiB / 10);
  limiter->SetBytesPerSecond(0);
  limiter->SetBytesPerSecond(-1);
  EXPECT_EQ(limiter->GetBytesPerSecond(), 2 * kMiB);
  const uint64_t start = clock.NowMicros();
  for (int i = 0; i < 100; ++i) limiter->Request(20 * kKiB, IOPriority::kLow);
  // 2000 KiB in refills of 204.8 KiB: 10, the first at once, so 0.9 s.
  EXPECT_EQ(clock.NowMicros() - start, 900000u);
}

TEST(RateLimiterTest, LoweringTheRateDropsWhatTheOldRateSavedUp) {
  SimulatedClockEnv clock(Env::Default());
  auto limiter = NewGenericRateLimiter(1000 * kMiB, 100000, 10, &clock);
  limiter->Request(1, IOPriority::kLow);  // a 100 MiB refill, nearly unused
  limiter->SetBytesPerSecond(kMiB);
  const uint64_t start = clock.NowMicros();
  for (int i = 0; i < 10; ++i) {
    limiter->Request(limiter->GetSingleBurstBytes(), IOPriority::kLow);
  }
  // One refill's worth at the new rate passes at once, the other nine wait.
  EXPECT_EQ(clock.NowMicros() - start, 900000u);
}

TEST(RateLimiterTest, RealClockHoldsTheCap) {
  // 4 MiB/s in 10 ms refills for 1 MiB from two threads: at least 240 ms
  // (the first refill passes at once), however fast the machine.
  auto limiter = NewGenericRateLimiter(4 * kMiB, 10000);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&limiter, t] {
      for (int i = 0; i < 64; ++i) {
        limiter->Request(8 * kKiB,
                         t == 0 ? IOPriority::kLow : IOPriority::kHigh);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(limiter->GetTotalBytesThrough(), kMiB);
  EXPECT_GE(seconds, (kMiB - 2 * limiter->GetSingleBurstBytes()) /
                         static_cast<double>(4 * kMiB));
}

TEST(RateLimiterTest, FlushesGoFirstButCompactionsAreNotStarved) {
  // Both priorities always waiting, each request a whole refill: high
  // priority gets each refill except the 1 in `fairness` that serves low
  // first.
  auto limiter = NewGenericRateLimiter(10 * kMiB, 1000, 10);  // 10 KiB
  const int64_t burst = limiter->GetSingleBurstBytes();
  std::atomic<bool> stop{false};
  std::thread low([&] {
    while (!stop.load()) limiter->Request(burst, IOPriority::kLow);
  });
  for (int i = 0; i < 200; ++i) limiter->Request(burst, IOPriority::kHigh);
  stop.store(true);
  low.join();
  const int64_t high_bytes = limiter->GetTotalBytesThrough(IOPriority::kHigh);
  const int64_t low_bytes = limiter->GetTotalBytesThrough(IOPriority::kLow);
  std::printf("high %lld bytes, low %lld bytes\n",
              static_cast<long long>(high_bytes),
              static_cast<long long>(low_bytes));
  EXPECT_EQ(high_bytes, 200 * burst);
  EXPECT_GT(low_bytes, 0);
  EXPECT_GT(high_bytes, 2 * low_bytes);
}

// A DB on an in-memory file system and the simulated clock, its limiter on
// the same clock.
class RateLimitedDbTest : public ::testing::Test {
 protected:
  RateLimitedDbTest()
      : files_(NewMemEnv()),
        clock_(files_.get()),
        limiter_(NewGenericRateLimiter(1024 * kMiB, 100000, 10, &clock_)) {
    options_.env = &clock_;
    options_.create_if_missing = true;
    options_.compression = Compression::kNone;
    options_.write_buffer_size = 256 * kKiB;
    options_.max_file_size = 256 * kKiB;
    options_.rate_limiter = limiter_;
  }

  std::unique_ptr<DB> Open(const std::string& name) {
    auto db = DB::Open(options_, name);
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }

  // n 1 KiB values.
  static void Fill(DB* db, int n, int seed) {
    Random rnd(seed);
    std::string value;
    for (int i = 0; i < n; ++i) {
      rnd.RandomString(1000, &value);
      ASSERT_TRUE(db->Put(WriteOptions(),
                          absl::StrCat("key", rnd.Uniform(100000)), value)
                      .ok());
    }
    ASSERT_TRUE(db->Flush().ok());
    ASSERT_TRUE(db->WaitForCompaction().ok());
  }

  // What one CompactRange of everything did under a cap of `cap` bytes per
  // second: the bytes charged at low priority, the simulated seconds it
  // took, and the DB's statistics before and after.
  struct CappedCompaction {
    int64_t charged = 0;
    double seconds = 0;
    Statistics before, after;
  };
  CappedCompaction CompactUnderCap(DB* db, int64_t cap) {
    limiter_->SetBytesPerSecond(cap);
    CappedCompaction r;
    r.before = db->GetStatistics();
    const int64_t through = limiter_->GetTotalBytesThrough(IOPriority::kLow);
    const uint64_t start = clock_.NowMicros();
    EXPECT_TRUE(db->CompactRange(std::nullopt, std::nullopt).ok());
    EXPECT_TRUE(db->WaitForCompaction().ok());
    r.seconds = static_cast<double>(clock_.NowMicros() - start) / 1e6;
    r.after = db->GetStatistics();
    r.charged = limiter_->GetTotalBytesThrough(IOPriority::kLow) - through;
    return r;
  }

  std::unique_ptr<Env> files_;
  SimulatedClockEnv clock_;
  std::shared_ptr<RateLimiter> limiter_;
  Options options_;
};

TEST_F(RateLimitedDbTest, ACappedCompactionWritesWithinTenPercentOfTheCap) {
  // One writing thread, so the time its writes waited is at most the time
  // that passed (subcompactions wait side by side: see the next test).
  options_.max_subcompactions = 1;
  std::unique_ptr<DB> db = Open("/db");
  ASSERT_NE(db, nullptr);
  Fill(db.get(), 5000, 1);  // about 5 MB, flushed at 1 GiB/s
  const int64_t cap = kMiB;
  const CappedCompaction run = CompactUnderCap(db.get(), cap);
  const Statistics& before = run.before;
  const Statistics& after = run.after;
  const double seconds = run.seconds;
  const int64_t bytes = run.charged;
  const uint64_t written =
      after.Get(kCompactionBytesWritten) - before.Get(kCompactionBytesWritten);
  const double rate = static_cast<double>(bytes) / seconds;
  std::printf(
      "compaction: %lld bytes charged (%llu bytes of tables) in %.3f "
      "simulated seconds: %.0f bytes/s, %.4fx the cap of %lld\n",
      static_cast<long long>(bytes), static_cast<unsigned long long>(written),
      seconds, rate, rate / static_cast<double>(cap),
      static_cast<long long>(cap));
  // Every byte of the compaction's tables was charged, at low priority.
  EXPECT_GT(written, uint64_t{4} * kMiB);
  EXPECT_EQ(static_cast<uint64_t>(bytes), written);
  EXPECT_GE(rate, 0.9 * static_cast<double>(cap));
  EXPECT_LE(rate, 1.1 * static_cast<double>(cap));
  // The DB counted the bytes and the (simulated) time its writes waited.
  EXPECT_EQ(after.Get(kRateLimiterBytes) - before.Get(kRateLimiterBytes),
            written);
  const double waited = static_cast<double>(after.Get(kRateLimiterWaitMicros) -
                                            before.Get(kRateLimiterWaitMicros));
  EXPECT_GT(waited, 0.9 * seconds * 1e6);
  EXPECT_LE(waited, seconds * 1e6);
  const std::string stats = db->GetProperty("sift.stats").value_or("");
  EXPECT_NE(stats.find("sift.rate.limiter.wait.micros"), std::string::npos);
}

// Subcompactions write on several threads at once; the limiter holds
// their sum to the cap.
TEST_F(RateLimitedDbTest, SubcompactionsShareTheCap) {
  options_.max_subcompactions = 4;
  std::unique_ptr<DB> db = Open("/db");
  ASSERT_NE(db, nullptr);
  Fill(db.get(), 5000, 1);  // compacted into many files below level 0
  // Reopened without automatic compaction: the second fill stays in level
  // 0 until the capped CompactRange merges it into those files.
  db.reset();
  options_.level0_compaction_trigger = 100;
  options_.level0_slowdown_writes_trigger = 100;
  options_.level0_stop_writes_trigger = 100;
  db = Open("/db");
  ASSERT_NE(db, nullptr);
  Fill(db.get(), 5000, 2);
  const int64_t cap = kMiB;
  const CappedCompaction run = CompactUnderCap(db.get(), cap);
  const double rate = static_cast<double>(run.charged) / run.seconds;
  std::printf("subcompactions: %llu ranges, %.4fx the cap\n",
              static_cast<unsigned long long>(run.after.Get(kSubcompactions) -
                                              run.before.Get(kSubcompactions)),
              rate / static_cast<double>(cap));
  EXPECT_GT(run.after.Get(kSubcompactions), run.before.Get(kSubcompactions));
  EXPECT_GE(rate, 0.9 * static_cast<double>(cap));
  EXPECT_LE(rate, 1.1 * static_cast<double>(cap));
}

TEST_F(RateLimitedDbTest, FlushesAreChargedAtHighPriority) {
  options_.level0_compaction_trigger = 100;  // no compaction
  options_.level0_slowdown_writes_trigger = 100;
  options_.level0_stop_writes_trigger = 100;
  std::unique_ptr<DB> db = Open("/db");
  ASSERT_NE(db, nullptr);
  Fill(db.get(), 1000, 2);
  const Statistics st = db->GetStatistics();
  EXPECT_GT(st.Get(kFlushes), 1u);
  EXPECT_GT(st.Get(kFlushBytesWritten), 900u * 1000);
  EXPECT_EQ(limiter_->GetTotalBytesThrough(IOPriority::kHigh),
            static_cast<int64_t>(st.Get(kFlushBytesWritten)));
  EXPECT_EQ(limiter_->GetTotalBytesThrough(IOPriority::kLow), 0);
  EXPECT_EQ(st.Get(kRateLimiterBytes), st.Get(kFlushBytesWritten));
}

TEST_F(RateLimitedDbTest, TwoDbsShareOneLimiter) {
  std::unique_ptr<DB> a = Open("/a");
  std::unique_ptr<DB> b = Open("/b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  Fill(a.get(), 800, 3);
  Fill(b.get(), 600, 4);
  const uint64_t charged = a->GetStatistics().Get(kRateLimiterBytes) +
                           b->GetStatistics().Get(kRateLimiterBytes);
  EXPECT_GT(a->GetStatistics().Get(kRateLimiterBytes), 0u);
  EXPECT_GT(b->GetStatistics().Get(kRateLimiterBytes), 0u);
  EXPECT_EQ(static_cast<uint64_t>(limiter_->GetTotalBytesThrough()), charged);
}

TEST_F(RateLimitedDbTest, OpenRefusesALimiterWithoutARate) {
  options_.rate_limiter = NewGenericRateLimiter(0);
  auto db = DB::Open(options_, "/db");
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(db.status()));
  EXPECT_NE(db.status().message().find("rate_limiter"), std::string::npos)
      << db.status();
  EXPECT_FALSE(files_->FileExists("/db/CURRENT"));
}

}  // namespace
}  // namespace sift
