// The metamorphic stress test, in the spirit of Pebble's: a seeded random
// sequence of operations -- writes (single, batched, synced), range
// deletions, gets and iterator walks (both directions, with seeks, through
// snapshots), flushes, range compactions, reopens with changed options (fp
// chance, filter layout, compression, memtable and file sizes, block size,
// max_open_files, level-0 trigger), simulated machine crashes that drop
// unsynced data, and injected write failures recovered by Resume or by a
// reopen -- runs under several option configurations, each checked
// answer by answer against a model (tests/testutil/stress_ops.h). The only
// differences allowed are the losses a crash or failure permits: never an
// acknowledged synced write, never a hole or half a batch.
//
// A failure prints its seed, configuration and a minimized operation log
// (operations dropped while it still fails). Replay: SIFT_TEST_SEED=<seed>.
// SIFT_STRESS_OPS sets the operations per sequence; SIFT_STRESS_SECONDS
// keeps drawing fresh seeds for that long (tools/stress.sh). Under ctest it
// runs fixed seeds plus one fresh seed per run, printed; a sanitizer build
// runs shorter sequences (kCtestOps).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/options.h"
#include "tests/testutil/stress_ops.h"
#include "tests/testutil/testutil.h"

namespace sift::test {
namespace {

// Operations per sequence under ctest. A sanitizer build runs a fifth, 5x
// faster at 5-10x the cost per operation; it still meets each rare kind
// (crash, fault, reopen: 1.5% of operations each) about 12 times a sequence.
constexpr int kCtestOps = SanitizerScaled(4000, 5);

struct Config {
  const char* name;
  Options options;
};

std::vector<Config> Configs() {
  std::vector<Config> configs;
  Options small;
  small.write_buffer_size = 64 << 10;
  small.max_file_size = 128 << 10;
  small.block_size = 1024;
  configs.push_back({"small", small});
  Options tiny;
  tiny.write_buffer_size = 16 << 10;
  tiny.max_file_size = 4 << 10;
  tiny.block_size = 256;
  tiny.level0_compaction_trigger = 2;
  tiny.compression = Compression::kNone;
  configs.push_back({"tiny", tiny});
  Options nofilter = small;
  nofilter.bloom_filter_fp_chance = 1.0;
  nofilter.max_open_files = 10;
  nofilter.filter_layout = FilterLayout::kStandard;
  nofilter.block_cache_capacity = 0;
  configs.push_back({"nofilter-fewfiles", nofilter});
  return configs;
}

// Drops runs of operations while the sequence still fails; bounded.
std::vector<StressOp> Minimize(std::vector<StressOp> ops,
                               const Options& options) {
  int runs = 0;
  constexpr int kMaxRuns = 300;
  for (size_t chunk = ops.size() / 2; chunk >= 1 && runs < kMaxRuns;
       chunk /= 2) {
    for (size_t start = 0; start < ops.size() && runs < kMaxRuns;) {
      std::vector<StressOp> candidate(
          ops.begin(), ops.begin() + static_cast<ptrdiff_t>(start));
      candidate.insert(candidate.end(),
                       ops.begin() + static_cast<ptrdiff_t>(
                                         std::min(start + chunk, ops.size())),
                       ops.end());
      ++runs;
      StressRunner runner(options);
      if (!runner.Run(candidate).ok()) {
        ops = std::move(candidate);
      } else {
        start += chunk;
      }
    }
  }
  return ops;
}

// Runs one seed under every configuration; true if all agree with the
// model. Prints a failure's seed, configuration and minimized log.
bool RunSeed(uint64_t seed, int num_ops, StressCounts* total) {
  const std::vector<StressOp> ops = GenerateStressOps(seed, num_ops);
  for (const Config& config : Configs()) {
    StressRunner runner(config.options);
    const absl::Status s = runner.Run(ops);
    const StressCounts& c = runner.counts();
    total->ops += c.ops;
    total->writes_acked += c.writes_acked;
    total->crashes += c.crashes;
    total->faults += c.faults;
    total->reopens += c.reopens;
    total->writes_dropped += c.writes_dropped;
    if (s.ok()) continue;
    std::printf("stress: seed %llu, config %s FAILED: %s\n",
                static_cast<unsigned long long>(seed), config.name,
                std::string(s.message()).c_str());
    const std::vector<StressOp> small = Minimize(ops, config.options);
    std::printf("minimized to %zu ops (replay: SIFT_TEST_SEED=%llu):\n",
                small.size(), static_cast<unsigned long long>(seed));
    for (const StressOp& op : small)
      std::printf("  %s\n", op.ToString().c_str());
    StressRunner again(config.options);
    std::printf("minimized run: %s\n", again.Run(small).ToString().c_str());
    return false;
  }
  return true;
}

void PrintCounts(const char* what, const StressCounts& c) {
  std::printf(
      "%s: %llu ops, %llu writes acknowledged, %llu crashes, %llu faults, "
      "%llu reopens, %llu unsynced or failed writes dropped, writes lost: 0\n",
      what, static_cast<unsigned long long>(c.ops),
      static_cast<unsigned long long>(c.writes_acked),
      static_cast<unsigned long long>(c.crashes),
      static_cast<unsigned long long>(c.faults),
      static_cast<unsigned long long>(c.reopens),
      static_cast<unsigned long long>(c.writes_dropped));
}

TEST(StressTest, FixedSeeds) {
  const int ops = EnvInt("SIFT_STRESS_OPS", kCtestOps);
  StressCounts total;
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    const uint64_t s = TestSeed(seed);
    std::printf("stress: seed %llu, %d ops x %zu configs\n",
                static_cast<unsigned long long>(s), ops, Configs().size());
    ASSERT_TRUE(RunSeed(s, ops, &total)) << "seed " << s;
  }
  PrintCounts("fixed seeds", total);
}

TEST(StressTest, FreshSeed) {
  // New inputs every run: a seed from the clock unless one is given.
  const uint64_t seed = TestSeed(
      std::random_device()() ^
      static_cast<uint64_t>(
          std::chrono::system_clock::now().time_since_epoch().count()));
  const int ops = EnvInt("SIFT_STRESS_OPS", kCtestOps);
  std::printf("stress: fresh seed %llu (replay: SIFT_TEST_SEED=%llu)\n",
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  StressCounts total;
  ASSERT_TRUE(RunSeed(seed, ops, &total)) << "seed " << seed;
  PrintCounts("fresh seed", total);
}

TEST(StressTest, ForAsLongAsAsked) {
  // tools/stress.sh: fresh seeds, one after another, for the time given.
  const int seconds = EnvInt("SIFT_STRESS_SECONDS", 0);
  if (seconds == 0) GTEST_SKIP() << "SIFT_STRESS_SECONDS not set";
  const int ops = EnvInt("SIFT_STRESS_OPS", 3000);
  std::mt19937_64 seeds(TestSeed(std::random_device()()));
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  StressCounts total;
  int sequences = 0;
  while (std::chrono::steady_clock::now() < end) {
    const uint64_t seed = seeds() >> 1;
    ASSERT_TRUE(RunSeed(seed, ops, &total)) << "seed " << seed;
    ++sequences;
    if (sequences % 10 == 0) PrintCounts("so far", total);
  }
  std::printf("stress total (single-threaded): %d sequences\n", sequences);
  PrintCounts("stress total (single-threaded)", total);
}

}  // namespace
}  // namespace sift::test
