// WriteDelay: writes made while level 0 is deep are paced by their bytes
// at delayed_write_rate, harder as level 0 nears the stop trigger, and
// slept in chunks of at least a millisecond.
#include "db/write_delay.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace sift {
namespace {

constexpr uint64_t kRate = uint64_t{1} << 20;  // 1 MiB/s

// Sleeps `n` writes of `bytes` at `level0_files` ask for, in total.
uint64_t TotalSleep(WriteDelay* delay, int n, uint64_t bytes,
                    int level0_files) {
  uint64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t sleep = delay->Charge(bytes, level0_files);
    EXPECT_TRUE(sleep == 0 || sleep >= WriteDelay::kMinSleepMicros) << sleep;
    total += sleep;
  }
  return total;
}

TEST(WriteDelayTest, SmallWritesAreChargedTheirBytesNotAMillisecondEach) {
  WriteDelay delay(kRate, 20, 36);
  // 10,000 writes of 100 bytes at 1 MiB/s: 0.95 s, where LevelDB's one
  // millisecond per write would be 10 s.
  const uint64_t total = TotalSleep(&delay, 10000, 100, 20);
  const double expected = 10000.0 * 100 * 1e6 / kRate;
  EXPECT_LE(total, expected);
  EXPECT_GE(total, expected - WriteDelay::kMinSleepMicros);
}

TEST(WriteDelayTest, ShortDelaysAccrueUntilAMillisecond) {
  WriteDelay delay(kRate, 20, 36);
  // 100 bytes at 1 MiB/s is 95 us: the first ten writes sleep nothing,
  // the eleventh sleeps the accrued 1,049 us.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(delay.Charge(100, 20), 0u) << i;
  const uint64_t sleep = delay.Charge(100, 20);
  EXPECT_GE(sleep, WriteDelay::kMinSleepMicros);
  EXPECT_LE(sleep, 11 * 100 * 1e6 / kRate + 1);
}

TEST(WriteDelayTest, RateFallsAsLevel0NearsTheStopTrigger) {
  WriteDelay delay(kRate, 20, 36);
  EXPECT_DOUBLE_EQ(delay.RateAt(20), static_cast<double>(kRate));
  EXPECT_DOUBLE_EQ(delay.RateAt(35), kRate / 16.0);
  double previous = delay.RateAt(20);
  for (int files = 21; files <= 35; ++files) {
    EXPECT_LT(delay.RateAt(files), previous) << files;
    previous = delay.RateAt(files);
  }
  // Past the stop trigger (a DB reopened with lower triggers) the floor
  // holds rather than a zero or negative rate.
  EXPECT_DOUBLE_EQ(delay.RateAt(80), kRate / 16.0);
  // One file short of the stop, a write waits 16 times longer.
  WriteDelay deep(kRate, 20, 36);
  WriteDelay shallow(kRate, 20, 36);
  const uint64_t at_stop = TotalSleep(&deep, 1000, 1024, 35);
  const uint64_t at_slowdown = TotalSleep(&shallow, 1000, 1024, 20);
  EXPECT_NEAR(static_cast<double>(at_stop) / at_slowdown, 16.0, 0.1);
}

TEST(WriteDelayTest, EqualTriggersChargeTheFullRate) {
  WriteDelay delay(kRate, 8, 8);
  EXPECT_DOUBLE_EQ(delay.RateAt(8), static_cast<double>(kRate));
  WriteDelay adjacent(kRate, 8, 9);
  EXPECT_DOUBLE_EQ(adjacent.RateAt(8), static_cast<double>(kRate));
}

}  // namespace
}  // namespace sift
