// The multi-threaded stress test: writers, readers (Gets, snapshot reads,
// scans and seek walks in both directions), flushes and range compactions
// at once on one DB, each answer checked against the versions that were
// possible while it was read, in rounds that end with a simulated machine
// crash or a reopen under changed options, after which every acknowledged
// synced write (every acknowledged write, after a reopen) must be there
// (tests/testutil/stress_threads.h). CI runs it under ThreadSanitizer too:
// its name carries the "concurrency" label.
//
// Seeded: the seed fixes every thread's choices (the interleaving is the
// scheduler's); a failure prints it, SIFT_TEST_SEED=<seed> runs it again.
// SIFT_STRESS_SECONDS keeps drawing fresh seeds for that long
// (tools/stress.sh).

#include "tests/testutil/stress_threads.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "sift/options.h"
#include "sift/rate_limiter.h"
#include "tests/testutil/testutil.h"

namespace sift::test {
namespace {

// Writes per writer and round under ctest; a sanitizer build does a third
// (ThreadSanitizer costs 5-15x per operation).
constexpr int kCtestWrites = SanitizerScaled(1500, 3);

Options SmallSizes(uint64_t seed) {
  Options o;
  // One to four background threads, by seed: with three, two compactions
  // and a flush run beside the readers and writers.
  o.max_background_jobs = 1 + static_cast<int>(seed % 4);
  o.write_buffer_size = 32 << 10;
  o.max_file_size = 64 << 10;
  o.block_size = 1024;
  o.level0_compaction_trigger = 2;
  // Flushes and compactions charge a limiter shared by every DB the test
  // opens (fast enough not to slow it), from the background threads while
  // the readers and writers run.
  static const std::shared_ptr<RateLimiter> limiter =
      NewGenericRateLimiter(256 << 20, 1000);
  o.rate_limiter = limiter;
  return o;
}

void Add(const ThreadedStressCounts& c, ThreadedStressCounts* total) {
  total->rounds += c.rounds;
  total->ops += c.ops;
  total->writes_acked += c.writes_acked;
  total->crashes += c.crashes;
  total->reopens += c.reopens;
  total->writes_dropped += c.writes_dropped;
}

void PrintCounts(const char* what, const ThreadedStressCounts& c) {
  std::printf(
      "%s: %llu rounds, %llu ops, %llu writes acknowledged, %llu crashes, "
      "%llu reopens, %llu unsynced writes dropped by crashes, writes lost: 0\n",
      what, static_cast<unsigned long long>(c.rounds),
      static_cast<unsigned long long>(c.ops),
      static_cast<unsigned long long>(c.writes_acked),
      static_cast<unsigned long long>(c.crashes),
      static_cast<unsigned long long>(c.reopens),
      static_cast<unsigned long long>(c.writes_dropped));
}

// One seed; true if every answer was possible. Prints a failure's seed.
bool RunSeed(uint64_t seed, int writes, ThreadedStressCounts* total) {
  ThreadedStressSize size;
  size.writes_per_round = writes;
  ThreadedStressRunner runner(seed, SmallSizes(seed), size);
  const absl::Status s = runner.Run();
  Add(runner.counts(), total);
  if (s.ok()) return true;
  std::printf(
      "stress threads: seed %llu FAILED (replay: SIFT_TEST_SEED=%llu): %s\n",
      static_cast<unsigned long long>(seed),
      static_cast<unsigned long long>(seed), std::string(s.message()).c_str());
  return false;
}

TEST(StressThreadsTest, FixedSeeds) {
  const int writes = EnvInt("SIFT_STRESS_WRITES", kCtestWrites);
  ThreadedStressCounts total;
  for (uint64_t seed : {1u, 2u}) {
    const uint64_t s = TestSeed(seed);
    std::printf("stress threads: seed %llu, %d writes per writer and round\n",
                static_cast<unsigned long long>(s), writes);
    ASSERT_TRUE(RunSeed(s, writes, &total)) << "seed " << s;
  }
  PrintCounts("fixed seeds", total);
}

TEST(StressThreadsTest, FreshSeed) {
  const uint64_t seed = TestSeed(
      std::random_device()() ^
      static_cast<uint64_t>(
          std::chrono::system_clock::now().time_since_epoch().count()));
  std::printf("stress threads: fresh seed %llu (replay: SIFT_TEST_SEED=%llu)\n",
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  ThreadedStressCounts total;
  ASSERT_TRUE(RunSeed(seed, EnvInt("SIFT_STRESS_WRITES", kCtestWrites), &total))
      << "seed " << seed;
  PrintCounts("fresh seed", total);
}

TEST(StressThreadsTest, ForAsLongAsAsked) {
  // tools/stress.sh: fresh seeds, one after another, for the time given.
  const int seconds = EnvInt("SIFT_STRESS_SECONDS", 0);
  if (seconds == 0) GTEST_SKIP() << "SIFT_STRESS_SECONDS not set";
  const int writes = EnvInt("SIFT_STRESS_WRITES", 1500);
  std::mt19937_64 seeds(TestSeed(std::random_device()()));
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  ThreadedStressCounts total;
  int sequences = 0;
  while (std::chrono::steady_clock::now() < end) {
    const uint64_t seed = seeds() >> 1;
    ASSERT_TRUE(RunSeed(seed, writes, &total)) << "seed " << seed;
    ++sequences;
    if (sequences % 10 == 0) PrintCounts("so far", total);
  }
  std::printf("stress total (threads): %d sequences\n", sequences);
  PrintCounts("stress total (threads)", total);
}

}  // namespace
}  // namespace sift::test
