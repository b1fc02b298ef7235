// The DB's live counters behind sift::Statistics.
//
// Cheap to update from the read path: each thread updates its own shard of
// counters with relaxed load+store (no locked instruction), and a reader of
// the statistics sums the shards. Threads are spread over kShards shards;
// with more concurrent updating threads than shards, two threads may share
// one and an increment can be lost (statistics only, never data).

#ifndef SIFT_DB_STATISTICS_IMPL_H_
#define SIFT_DB_STATISTICS_IMPL_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "db/dbformat.h"
#include "sift/statistics.h"

namespace sift {

// Counts of one Get, gathered on the stack and added once at its end: a
// short list, since a Get touches a handful of counters.
struct LocalStats {
  struct Entry {
    int8_t level;  // config::kNoLevel: not level-specific
    uint8_t ticker;
    uint32_t n;
  };
  static constexpr int kMax = 48;
  Entry entries[kMax];
  int size = 0;

  void Add(int level, Ticker t, uint32_t n = 1) {
    if (size > 0 && entries[size - 1].level == level &&
        entries[size - 1].ticker == t) {
      entries[size - 1].n += n;
    } else if (size < kMax) {
      entries[size++] =
          Entry{static_cast<int8_t>(level), static_cast<uint8_t>(t), n};
    }
  }
};

class StatisticsImpl {
 public:
  StatisticsImpl();

  // level config::kNoLevel: not level-specific.
  void Add(int level, Ticker t, uint64_t n = 1) {
    auto& c = Shard().counts[level + 1][t];
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void Add(const LocalStats& local);

  Statistics Snapshot() const;

 private:
  static constexpr int kShards = 64;
  struct alignas(64) ShardCounters {
    std::atomic<uint64_t> counts[config::kNumLevels + 1][kNumTickers];
  };
  ShardCounters& Shard();

  std::unique_ptr<ShardCounters[]> shards_;
};

}  // namespace sift

#endif  // SIFT_DB_STATISTICS_IMPL_H_
